import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../platform/http/error-body.js';
import { paged } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import { closeDescription, createDescription } from './price-books.docs.js';
import * as s from './price-books.schemas.js';
import type { PriceBooksService } from './price-books.service.js';

/** Price books (issue 34 point 1): the spec's POST plus the read paths it lacks and closing a version. */
export function priceBooksRoutes(priceBooks: PriceBooksService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['suscripciones y contratos'];
    const base = '/api/v1/price-books';

    app.post(base, {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Create a price book version', description: createDescription, querystring: s.companyQuery, body: s.createPriceBookBody, response: { 201: s.versionView, ...errorResponses, 409: errorResponses[400] } },
    }, async (req, reply) => reply.status(201).send(await priceBooks.create(requireActor(req), req.query.idEmpresa, req.body)));

    app.get(base, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List price book versions', description: 'Every version of the company\'s price books (without their prices), by code and newest version first; filter by `codigo` or by `vigenteEn` (versions in force that day).', querystring: s.listQuery, response: { 200: s.versionsPage, ...errorResponses } },
    }, async (req) => {
      const { idEmpresa, codigo, vigenteEn, start, length } = req.query;
      const { data, total } = await priceBooks.list(requireActor(req), idEmpresa, { codigo, vigenteEn }, { start, length });
      return paged(data, total, { start, length });
    });

    app.get(`${base}/:codigo`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'A price book with all its versions', params: s.codeParams, querystring: s.companyQuery, response: { 200: s.codeView, ...errorResponses } },
    }, async (req) => priceBooks.byCode(requireActor(req), req.query.idEmpresa, req.params.codigo));

    app.get(`${base}/:codigo/vigente`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'The version in force at a date', description: 'The version of the code whose validity holds `fecha` (default today in Montevideo); 404 LISTA_PRECIOS_NO_ENCONTRADA when none does.', params: s.codeParams, querystring: s.inForceQuery, response: { 200: s.versionView, ...errorResponses } },
    }, async (req) => priceBooks.inForce(requireActor(req), req.query.idEmpresa, req.params.codigo, req.query.fecha));

    app.get(`${base}/:codigo/versiones/:version`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'One version of a price book', params: s.versionParams, querystring: s.companyQuery, response: { 200: s.versionView, ...errorResponses } },
    }, async (req) => priceBooks.version(requireActor(req), req.query.idEmpresa, req.params.codigo, req.params.version));

    app.post(`${base}/:codigo/versiones/:version/cerrar`, {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'End a version so a new one can follow', description: closeDescription, params: s.versionParams, querystring: s.companyQuery, body: s.closeVersionBody, response: { 200: s.versionView, ...errorResponses, 409: errorResponses[400] } },
    }, async (req) => priceBooks.close(requireActor(req), req.query.idEmpresa, req.params.codigo, req.params.version, req.body.vigenteHasta));
  };
}
