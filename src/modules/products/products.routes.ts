import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { paged } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './products.schemas.js';
import type { ProductsService } from './products.service.js';

const withConflict = { ...errorResponses, 409: errorBody.describe('Duplicate code') };
const note = 'Not in the spec\'s endpoint list (issue 4): products and variants give the `idVariante` of emission lines (spec 2.1); no stock is kept. ';
const trace = 'requiereLote / requiereSerie: every emission line selling it must carry datosTrazabilidad.id_lote / id_serie of that variant (both when both; spec 2.4 rule 3). ';

export function productsRoutes(svc: ProductsService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Producto'];
    app.post('/api/v1/producto/crear', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Create product', description: `${note}${trace}codigo is unique per company (409 PRODUCTO_DUPLICADO). Add at least one variant to sell it. Role: emisor.`, body: s.createProductBody, response: { 201: s.productView, ...withConflict } },
    }, async (req, reply) => reply.status(201).send(await svc.createProduct(requireActor(req), req.body)));
    app.post('/api/v1/producto/editar', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Edit product', description: `${note}Only the fields sent change. ${trace}Role: emisor.`, body: s.editProductBody, response: { 200: s.productView, ...withConflict } },
    }, async (req) => svc.editProduct(requireActor(req), req.body));
    app.get('/api/v1/producto/todos', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List products', description: `${note}Paged; nombre and codigo filter by part of the text (case-insensitive), habilitado by 0/1.`, querystring: s.productListQuery, response: { 200: s.productsPage, ...errorResponses } },
    }, async (req) => {
      const { start, length, ...f } = req.query;
      const { data, total } = await svc.listProducts(requireActor(req), f, { start, length });
      return paged(data, total, { start, length });
    });

    app.post('/api/v1/producto/variante/crear', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Create variant', description: `${note}A variant of \`idProducto\`: codigo unique in the product (409 VARIANTE_DUPLICADA), optional precioUnitario (decimal string, 400 PRECIO_INVALIDO) and unidadMedida (null = the product's). Its id is the idVariante of emission lines. Role: emisor.`, body: s.createVariantBody, response: { 201: s.variantView, ...withConflict } },
    }, async (req, reply) => reply.status(201).send(await svc.createVariant(requireActor(req), req.body)));
    app.post('/api/v1/producto/variante/editar', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Edit variant', description: `${note}Only the fields sent change; precioUnitario or unidadMedida null clears them. Role: emisor.`, body: s.editVariantBody, response: { 200: s.variantView, ...withConflict } },
    }, async (req) => svc.editVariant(requireActor(req), req.body));
    app.get('/api/v1/producto/variante/:id', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Get variant', description: `${note}Another company's variant answers 404 VARIANTE_NO_ENCONTRADA.`, params: s.idParams, response: { 200: s.variantView, ...errorResponses } },
    }, async (req) => svc.getVariant(requireActor(req), req.params.id));

    app.post('/api/v1/producto/variante/:id/lotes', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Register lot', description: `${note}Registers a lot of the variant (codigo unique in the variant, 409 LOTE_DUPLICADO); its id is datosTrazabilidad.id_lote. Role: emisor.`, params: s.idParams, body: s.lotBody, response: { 201: s.lotView, ...withConflict } },
    }, async (req, reply) => reply.status(201).send(await svc.addLot(requireActor(req), req.params.id, req.body)));
    app.get('/api/v1/producto/variante/:id/lotes', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List lots', description: `${note}Lots of the variant, paged; q filters by part of the code.`, params: s.idParams, querystring: s.listQuery, response: { 200: s.lotsPage, ...errorResponses } },
    }, async (req) => {
      const { start, length, q } = req.query;
      const { data, total } = await svc.listLots(requireActor(req), req.params.id, q, { start, length });
      return paged(data, total, { start, length });
    });
    app.post('/api/v1/producto/variante/:id/series', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Register serial', description: `${note}Registers a serial number of the variant (unique in the variant, 409 SERIE_DUPLICADA), optionally inside one of its lots (422 LOTE_INVALIDO otherwise); its id is datosTrazabilidad.id_serie. Role: emisor.`, params: s.variantParams, body: s.serialBody, response: { 201: s.serialView, ...withConflict, 422: errorBody } },
    }, async (req, reply) => reply.status(201).send(await svc.addSerial(requireActor(req), req.params.id, req.body)));
    app.get('/api/v1/producto/variante/:id/series', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List serials', description: `${note}Serial numbers of the variant, paged; q filters by part of the number.`, params: s.idParams, querystring: s.listQuery, response: { 200: s.serialsPage, ...errorResponses } },
    }, async (req) => {
      const { start, length, q } = req.query;
      const { data, total } = await svc.listSerials(requireActor(req), req.params.id, q, { start, length });
      return paged(data, total, { start, length });
    });

    app.get('/api/v1/producto/:id/variantes', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List variants', description: `${note}Variants of the product, paged. Another company's product answers 404 PRODUCTO_NO_ENCONTRADO.`, params: s.idParams, querystring: s.listQuery.omit({ q: true }), response: { 200: s.variantsPage, ...errorResponses } },
    }, async (req) => {
      const { start, length } = req.query;
      const { data, total } = await svc.listVariants(requireActor(req), req.params.id, { start, length });
      return paged(data, total, { start, length });
    });
    app.get('/api/v1/producto/:id', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Get product', description: `${note}Another company's product answers 404 PRODUCTO_NO_ENCONTRADO.`, params: s.idParams, response: { 200: s.productView, ...errorResponses } },
    }, async (req) => svc.getProduct(requireActor(req), req.params.id));
  };
}
