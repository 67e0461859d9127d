import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { paged } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './customers.schemas.js';
import type { CustomersService } from './customers.service.js';

export function customersRoutes(svc: CustomersService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Cliente'];
    const note = 'Not in the spec (issue 4): customers of a company, the DGI receiver block. ';
    app.post('/api/v1/cliente/crear', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Create customer', description: `${note}Unique per company, country, document type and document (409 CLIENTE_DUPLICADO). Role: emisor.`, body: s.createBody, response: { 201: s.customerView, ...errorResponses, 409: errorBody } },
    }, async (req, reply) => reply.status(201).send(await svc.create(requireActor(req), req.body)));
    app.post('/api/v1/cliente/editar', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Edit customer', description: `${note}Only the fields sent change. Role: emisor.`, body: s.editBody, response: { 200: s.customerView, ...errorResponses, 409: errorBody } },
    }, async (req) => svc.edit(requireActor(req), req.body as never));
    app.get('/api/v1/cliente/todos', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List customers', description: `${note}Paged; q filters by legal name or document.`, querystring: s.listQuery, response: { 200: s.customersPage, ...errorResponses } },
    }, async (req) => {
      const { start, length, ...f } = req.query;
      const { data, total } = await svc.list(requireActor(req), f, { start, length });
      return paged(data, total, { start, length });
    });
    app.get('/api/v1/cliente/buscarPorDocumento', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Find customers by document', description: `${note}Exact document (and optional country), as emission does (spec 2.3 rule 3).`, querystring: s.byDocumentQuery, response: { 200: z.array(s.customerView), ...errorResponses } },
    }, async (req) => svc.searchByDocument(requireActor(req), req.query.idEmpresa, req.query.documento, req.query.codPais));
    app.get('/api/v1/cliente/:id', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Get customer', description: `${note}Another company's customer answers 404.`, params: s.idParams, response: { 200: s.customerView, ...errorResponses } },
    }, async (req) => svc.get(requireActor(req), req.params.id));
  };
}
