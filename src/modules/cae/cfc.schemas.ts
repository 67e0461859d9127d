/** Contingency ranges (CFC, spec CAE table: altaCfc, editarCfc, numeroDisponibleContingencia). */
import { z } from 'zod';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { positiveInt4 } from '../../platform/http/numbers.js';
import { calendarDate } from '../../platform/http/dates.js';
import { pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import { companyRef } from '../../platform/http/company-refs.js';

const ymd = calendarDate;
/** PostgreSQL `integer` ids and the `smallint` type column: larger values are a 400 on the field. */
const queryTipo = z.coerce.number().int().min(0).max(32_767);
// DGI NroCFE is at most 7 digits (CFEType.xsd NroCFE).
const nro = z.number().int().min(1).max(9_999_999);
/** The type check is done in the service (CFC_TIPO_INVALIDO) so the user gets the specific code. */
const tipoCFC = z.number().int().describe('Contingency type (2xx): the electronic TCFE + 100, e.g. 201 e-Ticket contingencia, 211 e-Factura contingencia');

export const cfcFields = {
  tipoCFC,
  serie: z.string().regex(/^[A-Z]{1,2}$/, 'una o dos letras mayúsculas').describe('Serie printed on the paper form'),
  desde: nro.describe('First pre-printed number'),
  hasta: nro.describe('Last pre-printed number'),
  constancia: z.string().trim().min(1).max(40).describe('Number of the DGI constancia (type F) that authorized the printing'),
  fechaVencimiento: ymd.describe('Expiry of the range (YYYY-MM-DD); a number is usable through that day inclusive'),
};
export const altaCfcBody = z.object({ idEmpresa: z.number().int().positive().max(PG_INT_MAX), ...cfcFields });
export const editarCfcBody = z.object({
  idCfc: companyRef(z.number().int().positive().max(PG_INT_MAX), 'cfc', { anchor: true }).describe('Id returned by altaCfc'),
  tipoCFC: cfcFields.tipoCFC.optional(),
  serie: cfcFields.serie.optional(),
  desde: cfcFields.desde.optional(),
  hasta: cfcFields.hasta.optional(),
  constancia: cfcFields.constancia.optional(),
  fechaVencimiento: cfcFields.fechaVencimiento.optional(),
});
export const cfcView = z.object({
  id: z.number().int(),
  idEmpresa: z.number().int(),
  tipoCFC: z.number().int(),
  serie: z.string(),
  desde: z.number().int(),
  hasta: z.number().int(),
  constancia: z.string(),
  fechaVencimiento: z.string(),
  vencido: z.boolean().describe('fechaVencimiento is before today (Uruguay)'),
  utilizados: z.number().int().describe('Numbers of the range already transcribed'),
});
export const disponibleQuery = z.object({
  idEmpresa: positiveInt4,
  tipoCFC: queryTipo,
  serie: z.string().regex(/^[A-Z]{1,2}$/, 'una o dos letras mayúsculas'),
  numero: z.coerce.number().int().min(1).max(9_999_999),
});
export const disponibleResult = z.object({
  disponible: z.boolean(),
  motivo: z.enum(['fuera_de_rango', 'vencido', 'utilizado']).optional().describe('Only when not available: no registered range holds the number, its range expired, or the number was already transcribed'),
  rango: cfcView.optional().describe('The registered range holding the number, when there is one'),
});
export const cfcListQuery = pagingQuery.extend({
  idEmpresa: positiveInt4,
  tipoCFC: queryTipo.optional(),
  serie: z.string().max(2).optional(),
});
export const cfcPage = pagedResponse(cfcView);
