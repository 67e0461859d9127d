import { z } from 'zod';
import { flag01, pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { companyRef } from '../../platform/http/company-refs.js';

const codTerminal = z.string().trim().min(1).max(40).describe('Terminal code, unique within the branch (spec 1). Example: "CAJA1"');

export const pointView = z.object({
  id: z.number().int(),
  idSucursal: z.number().int(),
  idEmpresa: z.number().int(),
  codComercio: z.string().describe('Code of the branch of this point'),
  codTerminal: z.string(),
  descripcion: z.string().nullable(),
  habilitada: z.boolean().describe('A disabled point cannot issue CFE'),
}).meta({ example: { id: 7, idSucursal: 3, idEmpresa: 12, codComercio: 'CENTRO', codTerminal: 'CAJA1', descripcion: 'Caja 1', habilitada: true } });
export const pointsPage = pagedResponse(pointView);

export const createPointBody = z.object({
  idSucursal: companyRef(z.number().int().positive().max(PG_INT_MAX), 'sucursal', { anchor: true }),
  codTerminal,
  descripcion: z.string().trim().max(150).nullish(),
  habilitada: z.boolean().optional().describe('Default true'),
}).meta({ example: { idSucursal: 3, codTerminal: 'CAJA1', descripcion: 'Caja 1' } });

export const editPointBody = z.object({
  idPuntoEmision: companyRef(z.number().int().positive().max(PG_INT_MAX), 'puntoEmision', { anchor: true }),
  codTerminal: codTerminal.optional(),
  descripcion: z.string().trim().max(150).nullish(),
  habilitada: z.boolean().optional(),
}).meta({ example: { idPuntoEmision: 7, habilitada: false } });

export const listPointsQuery = pagingQuery.extend({
  idEmpresa: z.coerce.number().int().positive().describe('Company whose points to list'),
  codTerminal: z.string().trim().min(1).max(40).optional(),
  habilitada: flag01.optional().describe('1 = only enabled, 0 = only disabled'),
});

export const pointIdParams = z.object({ id: z.coerce.number().int().positive() });
export const branchParams = z.object({ idSucursal: z.coerce.number().int().positive() });
export const branchPointsQuery = pagingQuery.extend({
  idEmpresa: z.coerce.number().int().positive().optional().describe('When sent, must be the branch company'),
});
export const byTerminalQuery = z.object({
  idEmp: z.coerce.number().int().positive().optional().describe('Company id; when sent, must be the branch company'),
  codTerm: z.string().trim().min(1).max(40).describe('Terminal code'),
});
