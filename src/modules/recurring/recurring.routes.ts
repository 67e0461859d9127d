import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { paged } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import { recurringErrors } from './recurring.errors.js';
import * as d from './recurring.docs.js';
import * as s from './recurring.schemas.js';
import type { RecurringService } from './recurring.service.js';
import { ACTIONS, planActions, type PlanAction } from './recurring.states.js';

const base = '/api/v1/facturacionrecurrente';
const tags = ['Facturación recurrente'];
const withConflicts = { ...errorResponses, 409: errorBody, 422: errorBody };

const bodyOf = (a: PlanAction) => (a in s.actionBodies ? s.actionBodies[a as keyof typeof s.actionBodies] : s.emptyActionBody);

export function recurringRoutes(service: RecurringService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(`${base}/catalogos`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Recurring catalogs', description: d.catalogosDescription, response: { 200: s.catalogosView, ...errorResponses } },
    }, async () => service.catalogos());

    app.get(`${base}/buscar`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Search recurring plans', description: d.searchDescription, querystring: s.searchQuery, response: { 200: s.plansPage, ...errorResponses } },
    }, async (req) => {
      const { start, length, ...q } = req.query;
      const { data, total } = await service.search(requireActor(req), q, { start, length });
      return paged(data, total, { start, length });
    });

    app.post(`${base}/crear`, {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Create recurring plan', description: d.planDescription, body: s.createPlanBody, response: { 201: s.planView, ...withConflicts } },
    }, async (req, reply) => reply.status(201).send(await service.create(requireActor(req), req.body) as never));

    app.post(`${base}/editar`, {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Edit recurring plan', description: d.editDescription, body: s.editPlanBody, response: { 200: s.planView, ...withConflicts } },
    }, async (req) => service.edit(requireActor(req), req.body) as never);

    app.get(`${base}/reporte-historial`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Recurring history report', description: d.historyDescription, querystring: s.historyQuery, response: { 200: s.historyPage, ...errorResponses } },
    }, async (req) => {
      const { start, length, ...q } = req.query;
      const { data, total } = await service.history(requireActor(req), q, { start, length });
      return paged(data, total, { start, length });
    });

    app.get(`${base}/previsualizar/:id`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Preview next runs and next CFE', description: d.previewDescription, params: s.idParams, querystring: s.previewQuery, response: { 200: s.previewView, ...errorResponses } },
    }, async (req) => service.preview(requireActor(req), req.params.id, req.query.cantidad));

    app.get(`${base}/:id`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Get a recurring plan', description: 'The plan (as buscar) with `versiones` [{version, idUsuario, fecha}]. Another company\'s plan answers 404 PLAN_NO_ENCONTRADO.', params: s.idParams, response: { 200: s.planDetailView, ...errorResponses } },
    }, async (req) => service.get(requireActor(req), req.params.id) as never);

    // One route per action (the spec's activar/{id} shape) so each documents its own body; any other name is 404.
    for (const action of planActions) {
      app.post(`${base}/${action}/:id`, {
        config: { minRole: 'emisor' },
        schema: {
          tags, summary: `Plan action: ${action}`, description: `${ACTIONS[action].description}\n\n${d.actionsDescription}`,
          params: s.idParams, body: bodyOf(action).nullish(), response: { 200: s.planView.extend({ ejecucion: s.planView.shape.ultimaEjecucion }), ...withConflicts },
        },
      }, async (req) => service.act(requireActor(req), action, req.params.id, (req.body ?? {}) as never) as never);
    }

    app.post(`${base}/:accion/:id`, {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Unknown plan action', description: 'Any action name not in the catalogue answers 404 ACCION_DESCONOCIDA.', params: s.actionParams, response: errorResponses },
    }, async () => {
      throw recurringErrors.ACCION_DESCONOCIDA();
    });
  };
}
