import { z } from 'zod';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { companyRoles } from '../../platform/http/actor.js';
import { pagedResponse, pagingQuery } from '../../platform/http/paging.js';

/** Ids are PostgreSQL `integer` columns: a larger value is a 400 on the field, not a database error. */
const id = () => z.number().int().positive().max(PG_INT_MAX);

const rol = z.enum(companyRoles).describe('administrador: manages the company and its users; emisor: issues and operates; lectura: read-only');
const companyRole = z.object({ idEmpresa: id(), rol });
/** One role per company: a repeated idEmpresa is a 400 on the repeated entry. */
const companyRoleList = z.array(companyRole).superRefine((list, ctx) => {
  const seen = new Set<number>();
  list.forEach((e, i) => {
    if (seen.has(e.idEmpresa)) ctx.addIssue({ code: 'custom', path: [i, 'idEmpresa'], message: `La empresa ${e.idEmpresa} está repetida: indique un solo rol por empresa.` });
    seen.add(e.idEmpresa);
  });
});

export const userView = z.object({
  id: z.number().int(),
  usuario: z.string().describe('E-mail (login name)'),
  nombre: z.string(),
  habilitado: z.boolean(),
  bloqueado: z.boolean().describe('Locked after too many failed logins'),
  operador: z.boolean().describe('Operator of the whole service (sees every company)'),
  empresas: z.array(companyRole).describe('Roles on the companies visible to the caller'),
});

export const listUsersQuery = pagingQuery.extend({
  idEmpresa: z.coerce.number().int().positive().max(PG_INT_MAX).optional().describe('Company whose users to list; required unless the caller is an operator'),
});
export const usersPage = pagedResponse(userView);

export const createUserBody = z.object({
  usuario: z.string().email().describe('E-mail, used to log in'),
  nombre: z.string().max(200).optional(),
  clave: z.string().min(8).describe('Initial password (at least 8 characters)'),
  operador: z.boolean().optional().describe('Only an operator can create operators'),
  empresas: companyRoleList.default([]).describe('Roles to grant, one per company; the caller must administer each company (an operator: any non-deleted company, else 404 EMPRESA_NO_ENCONTRADA)'),
});

export const editUserBody = z.object({
  idUsuario: id(),
  nombre: z.string().max(200).optional().describe('Account-wide: the caller must administer every company of the user (or be an operator)'),
  habilitado: z.boolean().optional().describe('Account-wide, like nombre'),
  empresas: companyRoleList.optional().describe('Replaces the roles on the companies the caller administers, one per company'),
});

export const changePasswordBody = z.object({
  claveActual: z.string().min(1),
  claveNueva: z.string().min(8),
});

export const unlockBody = z.object({ idUsuario: id() });

export const userCompany = z.object({
  idEmpresa: z.number().int(),
  rut: z.string(),
  razonSocial: z.string(),
  habilitada: z.boolean(),
  rol,
});
export const userCompanies = z.array(userCompany);
export const userIdParams = z.object({ idUsuario: z.coerce.number().int().positive().max(PG_INT_MAX) });
