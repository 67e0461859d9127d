import { z } from 'zod';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { positiveInt4 } from '../../platform/http/numbers.js';
import { flag01, pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import { calendarDate } from '../../platform/http/dates.js';
import { MAX_CFE_NUMBER } from './cae.rules.js';
import { companyRef } from '../../platform/http/company-refs.js';

/** A real calendar day (2026-02-30 is a 400 on the field, not a PostgreSQL error). */
const ymd = calendarDate;
/** Ids are PostgreSQL `integer` columns, tipoCfe a `smallint`: larger values are a 400 on the field, not a database error. */
const id = () => z.number().int().positive().max(PG_INT_MAX);
const idEmpresa = positiveInt4.describe('Company id');
/** CAEType.xsd DNro/HNro (NroCFEType): 1..9,999,999. */
const nro = z.number().int().min(1).max(MAX_CFE_NUMBER);
/** Bounds only; which types may have a CAE is a rule of the service (CAE_TIPO_INVALIDO). */
const tipoCfe = z.number().int().min(100).max(999);

export const caeRangeView = z.object({
  id: z.number().int(),
  idEmpresa: z.number().int(),
  idSucursal: z.number().int().nullable().describe('Branch the range is reserved for; null = whole company'),
  tipoCfe: z.number().int().describe('TCFE, e.g. 101 e-Ticket, 111 e-Factura'),
  serie: z.string(),
  desde: z.number().int().describe('DNro'),
  hasta: z.number().int().describe('HNro'),
  numeroCae: z.string().describe('NA, 11 digits'),
  fechaAutorizacion: z.string().describe('FA'),
  fechaVencimiento: z.string().describe('FVD'),
  caeEspecial: z.number().int().nullable(),
  causalCaeEspecial: z.number().int().nullable(),
  origen: z.enum(['xml', 'manual']),
  proximoNumero: z.number().int().nullable().describe('Next number to hand out; null when exhausted or voided'),
  utilizados: z.number().int().describe('Numbers handed out and not voided'),
  anulados: z.number().int().describe('Numbers voided (adjustments, voiding, DGI rejections)'),
  disponibles: z.number().int().describe('Numbers still usable (0 when expired or voided)'),
  vencido: z.boolean(),
  anulado: z.boolean(),
  estado: z.enum(['vigente', 'agotado', 'vencido', 'anulado']),
});
export const caeRangesPage = pagedResponse(caeRangeView);
/** importar-manual: the range, and what the caller must know about it (issue 27: a simulated DGI that cannot know the range). */
export const manualResult = caeRangeView.extend({ advertencias: z.array(z.string()).optional() });

export const listQuery = pagingQuery.extend({
  idEmpresa,
  tipoCfe: z.coerce.number().int().min(100).max(999).optional(),
  serie: z.string().max(2).optional(),
  vencidos: flag01.optional().describe('1: only expired ranges; 0: only ranges not expired; omitted: all'),
});
export const companyQuery = z.object({ idEmpresa });

export const importXmlBody = z.object({
  idEmpresa: id(),
  xml: z.string().min(1).describe('The CAE file exactly as downloaded from DGI'),
  idSucursal: companyRef(id(), 'sucursal', { error: 'CAE_SUCURSAL_NO_ENCONTRADA' }).nullable().optional(),
});
export const validateBody = z.object({
  idEmpresa: id().optional().describe('When given, RucE is also compared with the company RUT'),
  xml: z.string().min(1),
});
export const validateResult = z.object({
  valido: z.boolean(),
  problemas: z.array(z.object({ codigo: z.string(), mensaje: z.string() })),
  advertencias: z.array(z.string()),
  datos: z
    .object({
      rucE: z.string(), tipoCfe: z.number(), serie: z.string(), dNro: z.number(), hNro: z.number(), ta: z.string().optional(), na: z.string(),
      fa: z.string(), fvd: z.string(), caeEspecial: z.number().optional(), causalCaeEsp: z.number().optional(), tmstFrma: z.string().optional(),
    })
    .nullable(),
  firmante: z.object({ subject: z.string(), issuer: z.string(), serialNumber: z.string(), notBefore: z.string(), notAfter: z.string() }).nullable(),
});

export const manualBody = z.object({
  idEmpresa: id(),
  tipoCfe: tipoCfe.describe('Electronic CFE type (101-182); contingency 2xx ranges go through altaCfc'),
  serie: z.string().regex(/^[A-Z]{1,2}$/, 'una o dos letras mayúsculas'),
  desde: nro,
  hasta: nro.describe('At most 1,000,000 numbers per CAE (BRIEF 10)'),
  numeroCae: z.string().regex(/^\d{11}$/, '11 dígitos'),
  fechaAutorizacion: ymd.describe('FA: not in the future'),
  fechaVencimiento: ymd.describe('FVD: from FA to FA + 24 months (BRIEF 10)'),
  caeEspecial: z.number().int().min(1).max(4).optional(),
  causalCaeEspecial: z.number().int().min(0).max(999).optional(),
  idSucursal: companyRef(id(), 'sucursal', { error: 'CAE_SUCURSAL_NO_ENCONTRADA' }).nullable().optional(),
});

export const setBranchBody = z.object({ idCae: companyRef(id(), 'cae', { anchor: true }), idSucursal: companyRef(id(), 'sucursal', { error: 'CAE_SUCURSAL_NO_ENCONTRADA' }).nullable().describe('null: the range serves the whole company') });
export const adjustBody = z.object({ idCae: companyRef(id(), 'cae', { anchor: true }), proximoNumero: z.number().int().min(1).max(MAX_CFE_NUMBER + 1) });
export const annulBody = z.object({ idCae: companyRef(id(), 'cae', { anchor: true }) });

export const availabilityItem = z.object({
  tipoCfe: z.number().int(),
  serie: z.string(),
  rangosVigentes: z.number().int(),
  numerosDisponibles: z.number().int(),
  fechaVencimiento: z.string().describe('Latest expiry among the usable ranges'),
  usoUltimos30Dias: z.number().int(),
  fechaEstimadaAgotamiento: z.string().nullable().describe('At the last 30 days pace (capped at expiry); null without usage'),
});
export const availabilityResult = z.array(availabilityItem);
