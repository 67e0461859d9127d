import { z } from 'zod';
import { calendarDate } from '../../platform/http/dates.js';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { flag01, pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import { dgiText } from '../../platform/http/dgi-fields.js';

/** Calendar date as the spec writes dates (YYYY-MM-DD), checked to be a real day. */
export const isoDate = calendarDate;

const optText = (max: number, describe: string) => z.string().trim().max(max).nullish().describe(describe);
const codigoCasa = z.number().int().min(0).max(9999);

export const ambienteDgi = z.enum(['testing', 'produccion']).describe('DGI environment the company sends to (testing = homologación)');
export const regimenTributario = z
  .enum(['general', 'iva_minimo', 'monotributo', 'monotributo_social', 'exonerado'])
  .describe('Tax regime (decides which CFE types and IVA rates apply)');

/** Open-ended company settings, typed here; stored as JSON. Unknown keys are rejected. */
const settingFields = {
  leyendaAdicional: z.string().max(500).describe('Extra legend printed on the representación impresa'),
  emailCopiaCfe: z.string().email().describe('Address that receives a copy of every CFE sent by e-mail'),
  plazoRespuestaCfeRecibidoDias: z.number().int().min(1).max(365).describe('Days the company gives itself to accept or reject a received CFE (vencimientoRespuesta; default 30). DGI sets no deadline (BRIEF 8).'),
};
export const configuracion = z
  .object({ leyendaAdicional: settingFields.leyendaAdicional.optional(), emailCopiaCfe: settingFields.emailCopiaCfe.optional(), plazoRespuestaCfeRecibidoDias: settingFields.plazoRespuestaCfeRecibidoDias.optional() })
  .strict();
/** On edit the settings merge per key: a key not sent keeps its value, a key sent as null is removed. */
export const configuracionPatch = z
  .object({ leyendaAdicional: settingFields.leyendaAdicional.nullish(), emailCopiaCfe: settingFields.emailCopiaCfe.nullish(), plazoRespuestaCfeRecibidoDias: settingFields.plazoRespuestaCfeRecibidoDias.nullish() })
  .strict()
  .describe('Merged per key with the stored settings: keys not sent keep their value; null removes a key.');

const companyData = {
  // Each one is signed in the Emisor block: DGI's lengths at the door (issue 28 point 3), not cut at emission.
  razonSocial: dgiText('RznSocType', { required: true }).describe('Legal name (Emisor/RznSoc, ≤ 150 characters)'),
  nombreComercial: dgiText('NomComercialType').nullish().describe('Trade name (Emisor/NomComercial, ≤ 30 characters)'),
  domicilioFiscal: dgiText('DireccionType').nullish().describe('Fiscal address (Emisor/DomFiscal, ≤ 70 characters)'),
  ciudad: dgiText('CiudadType').nullish().describe('City (Emisor/Ciudad, ≤ 30 characters)'),
  departamento: dgiText('DeptoType').nullish().describe('Department, e.g. Montevideo (Emisor/Departamento, ≤ 30 characters)'),
  telefono: dgiText('FonoType').nullish().describe('Phone (Emisor/Telefono, ≤ 20 characters)'),
  email: z.string().trim().email().max(80).nullish().describe('E-mail (Emisor/CorreoEmisor, ≤ 80 characters, DGI MailType)'),
  actividad: dgiText('GiroType').nullish().describe('Activity (Emisor/GiroEmis, ≤ 60 characters, DGI GiroType)'),
  ambienteDgi: ambienteDgi.optional(),
  CodigoCasaDgiPorDefecto: codigoCasa.nullish().describe('Default DGI branch code (spec 2.2 rule 5, last fallback)'),
  regimenTributario: regimenTributario.optional(),
  urlVerificacion: z.string().url().max(300).nullish().describe('e-Ticket verification website printed in the legend'),
  limiteCfeMensual: z.number().int().min(0).max(PG_INT_MAX).nullish().describe('CFE allowed per calendar month; null = unlimited. Operators only.'),
  numeroResolucion: optText(40, 'DGI resolution number that authorises the company as issuer'),
  fechaResolucion: isoDate.nullish().describe('Date of that resolution (YYYY-MM-DD)'),
  configuracion: configuracion.optional(),
};

export const createCompanyBody = z
  .object({
    rut: z.string().trim().describe('RUT: 12 digits with the DGI check digit'),
    habilitada: z.boolean().optional().describe('Default true'),
    ...companyData,
  })
  .describe('Operators only.')
  .meta({ example: { rut: '219999830019', razonSocial: 'Ejemplo S.A.', domicilioFiscal: 'Av. 18 de Julio 1234', ciudad: 'Montevideo', departamento: 'Montevideo', CodigoCasaDgiPorDefecto: 1, regimenTributario: 'general', limiteCfeMensual: null } });

export const editCompanyBody = z
  .object({ idEmpresa: z.number().int().positive().max(PG_INT_MAX), ...companyData, razonSocial: companyData.razonSocial.optional(), configuracion: configuracionPatch.optional() })
  // Strict: a field this endpoint does not change (rut, habilitada, a typo) is a 400, never silently ignored.
  .strict()
  .describe('Only the fields sent change; null clears an optional field; configuracion merges per key (null removes a key). Unknown fields are a 400: the RUT cannot change (it identifies the issuer of issued CFE) and habilitada changes through /empresa/habilitar/{id} and /empresa/deshabilitar/{id}.')
  .meta({ example: { idEmpresa: 12, telefono: '29001234', ambienteDgi: 'produccion' } });

export const companyView = z.object({
  id: z.number().int(),
  rut: z.string().describe('Example: 219999830019'),
  razonSocial: z.string(),
  nombreComercial: z.string().nullable(),
  domicilioFiscal: z.string().nullable(),
  ciudad: z.string().nullable(),
  departamento: z.string().nullable(),
  telefono: z.string().nullable(),
  email: z.string().nullable(),
  actividad: z.string().nullable(),
  habilitada: z.boolean(),
  tieneLogo: z.boolean(),
  CodigoCasaDgiPorDefecto: z.number().int().nullable(),
}).meta({ example: { id: 12, rut: '219999830019', razonSocial: 'Ejemplo S.A.', nombreComercial: 'Ejemplo', domicilioFiscal: 'Av. 18 de Julio 1234', ciudad: 'Montevideo', departamento: 'Montevideo', telefono: '29001234', email: 'facturacion@ejemplo.com.uy', actividad: 'Comercio minorista', habilitada: true, tieneLogo: false, CodigoCasaDgiPorDefecto: 1 } });

export const companyParameters = z.object({
  idEmpresa: z.number().int(),
  ambienteDgi,
  CodigoCasaDgiPorDefecto: z.number().int().nullable(),
  regimenTributario,
  urlVerificacion: z.string().nullable(),
  limiteCfeMensual: z.number().int().nullable().describe('null = unlimited'),
  numeroResolucion: z.string().nullable(),
  fechaResolucion: z.string().nullable(),
  configuracion,
}).meta({ example: { idEmpresa: 12, ambienteDgi: 'testing', CodigoCasaDgiPorDefecto: 1, regimenTributario: 'iva_minimo', urlVerificacion: 'https://www.efactura.dgi.gub.uy/', limiteCfeMensual: 1000, numeroResolucion: '123/2024', fechaResolucion: '2024-05-02', configuracion: { leyendaAdicional: 'Gracias por su compra' } } });

export const companyFilters = z.object({
  nombre: z.string().trim().min(1).max(150).optional().describe('Part of the legal or trade name (case-insensitive)'),
  rut: z.string().trim().regex(/^\d{1,12}$/).optional().describe('RUT or its first digits'),
  habilitada: flag01.optional().describe('1 = only enabled, 0 = only disabled'),
});
export const listCompaniesQuery = pagingQuery.merge(companyFilters);
export const companiesPage = pagedResponse(companyView);

export const idParams = z.object({ id: z.coerce.number().int().positive() });
export const rutParams = z.object({ rut: z.string().describe('12-digit RUT') });
export const companyQuery = z.object({ idEmpresa: z.coerce.number().int().positive() });
