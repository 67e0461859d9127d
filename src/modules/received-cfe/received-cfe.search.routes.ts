/** Received CFEs, part 2 (issue 31 points 1, 2, 4): search, printed representation, stock flag. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { paged, pagedResponse } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './received-cfe.schemas.js';
import { SORT_KEYS, TIPOS_FILTRO } from './received-cfe.search.js';
import type { ReceivedCfeService } from './received-cfe.service.js';

const tags = ['CFE recibido'];

const SEARCH = `Received CFEs of \`idEmpresa\` (required; role lectura or above) with the shared paging (\`start\`, \`length\` ≤ 500) and the exact \`total\` (count(*) over the same filters; the filters are served by indexes leading with company_id). Rows are summaries (no XML, no checks; GET /api/v1/cferecibido/{id} has them).

**Filters** (all optional, combined with AND): \`tipoFiltro\` chooses the date the range applies to: ${TIPOS_FILTRO.map((t) => `\`${t}\``).join(', ')} (default \`fechaComprobante\` = the CFE's FchEmis; \`fechaRecepcion\` = when it reached us, Uruguay day UTC−3; \`fechaDecision\` = when the company accepted or rejected it, Uruguay day, undecided CFEs never match); \`fechaComprobanteDesde\`/\`fechaComprobanteHasta\` (YYYY-MM-DD, both inclusive); \`estado\` (list: pendiente, aceptado, rechazado, rechazado_formato, duplicado, anulado_emisor); \`rutEmisor\` (exact); \`razonSocialEmisor\` (contains, case-insensitive); \`tipoCfe\` (codes, repeated or comma-separated); \`serie\`; \`numero\` (exact); \`montoDesde\`/\`montoHasta\` (MntTotal in the CFE's currency, decimal strings); \`moneda\`; \`vencimientoRespuestaHasta\` (response due on or before the day); \`desdeSecuencia\` (secuencia greater than N); \`importadoStock\` (\`true\` | \`false\`). **Sort**: \`orden\` = ${SORT_KEYS.join(' | ')} (numero = tipoCfe, serie, numero; default fechaComprobante), \`direccion\` = asc | desc (default), ties broken by id. Inconsistent ranges (desde > hasta) answer 400 VALIDACION.`;

const PRINTED = `The printed representation of received CFE \`idCfe\` as \`application/pdf\` (inline), drawn from the signed XML as received with the same renderer as issued CFEs: the issuer's data, receiver, lines, totals, CAE, QR (BRIEF 4: the issuer's RUC, type, serie, number, total, date and the issuer's signature hash) and security code (first 6 characters of the issuer's DigestValue), as the issuer's own printed copy would show them. No logo (we do not have the issuer's). \`formato\`: \`A4\` (default) or \`ticket80\`.

Errors: 404 CFE_RECIBIDO_NO_ENCONTRADO (missing, or another company's); 422 CFE_RECIBIDO_NO_IMPRIMIBLE (stored as rechazado_formato: not a readable CFE; its XML is downloadable); 400 VALIDACION. Role lectura or above.`;

const STOCK = `Records that the purchase was taken into stock by the company's stock system, under \`referencia\` (its document reference), optionally with per-line quantities (\`lineas\`: \`nroLinea\` = the CFE's NroLinDet, \`cantidad\` decimal string). Once recorded it shows as \`importadoStock\` on GET /api/v1/cferecibido/{id} and is the search filter \`importadoStock\`.

Repeating the call with the same \`referencia\` is a no-op: 200 with what was recorded and \`repetido: true\`. Another \`referencia\` is 409 CFE_RECIBIDO_YA_IMPORTADO_STOCK. A CFE that is \`duplicado\`, \`rechazado_formato\` or \`anulado_emisor\` is 409 CFE_RECIBIDO_NO_IMPORTABLE_STOCK; a line the CFE does not have, or repeated, 422 STOCK_LINEA_INVALIDA; another company's CFE (or \`idEmpresa\` not its company) 404 CFE_RECIBIDO_NO_ENCONTRADO. Role emisor.`;

export function receivedCfeSearchRoutes(service: ReceivedCfeService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/cferecibido/buscar', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Search received CFE', description: SEARCH, querystring: s.searchQuery, response: { 200: pagedResponse(s.searchRow), ...errorResponses } },
    }, async (req) => {
      const { start, length, ...q } = req.query;
      const { data, total } = await service.search(requireActor(req), q, { start, length });
      return paged(data, total, { start, length });
    });

    app.get('/api/v1/cferecibido/representacionImpresa', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Received CFE PDF', description: PRINTED, querystring: s.printedQuery, response: { ...errorResponses, 422: errorBody } },
    }, async (req, reply) => {
      const { pdf, fileName } = await service.printed(requireActor(req), req.query.idCfe, req.query.formato);
      return reply.type('application/pdf').header('content-disposition', `inline; filename="${fileName}"`).send(pdf as never);
    });

    app.post('/api/v1/cferecibido/marcarComoImportadoStock/:id', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Mark imported into stock', description: STOCK, params: s.idParams, body: s.stockBody, response: { 200: s.stockResult, ...errorResponses, 409: errorBody, 422: errorBody } },
    }, async (req) => service.markStock(requireActor(req), req.params.id, req.body));
  };
}
