import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { paged } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './sales-orders.schemas.js';
import type { SalesOrdersService } from './sales-orders.service.js';

const FINALIZE_DESCRIPTION = `Only confirmada orders (409 ORDEN_ESTADO_INVALIDO otherwise). Raises \`OrdenDeVenta.Finalizada\` (data: the finalized order).

**emitirCfe: true** issues the order's CFE through emitir (spec 2.1-2.4, same rules and rejections; role emisor on the company). Body: \`codComercio\` and \`codTerminal\` (required, 400 otherwise), \`tipoCfe\` (default 111 e-Factura when the receiver has a RUT — 12-digit documento, or a customer with TipoDocRecep 2 — else 101 e-Ticket), \`formaPago\` (default 1), \`fechaEmision\` (default today in America/Montevideo), \`mntBruto\` (default: prices without VAT), \`indicadorFacturacion\` for every line (default 3), \`tipoCambio\` (foreign currency), \`receptor\` (emitir receptor shape; default the order customer: \`idCliente\`, else \`documento\` + \`nombre\` as razonSocial; a customer with only a name issues without receptor).
The emitir request is built from the order: each line → \`detalles\` (nombreItem, descripcionItem, cantidad, precioUnitario, montoItem, unidadMedida default "N/A"), \`tipoMoneda\` → \`totales.tipoMoneda\`, \`numeroInterno\` = "OV-<id>".
Order of work: the CFE is issued first (its own transaction, \`Cfe.Emitido\` event) with Idempotency-Key \`ordenventa-<id>\`; then the order becomes finalizada with \`idCfeEmitido\` and \`OrdenDeVenta.Finalizada\` is recorded. A rejected CFE (422/409/429 from emitir, body unchanged) leaves the order confirmada and records nothing. Repeating the call on an order already finalized with a CFE answers 200 with that order (no new CFE); a retry after a failure between the two steps replays the same CFE (a retry with a different emission body — other date, terminal or lines — answers 409 IDEMPOTENCIA_CONFLICTO instead of issuing twice). Without emitirCfe the order is finalized with \`idCfeEmitido: null\`.`;

export function salesOrdersRoutes(orders: SalesOrdersService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Orden de venta'];
    const conflict = { 409: errorResponses[400] };

    app.post('/api/v1/ordenventa/crear', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Create a sales order', description: 'Raises `OrdenDeVenta.Creada`. montoItem = cantidad × precioUnitario (2 decimals). The lines become the CFE\'s items, so they are held to DGI\'s limits when saved (issue 28): cantidad > 0 with at most 3 decimals (0 or negative is a 400: an order sells; a CFE\'s negative quantity only takes back an item of the same CFE), precioUnitario ≤ 6 decimals, nombreItem non-blank ≤ 80 characters, tipoCambio ≤ 3 decimals and ≤ 9999.999.', body: s.createOrderBody, response: { 201: s.orderView, ...errorResponses } },
    }, async (req, reply) => reply.status(201).send(await orders.create(requireActor(req), req.body)));

    app.post('/api/v1/ordenventa/editar', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Edit a sales order', description: 'Only borrador/confirmada orders. Raises `OrdenDeVenta.Actualizada`.', body: s.editOrderBody, response: { 200: s.orderView, ...errorResponses, ...conflict } },
    }, async (req) => orders.edit(requireActor(req), req.body));

    app.post('/api/v1/ordenventa/:id/cancelar', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Cancel a sales order', description: 'Only borrador/confirmada orders. Raises `OrdenDeVenta.Cancelada`.', params: s.idParams, response: { 200: s.orderView, ...errorResponses, ...conflict } },
    }, async (req) => orders.cancel(requireActor(req), req.params.id));

    app.post('/api/v1/ordenventa/:id/finalizar', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Finalize a sales order', description: FINALIZE_DESCRIPTION, params: s.idParams, body: s.finalizeBody, response: { 200: s.orderView, ...errorResponses, ...conflict, 422: errorBody, 429: errorBody } },
    }, async (req) => {
      const actor = requireActor(req);
      const { emitirCfe, codComercio, codTerminal, ...rest } = req.body;
      if (!emitirCfe) return orders.finalize(actor, req.params.id);
      return orders.finalizeWithCfe(actor, req.params.id, { codComercio: codComercio!, codTerminal: codTerminal!, ...rest });
    });

    app.get('/api/v1/ordenventa/buscar', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List sales orders', querystring: s.listQuery, response: { 200: s.ordersPage, ...errorResponses } },
    }, async (req) => {
      const { idEmpresa, estado, start, length } = req.query;
      const { data, total } = await orders.list(requireActor(req), idEmpresa, estado, { start, length });
      return paged(data, total, { start, length });
    });

    app.get('/api/v1/ordenventa/:id', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Get a sales order', params: s.idParams, response: { 200: s.orderView, ...errorResponses } },
    }, async (req) => orders.get(requireActor(req), req.params.id));
  };
}
