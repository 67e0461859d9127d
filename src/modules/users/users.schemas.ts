import { z } from 'zod';
import { companyRoles } from '../../platform/http/actor.js';
import { pagedResponse, pagingQuery } from '../../platform/http/paging.js';

const rol = z.enum(companyRoles).describe('administrador: manages the company and its users; emisor: issues and operates; lectura: read-only');
const companyRole = z.object({ idEmpresa: z.number().int().positive(), rol });

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
  idEmpresa: z.coerce.number().int().positive().optional().describe('Company whose users to list; required unless the caller is an operator'),
});
export const usersPage = pagedResponse(userView);

export const createUserBody = z.object({
  usuario: z.string().email().describe('E-mail, used to log in'),
  nombre: z.string().max(200).optional(),
  clave: z.string().min(8).describe('Initial password (at least 8 characters)'),
  operador: z.boolean().optional().describe('Only an operator can create operators'),
  empresas: z.array(companyRole).default([]).describe('Roles to grant; the caller must administer each company'),
});

export const editUserBody = z.object({
  idUsuario: z.number().int().positive(),
  nombre: z.string().max(200).optional(),
  habilitado: z.boolean().optional(),
  empresas: z.array(companyRole).optional().describe('Replaces the roles on the companies the caller administers'),
});

export const changePasswordBody = z.object({
  claveActual: z.string().min(1),
  claveNueva: z.string().min(8),
});

export const unlockBody = z.object({ idUsuario: z.number().int().positive() });

export const userCompany = z.object({
  idEmpresa: z.number().int(),
  rut: z.string(),
  razonSocial: z.string(),
  habilitada: z.boolean(),
  rol,
});
export const userCompanies = z.array(userCompany);
export const userIdParams = z.object({ idUsuario: z.coerce.number().int().positive() });
