import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { paged } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './emission-points.schemas.js';
import type { EmissionPointsService } from './emission-points.service.js';

const adminOnly = 'Caller: operator or `administrador` of the company. ';
const notFound = 'Points and branches of companies the caller cannot see answer 404 like missing ones. ';

export function emissionPointsRoutes(points: EmissionPointsService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Punto Emision'];

    app.get('/api/v1/puntoemision/todos', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List emission points', description: 'Points of `idEmpresa`, ordered by branch code and terminal code.', querystring: s.listPointsQuery, response: { 200: s.pointsPage, ...errorResponses } },
    }, async (req) => {
      const { start, length, ...filters } = req.query;
      const { data, total } = await points.list(requireActor(req), filters, { start, length });
      return paged(data, total, { start, length });
    });

    app.post('/api/v1/puntoemision/crear', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Create emission point', description: `${adminOnly}codTerminal is unique within the branch (409 PUNTO_EMISION_DUPLICADO). ${notFound}`, body: s.createPointBody, response: { 201: s.pointView, ...errorResponses, 409: errorBody } },
    }, async (req, reply) => {
      const { idSucursal, ...input } = req.body;
      return reply.status(201).send(await points.create(requireActor(req), idSucursal, input));
    });

    app.post('/api/v1/puntoemision/editar', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Update emission point', description: `${adminOnly}Only the fields sent change. A disabled point (habilitada false) cannot issue. ${notFound}`, body: s.editPointBody, response: { 200: s.pointView, ...errorResponses, 409: errorBody } },
    }, async (req) => {
      const { idPuntoEmision, ...input } = req.body;
      return points.edit(requireActor(req), idPuntoEmision, input);
    });

    app.get('/api/v1/puntoemision/sucursal/:idSucursal', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Points of a branch', description: `Paged. \`idEmpresa\`, when sent, must be the branch company. ${notFound}`, params: s.branchParams, querystring: s.branchPointsQuery, response: { 200: s.pointsPage, ...errorResponses } },
    }, async (req) => {
      const { start, length, idEmpresa } = req.query;
      const { data, total } = await points.listOfBranch(requireActor(req), req.params.idSucursal, idEmpresa, { start, length });
      return paged(data, total, { start, length });
    });

    app.get('/api/v1/puntoemision/getBySucursalTerminal/:idSucursal', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Point by branch and terminal', description: `The point \`codTerm\` of the branch. \`idEmp\`, when sent, must be the branch company. ${notFound}`, params: s.branchParams, querystring: s.byTerminalQuery, response: { 200: s.pointView, ...errorResponses } },
    }, async (req) => points.getByBranchTerminal(requireActor(req), req.params.idSucursal, req.query.idEmp, req.query.codTerm));

    app.get('/api/v1/puntoemision/:id', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Get emission point by id', description: notFound, params: s.pointIdParams, response: { 200: s.pointView, ...errorResponses } },
    }, async (req) => points.get(requireActor(req), req.params.id));
  };
}
