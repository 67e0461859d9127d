import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { paged } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './users.schemas.js';
import type { UsersService } from './users.service.js';

export function usersRoutes(users: UsersService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Usuario'];

    app.get('/api/v1/usuario/empresas', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Companies of the current user', response: { 200: s.userCompanies, ...errorResponses } },
    }, async (req) => {
      const actor = requireActor(req);
      return users.companiesOf(actor, actor.userId);
    });

    app.get('/api/v1/usuario/:idUsuario/empresas', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Companies of a given user', description: 'Only the companies the caller can see.', params: s.userIdParams, response: { 200: s.userCompanies, ...errorResponses } },
    }, async (req) => users.companiesOf(requireActor(req), req.params.idUsuario));

    app.get('/api/v1/usuario/todos', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'List users', description: 'Users of `idEmpresa` (caller must administer it). Operators may omit idEmpresa to list everyone.', querystring: s.listUsersQuery, response: { 200: s.usersPage, ...errorResponses } },
    }, async (req) => {
      const { idEmpresa, start, length } = req.query;
      const { data, total } = await users.list(requireActor(req), idEmpresa, { start, length });
      return paged(data, total, { start, length });
    });

    app.post('/api/v1/usuario/crear', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Create user', body: s.createUserBody, response: { 201: s.userView, ...errorResponses, 409: errorResponses[400] } },
    }, async (req, reply) => reply.status(201).send(await users.create(requireActor(req), req.body)));

    app.post('/api/v1/usuario/editar', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Edit user',
        description: 'Caller: operator or administrator of a company of the user. `empresas` replaces the roles on the companies the caller administers (one entry per company, else 400; a missing or deleted company is 404 `EMPRESA_NO_ENCONTRADA`). ' +
          '`nombre` and `habilitado` belong to the whole account: changing them needs an operator or the administrator of every company of the user (403 `USUARIO_DE_OTRAS_EMPRESAS`). ' +
          'No edit may take away the last enabled administrador of a company, by removing or lowering the role or by disabling the user (409 `ULTIMO_ADMINISTRADOR`, with the company in `idEmpresa`): make someone else administrador first.',
        body: s.editUserBody, response: { 200: s.userView, ...errorResponses, 409: errorBody.describe('Would leave a company without an administrador') },
      },
    }, async (req) => users.edit(requireActor(req), req.body));

    app.post('/api/v1/usuario/actualizarClave', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Update own password',
        description: 'Needs the current password. Every session of the user ends, the calling one included: access tokens stop working at once and every refresh token is revoked (`POST /api/auth/refresh` answers 401 `REFRESH_TOKEN_INVALIDO`). No new tokens are returned: log in again with the new password.',
        body: s.changePasswordBody, response: { 204: z.null(), ...errorResponses },
      },
    }, async (req, reply) => {
      await users.changeOwnPassword(requireActor(req), req.body.claveActual, req.body.claveNueva);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/usuario/desbloquear', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Unlock user', description: 'Clears the lock set after too many failed logins. Caller: operator or administrator of a company of the user.', body: s.unlockBody, response: { 200: s.userView, ...errorResponses } },
    }, async (req) => users.unlock(requireActor(req), req.body.idUsuario));
  };
}
