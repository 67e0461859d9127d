import { z } from 'zod';
import { flag01, pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import { isoDate } from './companies.schemas.js';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { companyRef } from '../../platform/http/company-refs.js';

import { dgiText } from '../../platform/http/dgi-fields.js';

export const dgiCodeEntry = z.object({
  codigoDgiSucursal: z.number().int().min(0).max(9999).describe('Branch code DGI assigned (Emisor/CdgDGISucur)'),
  vigenciaDesde: isoDate.describe('First day the code applies (YYYY-MM-DD, inclusive)'),
  vigenciaHasta: isoDate.nullish().describe('Last day the code applies (inclusive); null/omitted = still valid'),
});

const codigosDgi = z
  .array(dgiCodeEntry)
  .max(200)
  .describe('History of DGI branch codes (spec 2.2 rule 5). Windows must not overlap. On edit, the list sent replaces the stored history. Example: [{"codigoDgiSucursal":1,"vigenciaDesde":"2024-01-01","vigenciaHasta":"2024-12-31"},{"codigoDgiSucursal":2,"vigenciaDesde":"2025-01-01"}]');

const branchData = {
  codComercio: z.string().trim().min(1).max(40).describe('Branch code, unique within the company (spec 1). Example: "SUC01"'),
  // Each one is signed in the Emisor block: DGI's lengths at the door (issue 28 point 3), not cut at emission.
  nombre: dgiText('NombreSucType', { required: true }).describe('Branch name (Emisor/EmiSucursal, ≤ 20 characters, DGI NombreSucType)'),
  direccion: dgiText('DireccionType').nullish().describe('Address (Emisor/DomFiscal, ≤ 70 characters)'),
  ciudad: dgiText('CiudadType').nullish().describe('City (Emisor/Ciudad, ≤ 30 characters)'),
  departamento: dgiText('DeptoType').nullish().describe('Department (Emisor/Departamento, ≤ 30 characters)'),
  telefono: dgiText('FonoType').nullish().describe('Phone (Emisor/Telefono, ≤ 20 characters)'),
  email: z.string().trim().email().max(80).nullish().describe('E-mail (Emisor/CorreoEmisor, ≤ 80 characters, DGI MailType)'),
  CodigoCasaDgi: z.number().int().min(0).max(9999).nullish().describe('Sucursal.CodigoCasaDgi: used when no history entry applies'),
  habilitada: z.boolean().optional().describe('Default true'),
  codigosDgi: codigosDgi.optional(),
};

export const createBranchBody = z.object({ idEmpresa: z.number().int().positive().max(PG_INT_MAX), ...branchData }).meta({
  example: { idEmpresa: 12, codComercio: 'CENTRO', nombre: 'Sucursal Centro', ciudad: 'Montevideo', departamento: 'Montevideo', CodigoCasaDgi: 5, codigosDgi: [{ codigoDgiSucursal: 1, vigenciaDesde: '2024-01-01', vigenciaHasta: '2024-12-31' }, { codigoDgiSucursal: 2, vigenciaDesde: '2025-01-01' }] },
});
export const editBranchBody = z
  .object({
    idSucursal: companyRef(z.number().int().positive().max(PG_INT_MAX), 'sucursal', { anchor: true }),
    ...branchData,
    codComercio: branchData.codComercio.optional(),
    nombre: branchData.nombre.optional(),
  })
  .describe('Only the fields sent change; null clears an optional field; codigosDgi, when sent, replaces the history.')
  .meta({ example: { idSucursal: 3, telefono: '29005678', codigosDgi: [{ codigoDgiSucursal: 2, vigenciaDesde: '2025-01-01' }] } });

export const branchView = z.object({
  id: z.number().int(),
  idEmpresa: z.number().int(),
  codComercio: z.string(),
  nombre: z.string(),
  direccion: z.string().nullable(),
  ciudad: z.string().nullable(),
  departamento: z.string().nullable(),
  telefono: z.string().nullable(),
  email: z.string().nullable(),
  CodigoCasaDgi: z.number().int().nullable(),
  habilitada: z.boolean(),
  tieneLogo: z.boolean(),
  codigosDgi: z.array(z.object({ codigoDgiSucursal: z.number().int(), vigenciaDesde: z.string(), vigenciaHasta: z.string().nullable() })),
}).meta({ example: { id: 3, idEmpresa: 12, codComercio: 'CENTRO', nombre: 'Sucursal Centro', direccion: 'Colonia 1000', ciudad: 'Montevideo', departamento: 'Montevideo', telefono: '29001234', email: null, CodigoCasaDgi: 5, habilitada: true, tieneLogo: false, codigosDgi: [{ codigoDgiSucursal: 1, vigenciaDesde: '2024-01-01', vigenciaHasta: '2024-12-31' }, { codigoDgiSucursal: 2, vigenciaDesde: '2025-01-01', vigenciaHasta: null }] } });

export const listBranchesQuery = pagingQuery.extend({
  idEmpresa: z.coerce.number().int().positive().optional().describe('Company; omitted = every company visible to the caller'),
  codComercio: z.string().trim().min(1).max(40).optional(),
  habilitada: flag01.optional().describe('1 = only enabled, 0 = only disabled'),
});
export const branchesPage = pagedResponse(branchView);

export const companiesWithBranchesPage = pagedResponse(
  z.object({
    idEmpresa: z.number().int(),
    rut: z.string(),
    razonSocial: z.string(),
    sucursales: z.array(z.object({ idSucursal: z.number().int(), codComercio: z.string(), nombre: z.string() })),
  }),
);

export const branchIdQuery = z.object({ idSucursal: z.coerce.number().int().positive() });
export const branchCode = z.object({ idSucursal: z.number().int(), idEmpresa: z.number().int(), codComercio: z.string() }).meta({ example: { idSucursal: 3, idEmpresa: 12, codComercio: 'CENTRO' } });
export const dgiCodeQuery = z.object({ fecha: isoDate.describe('Date (YYYY-MM-DD), normally idDoc.fechaEmision') });
export const dgiCodeAt = z.object({
  idSucursal: z.number().int(),
  fecha: z.string(),
  codigoDgiSucursal: z.number().int().nullable().describe('null when neither history, branch nor company define one'),
  origen: z.enum(['historial', 'sucursal', 'empresa']).nullable().describe('Which step of spec 2.2 rule 5 gave the code'),
}).meta({ example: { idSucursal: 3, fecha: '2024-06-15', codigoDgiSucursal: 1, origen: 'historial' } });
