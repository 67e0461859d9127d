import { z } from 'zod';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import { companyRef } from '../../platform/http/company-refs.js';
import { dgiText } from '../../platform/http/dgi-fields.js';

const id = z.number().int().positive().max(PG_INT_MAX);

/** DGI receiver block (CFEType.xsd Receptor): TipoDocRecep, CodPaisRecep, DocRecep, RznSocRecep, DirRecep, CiudadRecep, DeptoRecep, PaisRecep, CP. */
const fields = {
  tipoDocumento: z.number().int().refine((v) => [2, 3, 4, 5, 6, 7].includes(v), 'TipoDocRecep: 2 RUT, 3 CI, 4 otros, 5 pasaporte, 6 DNI, 7 NIFE').describe('TipoDocRecep: 2 RUT, 3 CI, 4 otros, 5 pasaporte, 6 DNI, 7 NIFE'),
  // DGI's CodPaisType table (ISO 3166 alpha-2 + 99): 'ZZ' would pass a pattern and fail the XSD on every receipt.
  codPais: dgiText('CodPaisType', { required: true }).describe('CodPaisRecep (ISO 3166 alpha-2; 99 allowed for tipoDocumento 4, 5 and 7). Types 2 and 3 need UY, 6 (DNI) AR, BR, CL or PY.'),
  documento: z.string().trim().min(1).max(20).describe('DocRecep (RUT and C.I. with a valid check digit) or DocRecepExt'),
  razonSocial: dgiText('RznSocType', { required: true }).describe('RznSocRecep (≤ 150 characters, DGI RznSocType; trimmed, blank refused)'),
  direccion: dgiText('DireccionType').nullable().optional(),
  ciudad: dgiText('CiudadType').nullable().optional(),
  departamento: dgiText('DeptoType').nullable().optional(),
  pais: dgiText('PaisDscType').nullable().optional(),
  codigoPostal: dgiText('CodPostalType').nullable().optional().describe('CP: digits only, 0..99999 (DGI CodPostalType is an integer)'),
  email: z.string().email().nullable().optional().describe('Address the receipts are delivered to'),
  emisorElectronico: z.boolean().optional().describe('Override: treat the customer as a DGI electronic issuer (BRIEF 8) even when DGI\'s registry of electronic issuers (synced daily) does not list its RUT, e.g. before the first sync. A RUT customer the registry lists as an issuer is one without this flag. Electronic issuers get their CFEs e-mailed in an EnvioCFE_entreEmpresas envelope. Default false.'),
  emailIntercambio: z.string().email().nullable().optional().describe('Address for the CFE exchange between companies. When absent: the MAIL of DGI\'s registry of electronic issuers for its RUT, else `email`.'),
};
export const createBody = z.object({ idEmpresa: id, ...fields, codPais: fields.codPais.default('UY') });
// No defaults on edit: a field not sent keeps its stored value.
export const editBody = z.object({ idCliente: companyRef(id, 'cliente', { anchor: true }), ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, (v as z.ZodTypeAny).optional()])) } as { idCliente: z.ZodNumber } & { [K in keyof typeof fields]: z.ZodOptional<(typeof fields)[K]> });
export const customerView = z.object({
  id: z.number().int(), idEmpresa: z.number().int(), tipoDocumento: z.number().int(), codPais: z.string(), documento: z.string(), razonSocial: z.string(),
  direccion: z.string().nullable(), ciudad: z.string().nullable(), departamento: z.string().nullable(), pais: z.string().nullable(), codigoPostal: z.string().nullable(), email: z.string().nullable(),
  emisorElectronico: z.boolean(), emailIntercambio: z.string().nullable(),
});
export const listQuery = pagingQuery.extend({ idEmpresa: z.coerce.number().int().positive(), q: z.string().max(150).optional().describe('Part of the legal name or document') });
export const byDocumentQuery = z.object({ idEmpresa: z.coerce.number().int().positive(), documento: z.string().min(1).max(20), codPais: z.string().length(2).optional() });
export const idParams = z.object({ id: z.coerce.number().int().positive() });
export const customersPage = pagedResponse(customerView);
