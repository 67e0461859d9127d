import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { paged, pagingQuery } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './branches.schemas.js';
import type { BranchesService } from './branches.service.js';
import { idParams } from './companies.schemas.js';
import { imageResponse, logoUploaded, readLogoFile, sendLogo, uploadDescription } from './logo-upload.js';

const adminOnly = 'Caller: operator or `administrador` of the branch company. ';
const notFound = 'A branch of a company the caller cannot see answers 404 SUCURSAL_NO_ENCONTRADA, like a missing one. ';

export function branchesRoutes(branches: BranchesService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Sucursal'];

    app.post('/api/v1/sucursal/crear', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Create branch',
        description: `${adminOnly}codComercio is unique within the company (409 SUCURSAL_DUPLICADA). codigosDgi is the history of DGI branch codes with validity dates (spec 2.2 rule 5); overlapping windows are 400 HISTORIAL_CODIGOS_INVALIDO.`,
        body: s.createBranchBody, response: { 201: s.branchView, ...errorResponses, 409: errorBody },
      },
    }, async (req, reply) => {
      const { idEmpresa, ...input } = req.body;
      return reply.status(201).send(await branches.create(requireActor(req), idEmpresa, input));
    });

    app.post('/api/v1/sucursal/editar', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Edit branch', description: adminOnly + notFound, body: s.editBranchBody, response: { 200: s.branchView, ...errorResponses, 409: errorBody } },
    }, async (req) => {
      const { idSucursal, ...input } = req.body;
      return branches.edit(requireActor(req), idSucursal, input);
    });

    app.get('/api/v1/sucursal/todas', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List branches with codes', description: 'Branches (with codComercio and DGI code history) of `idEmpresa`, or of every visible company when omitted.', querystring: s.listBranchesQuery, response: { 200: s.branchesPage, ...errorResponses } },
    }, async (req) => {
      const { start, length, ...filters } = req.query;
      const { data, total } = await branches.list(requireActor(req), filters, { start, length });
      return paged(data, total, { start, length });
    });

    app.get('/api/v1/sucursal/getEmpresasSucursales', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Enabled companies and branches', description: 'Enabled companies visible to the current user, each with its enabled branches. Paged by company.', querystring: pagingQuery, response: { 200: s.companiesWithBranchesPage, ...errorResponses } },
    }, async (req) => {
      const { data, total } = await branches.companiesWithBranches(requireActor(req), req.query);
      return paged(data, total, req.query);
    });

    app.get('/api/v1/sucursal/getCodigoComercio', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Get branch code', description: `codComercio of the branch \`idSucursal\`. ${notFound}`, querystring: s.branchIdQuery, response: { 200: s.branchCode, ...errorResponses } },
    }, async (req) => branches.codComercio(requireActor(req), req.query.idSucursal));

    app.get('/api/v1/sucursal/:id', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Get branch by id', description: `Includes the DGI code history (codigosDgi). ${notFound}`, params: idParams, response: { 200: s.branchView, ...errorResponses } },
    }, async (req) => branches.get(requireActor(req), req.params.id));

    app.get('/api/v1/sucursal/:id/codigoDgi', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'DGI branch code at a date (extra)',
        description: 'Not in the spec: applies spec 2.2 rule 5 (history entry valid at `fecha`, else Sucursal.CodigoCasaDgi, else Empresa.CodigoCasaDgiPorDefecto) and says which step gave the code. Example: GET /api/v1/sucursal/3/codigoDgi?fecha=2025-06-30',
        params: idParams, querystring: s.dgiCodeQuery, response: { 200: s.dgiCodeAt, ...errorResponses },
      },
    }, async (req) => branches.dgiCodeAt(requireActor(req), req.params.id, req.query.fecha));

    app.post('/api/v1/sucursal/actualizarLogo', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Update branch logo',
        description: `${adminOnly}${uploadDescription}The branch goes in the query string (\`?idSucursal=\`). Read it back with GET /api/v1/sucursal/{id}/logo.`,
        querystring: s.branchIdQuery, response: { 200: logoUploaded.extend({ idSucursal: z.number().int() }), ...errorResponses, 413: errorBody },
      },
    }, async (req) => branches.setLogo(requireActor(req), req.query.idSucursal, await readLogoFile(req)));

    app.post('/api/v1/sucursal/eliminarLogo', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Remove branch logo', description: `${adminOnly}\`?idSucursal=\` in the query string. 404 LOGO_NO_ENCONTRADO when there is none.`, querystring: s.branchIdQuery, response: { 204: z.null(), ...errorResponses } },
    }, async (req, reply) => {
      await branches.removeLogo(requireActor(req), req.query.idSucursal);
      return reply.status(204).send(null);
    });

    app.get('/api/v1/sucursal/:id/logo', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Branch logo (extra)', description: 'Not in the spec: serves the stored branch logo for printing.', params: idParams, response: { 200: imageResponse, ...errorResponses } },
    }, async (req, reply) => sendLogo(reply, await branches.logo(requireActor(req), req.params.id)));
  };
}
