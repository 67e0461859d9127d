import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { paged } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import type { CaeService } from './cae.service.js';
import * as s from './cfc.schemas.js';

const withConflict = { ...errorResponses, 409: errorBody.describe('Conflict') };
const fieldsNote =
  'Body fields (the spec does not show them): tipoCFC (contingency type 2xx = electronic TCFE + 100), serie, desde, hasta (the pre-printed numbers), ' +
  'constancia (DGI constancia that authorized the printing), fechaVencimiento (YYYY-MM-DD, inclusive). ';

export function cfcRoutes(cae: CaeService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['CAE'];

    app.post('/api/v1/cae/altaCfc', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Create CFC',
        description: `Registers a contingency (paper) range. ${fieldsNote}Errors: CFC_TIPO_INVALIDO and CFC_RANGO_INVALIDO (400), CFC_SUPERPUESTO (409) when it overlaps another range of the same type and serie (expired ones included). Answers 201 with the range and its id (idCfc). Role: emisor.`,
        body: s.altaCfcBody, response: { 201: s.cfcView, ...withConflict },
      },
    }, async (req, reply) => reply.status(201).send(await cae.altaCfc(requireActor(req), req.body)));

    app.post('/api/v1/cae/editarCfc', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Edit CFC',
        description: `Changes a contingency range by \`idCfc\`; only the fields sent change. ${fieldsNote}Once numbers of the range were transcribed, tipoCFC and serie cannot change and the bounds must keep every used number (409 CFC_NUMEROS_UTILIZADOS). Another company's range answers 404 CFC_NO_ENCONTRADO. Role: emisor.`,
        body: s.editarCfcBody, response: { 200: s.cfcView, ...withConflict },
      },
    }, async (req) => cae.editarCfc(requireActor(req), req.body));

    app.get('/api/v1/cae/numeroDisponibleContingencia', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Number available in contingency',
        description: 'Whether `numero` of `tipoCFC` and `serie` lies inside a registered contingency range of `idEmpresa` that has not expired (today, Uruguay) and was not transcribed yet. ' +
          'Answer (not shown in the spec): `{ disponible, motivo?, rango? }`; motivo when not available: fuera_de_rango, vencido or utilizado; rango is the range holding the number. A non-contingency tipoCFC answers 400 CFC_TIPO_INVALIDO.',
        querystring: s.disponibleQuery, response: { 200: s.disponibleResult, ...errorResponses },
      },
    }, async (req) => cae.numeroDisponibleContingencia(requireActor(req), req.query));

    app.get('/api/v1/cae/cfc/todos', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'List CFC',
        description: 'Not in the spec: the contingency ranges of `idEmpresa` (optionally one tipoCFC / serie) with how many numbers were transcribed, paged.',
        querystring: s.cfcListQuery, response: { 200: s.cfcPage, ...errorResponses },
      },
    }, async (req) => {
      const { start, length, ...f } = req.query;
      const { data, total } = await cae.listCfc(requireActor(req), f, { start, length });
      return paged(data, total, { start, length });
    });
  };
}
