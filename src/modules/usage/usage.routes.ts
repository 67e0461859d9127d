import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../platform/http/error-body.js';
import { paged } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import type { IngestionService } from './ingestion.service.js';
import { usageCsv, type UsageQueryService } from './usage-query.service.js';
import * as s from './usage.schemas.js';
import type { UsageService } from './usage.service.js';

const WINDOW_ALIAS = { hour: 'hora', day: 'dia', month: 'mes' } as const;

export function usageRoutes(usage: UsageService, ingestion: IngestionService, query: UsageQueryService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['suscripciones y contratos'];

    app.post('/api/v1/usage-events', {
      config: { minRole: 'emisor' },
      // The answer is built here to the schema; validating 100 results again costs as much as reading the events.
      serializerCompiler: () => (data) => JSON.stringify(data),
      schema: { tags, summary: 'Send usage events', description: s.eventsDescription, body: s.eventsBody, response: { 200: s.eventsAnswer, 207: s.eventsAnswer, ...errorResponses } },
    }, async (req, reply) => {
      const answer = await ingestion.ingest(requireActor(req), req.body.idEmpresa, req.body.eventos);
      return reply.status(answer.conflictos + answer.rechazados > 0 ? 207 : 200).send(answer);
    });

    app.get('/api/v1/contracts/:id/usage', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Usage of a contract', params: s.idParams, querystring: s.usageQuery, produces: ['application/json', 'text/csv'],
        description: 'Quantities per metric over [start, end), read from hourly rollups kept at ingestion (cost independent of the number of events). `group_by` over the metric\'s declared keys; `ventana` hora/dia/mes in America/Montevideo. JSON by default; CSV with `formato=csv` or `Accept: text/csv`.',
        response: { 200: s.usageAnswer, ...errorResponses },
      },
    }, async (req, reply) => {
      const { formato, window, ventana, ...rest } = req.query;
      const answer = await query.usage(requireActor(req), req.params.id, { ...rest, ventana: ventana ?? (window ? WINDOW_ALIAS[window] : undefined) });
      const csv = formato === 'csv' || (formato === undefined && /\btext\/csv\b/.test(req.headers.accept ?? ''));
      if (!csv) return answer;
      return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="uso-contrato-${answer.idContrato}.csv"`)
        .serializer((x: unknown) => String(x)).send(usageCsv(answer) as never);
    });

    app.post('/api/v1/metrics', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Create a billable metric', querystring: s.companyQuery, body: s.metricBody, response: { 201: s.metricView, ...errorResponses } },
    }, async (req, reply) => reply.status(201).send(await usage.createMetric(requireActor(req), req.query.idEmpresa, req.body)));
    app.get('/api/v1/metrics', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List billable metrics', querystring: s.metricListQuery, response: { 200: s.metricsPage, ...errorResponses } },
    }, async (req) => {
      const { idEmpresa, start, length } = req.query;
      const { data, total } = await usage.listMetrics(requireActor(req), idEmpresa, { start, length });
      return paged(data, total, { start, length });
    });
    app.get('/api/v1/metrics/:id', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Get a billable metric', params: s.idParams, response: { 200: s.metricView, ...errorResponses } },
    }, async (req) => usage.getMetric(requireActor(req), req.params.id));
    app.patch('/api/v1/metrics/:id', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Update a billable metric', description: 'nombre and unidad always; codigo, agregacion, propiedad and clavesAgrupacion only while no usage was counted (409 METRICA_EN_USO).', params: s.idParams, body: s.metricPatch, response: { 200: s.metricView, ...errorResponses } },
    }, async (req) => usage.updateMetric(requireActor(req), req.params.id, req.body));
    app.delete('/api/v1/metrics/:id', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Delete a billable metric', description: 'Only a metric no contract meters (409 METRICA_EN_USO).', params: s.idParams, response: { 204: z.null(), ...errorResponses } },
    }, async (req, reply) => {
      await usage.deleteMetric(requireActor(req), req.params.id);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/contracts', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Create a usage contract', querystring: s.companyQuery, body: s.contractBody, response: { 201: s.contractView, ...errorResponses } },
    }, async (req, reply) => reply.status(201).send(await usage.createContract(requireActor(req), req.query.idEmpresa, req.body)));
    app.get('/api/v1/contracts', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List usage contracts', querystring: s.contractListQuery, response: { 200: s.contractsPage, ...errorResponses } },
    }, async (req) => {
      const { idEmpresa, start, length, ...filters } = req.query;
      const { data, total } = await usage.listContracts(requireActor(req), idEmpresa, filters, { start, length });
      return paged(data, total, { start, length });
    });
    app.get('/api/v1/contracts/:id', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Get a usage contract', params: s.idParams, response: { 200: s.contractView, ...errorResponses } },
    }, async (req) => usage.getContract(requireActor(req), req.params.id));
    app.patch('/api/v1/contracts/:id', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Update a usage contract', params: s.idParams, body: s.contractPatch, response: { 200: s.contractView, ...errorResponses } },
    }, async (req) => usage.updateContract(requireActor(req), req.params.id, req.body));
    app.delete('/api/v1/contracts/:id', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Delete a draft contract', description: 'Only a contract in borrador (409 otherwise: cancel or finish it).', params: s.idParams, response: { 204: z.null(), ...errorResponses } },
    }, async (req, reply) => {
      await usage.deleteContract(requireActor(req), req.params.id);
      return reply.status(204).send(null);
    });

    app.get('/api/v1/usage-settings', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Usage settings of a company', querystring: s.companyQuery, response: { 200: s.settingsView, ...errorResponses } },
    }, async (req) => usage.getSettings(requireActor(req), req.query.idEmpresa));
    app.put('/api/v1/usage-settings', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Set the usage settings of a company', description: 'graciaHoras: hours after a contract\'s period ends during which its late events are still accepted; default USAGE_GRACE_HOURS. usoTardio: what happens to usage accepted for a period already closed (marcar: flag only, the default; automatica: corrected at the next close).', querystring: s.companyQuery, body: s.settingsBody, response: { 200: s.settingsView, ...errorResponses } },
    }, async (req) => usage.setSettings(requireActor(req), req.query.idEmpresa, req.body));
  };
}
