/** Received CFEs, part 2 (issue 31 points 5, 6): DGI's QR check and the reconciliation with DGI. */
import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { fileResponse } from '../../platform/http/file-response.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './received-cfe.dgi-checks.schemas.js';
import type { ReceivedQr } from './received-cfe.qr.js';
import { MAX_RECONCILE_DAYS, type ReceivedReconcile } from './received-cfe.reconcile.js';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const tags = ['CFE recibido'];

const QR = `Asks DGI's public QR verification (BRIEF 4) about received CFE \`ids\` of \`idEmpresa\`, in the background: each is marked \`pendiente\` and checked by a job. The QR parameters are rebuilt from the signed XML as received (issuer RUC, type, serie, number, amount by type, signing date dd/mm/yyyy, the issuer's DigestValue), exactly what the issuer's printed QR carries, and sent to DGI's consultaQR page (DGI_QR_URL; the local simulated DGI in simulator mode); what the page shows is compared with them. The result is on GET /api/v1/cferecibido/{id} as \`consultaQr\`: \`resultado\` = \`pendiente\`, \`coincide\`, \`difiere\` (\`diferencias\`: [{campo: monto | fecha | hash, cfe, dgi}]), \`no_encontrado\` (DGI does not have it), \`error_consulta\` (DGI could not be asked after 5 attempts, or its page could not be read: \`detalle\`); \`dgi\` holds the fields DGI's page showed (with its \`estado\`). Asking again replaces the previous result.

Answer 202-like 200: \`solicitados\`, \`noConsultables\` (stored as rechazado_formato: no readable CFE), \`noEncontrados\` (missing or another company's), each in the order of the request. 404 CONSULTA_QR_SIN_CFE when none is the company's. Role lectura or above.`;

const RECONCILE = `Reconciles the received CFE of \`idEmpresa\` whose date (FchEmis) is in \`desde\`..\`hasta\` (at most ${MAX_RECONCILE_DAYS} days) with what DGI says other issuers sent it for the company: DGI's EFACCONSULTARCFERECIBIDOS (BRIEF 7, ws_consultas with WS-Security, signed with the company's certificate), one call per window of at most 31 days. Synchronous: the answer is the stored result. Optional \`rutEmisor\`: one issuer only.

Categories (\`items[].categoria\`, counted in \`conteos\`): \`faltante_en_buzon\` (DGI has it, accepted, and it never reached the mailbox: ask the issuer to resend; one DGI rejected is not listed), \`no_registrado_en_dgi\` (held here, DGI does not have it), \`diferencia_estado\` (DGI rejected it, BE, and it is held here as valid; or held as anulado_emisor while DGI has it accepted), \`diferencia_monto\` (currency, MontoTotal, TotalIVA or TotalRetenido differ: \`diferencias\`). Duplicates and format-rejected documents are left out. Read again with GET /api/v1/cferecibido/conciliacion/{id}; export with POST exportarConciliacion.

Errors: 400 PERIODO_CONCILIACION_INVALIDO / VALIDACION; 503 CONCILIACION_DGI_NO_DISPONIBLE (DGI did not answer; nothing stored); 502 CONCILIACION_DGI_RECHAZADA (DGI answered a fault); the company without a usable certificate answers the certificates module's error. Role emisor.`;

export function receivedCfeDgiChecksRoutes(qr: ReceivedQr, reconcile: ReceivedReconcile): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/v1/cferecibido/consultarQr', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Query the QR of received CFE at DGI', description: QR, body: s.consultarQrBody, response: { 200: s.consultarQrResult, ...errorResponses } },
    }, async (req) => qr.request(requireActor(req), req.body));

    app.post('/api/v1/cferecibido/conciliar', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Reconcile received CFE with DGI', description: RECONCILE, body: s.conciliarBody, response: { 200: s.reconciliation, ...errorResponses, 502: errorBody, 503: errorBody } },
    }, async (req) => reconcile.reconcile(requireActor(req), req.body));

    app.get('/api/v1/cferecibido/conciliacion/:id', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'A stored reconciliation', description: 'The reconciliation POST conciliar stored, with its items. 404 CONCILIACION_NO_ENCONTRADA (missing or another company\'s). Role lectura or above.', params: s.reconciliationParams, response: { 200: s.reconciliation, ...errorResponses } },
    }, async (req) => reconcile.get(requireActor(req), req.params.id));

    app.post('/api/v1/cferecibido/exportarConciliacion', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Export a reconciliation to a spreadsheet', body: s.exportarConciliacionBody,
        description: 'The items of reconciliation `idConciliacion` as .xlsx (one row per item: Categoría, RUT emisor, Tipo CFE, Serie, Número, Fecha comprobante, Estado aquí, Estado DGI, Moneda, Total aquí, Total DGI, Diferencias, Id CFE recibido), streamed. Header `x-total-count` = rows. 404 CONCILIACION_NO_ENCONTRADA (missing, another company\'s, or not of idEmpresa when given). Role lectura or above.',
        response: { 200: fileResponse('The reconciliation as a spreadsheet (.xlsx)', XLSX_TYPE), ...errorResponses },
      },
    }, async (req, reply) => {
      const prep = await reconcile.prepareExport(requireActor(req), req.body);
      const out = new PassThrough();
      prep.write(out).catch((err) => req.log.error({ err }, 'reconciliation xlsx export failed'));
      return reply.type(XLSX_TYPE).header('content-disposition', `attachment; filename="${prep.fileName}"`).header('x-total-count', String(prep.rows)).send(out);
    });
  };
}
