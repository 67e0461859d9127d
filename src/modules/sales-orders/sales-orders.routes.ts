import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../platform/http/error-body.js';
import { paged } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './sales-orders.schemas.js';
import type { SalesOrdersService } from './sales-orders.service.js';

export function salesOrdersRoutes(orders: SalesOrdersService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Orden de venta'];
    const conflict = { 409: errorResponses[400] };

    app.post('/api/v1/ordenventa/crear', {
      schema: { tags, summary: 'Create a sales order', description: 'Raises `OrdenDeVenta.Creada`. montoItem = cantidad × precioUnitario (2 decimals).', body: s.createOrderBody, response: { 201: s.orderView, ...errorResponses } },
    }, async (req, reply) => reply.status(201).send(await orders.create(requireActor(req), req.body)));

    app.post('/api/v1/ordenventa/editar', {
      schema: { tags, summary: 'Edit a sales order', description: 'Only borrador/confirmada orders. Raises `OrdenDeVenta.Actualizada`.', body: s.editOrderBody, response: { 200: s.orderView, ...errorResponses, ...conflict } },
    }, async (req) => orders.edit(requireActor(req), req.body));

    app.post('/api/v1/ordenventa/:id/cancelar', {
      schema: { tags, summary: 'Cancel a sales order', description: 'Only borrador/confirmada orders. Raises `OrdenDeVenta.Cancelada`.', params: s.idParams, response: { 200: s.orderView, ...errorResponses, ...conflict } },
    }, async (req) => orders.cancel(requireActor(req), req.params.id));

    app.post('/api/v1/ordenventa/:id/finalizar', {
      schema: { tags, summary: 'Finalize a sales order', description: 'Only confirmada orders. Raises `OrdenDeVenta.Finalizada`. `emitirCfe: true` issues the CFE in the same transaction (501 EMISION_NO_DISPONIBLE until the emission module is wired).', params: s.idParams, body: s.finalizeBody, response: { 200: s.orderView, ...errorResponses, ...conflict } },
    }, async (req) => orders.finalize(requireActor(req), req.params.id, { emitirCfe: req.body?.emitirCfe ?? false }));

    app.get('/api/v1/ordenventa/buscar', {
      schema: { tags, summary: 'List sales orders', querystring: s.listQuery, response: { 200: s.ordersPage, ...errorResponses } },
    }, async (req) => {
      const { idEmpresa, estado, start, length } = req.query;
      const { data, total } = await orders.list(requireActor(req), idEmpresa, estado, { start, length });
      return paged(data, total, { start, length });
    });

    app.get('/api/v1/ordenventa/:id', {
      schema: { tags, summary: 'Get a sales order', params: s.idParams, response: { 200: s.orderView, ...errorResponses } },
    }, async (req) => orders.get(requireActor(req), req.params.id));
  };
}
