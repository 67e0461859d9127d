import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../platform/http/error-body.js';
import { paged } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import { deliveriesDescription, redeliverDescription, registrationDescription } from './webhooks.docs.js';
import * as s from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

export function webhooksRoutes(webhooks: WebhooksService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['webhooks y eventos'];
    const base = '/api/v1/webhooks';

    app.post(base, {
      config: { minRole: 'administrador', mapValidationError: s.mapRegistrationError },
      schema: { tags, summary: 'Register a webhook', description: registrationDescription, querystring: s.companyQuery, body: s.createWebhookBody, response: { 201: s.webhookView, ...errorResponses } },
    }, async (req, reply) => reply.status(201).send(await webhooks.create(requireActor(req), req.query.idEmpresa, req.body)));

    app.get(base, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List webhooks of a company', querystring: s.listQuery, response: { 200: s.webhooksPage, ...errorResponses } },
    }, async (req) => {
      const { idEmpresa, start, length } = req.query;
      const { data, total } = await webhooks.list(requireActor(req), idEmpresa, { start, length });
      return paged(data, total, { start, length });
    });

    app.get(`${base}/catalogo`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Event catalogue', description: 'The event names that can be subscribed, with when each is emitted and its `data`.', response: { 200: s.catalogueView, ...errorResponses } },
    }, async () => webhooks.catalogue());

    app.get(`${base}/:id`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Get a webhook', params: s.idParams, response: { 200: s.webhookView, ...errorResponses } },
    }, async (req) => webhooks.get(requireActor(req), req.params.id));

    app.patch(`${base}/:id`, {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Update a webhook', description: 'Only the fields sent change. `secret: null` stops signing. Needs `administrador`.', params: s.idParams, body: s.updateWebhookBody, response: { 200: s.webhookView, ...errorResponses } },
    }, async (req) => webhooks.update(requireActor(req), req.params.id, req.body));

    app.delete(`${base}/:id`, {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Delete a webhook', description: 'Deletes the endpoint and its delivery log. Needs `administrador`.', params: s.idParams, response: { 204: z.null(), ...errorResponses } },
    }, async (req, reply) => {
      await webhooks.remove(requireActor(req), req.params.id);
      return reply.status(204).send(null);
    });

    app.post(`${base}/:id/rotar-secreto`, {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Rotate the signing secret', description: 'Generates a new `whsec_` secret, used from the next attempt on, and returns it once. Needs `administrador`.', params: s.idParams, response: { 200: s.rotatedSecret, ...errorResponses } },
    }, async (req) => webhooks.rotateSecret(requireActor(req), req.params.id));

    app.post(`${base}/:id/probar`, {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Send a test event', description: 'Queues a `Webhook.Prueba` event for this endpoint only (signed and retried like any other); answers the delivery.', params: s.idParams, response: { 202: s.deliveryView, ...errorResponses } },
    }, async (req, reply) => reply.status(202).send(await webhooks.sendTest(requireActor(req), req.params.id)));

    app.get(`${base}/:id/entregas`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Deliveries of a webhook with their attempts', description: deliveriesDescription, params: s.idParams, querystring: s.deliveriesQuery, response: { 200: s.deliveriesPage, ...errorResponses } },
    }, async (req) => {
      const { estado, start, length } = req.query;
      const { data, total } = await webhooks.deliveries(requireActor(req), req.params.id, estado, { start, length });
      return paged(data, total, { start, length });
    });

    app.get(`${base}/:id/entregas/:idEntrega`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'One delivery with its attempts', description: deliveriesDescription, params: s.deliveryParams, response: { 200: s.deliveryView, ...errorResponses } },
    }, async (req) => webhooks.delivery(requireActor(req), req.params.id, req.params.idEntrega));

    app.post(`${base}/:id/entregas/:idEntrega/reenviar`, {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Re-deliver one delivery', description: redeliverDescription, params: s.deliveryParams, response: { 200: s.deliveryView, ...errorResponses, 409: errorResponses[400] } },
    }, async (req) => webhooks.redeliver(requireActor(req), req.params.id, req.params.idEntrega));

    app.post(`${base}/:id/reenviar`, {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Re-deliver failed/exhausted deliveries in a time window', description: `Every delivery in \`estados\` (default fallido and agotado) created in [desde, hasta). ${redeliverDescription}`, params: s.idParams, body: s.redeliverBody, response: { 200: s.redeliverResult, ...errorResponses } },
    }, async (req) => webhooks.redeliverWindow(requireActor(req), req.params.id, req.body));
  };
}
