import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { uyToday } from '../../lib/dates.js';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { pagedResponse } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import { issueCfeBody } from '../issued-cfe/issued-cfe.schemas.js';
import type { CfeMailService } from './cfe-documents.mail.js';
import * as s from './cfe-documents.schemas.js';
import type { CfeDocumentsService } from './cfe-documents.service.js';
import { PREVIEW_TTL_MINUTES } from './cfe-documents.service.js';

const LAYOUT = 'Layout (DGI rules, BRIEF 4): issuer block with logo (branch logo, else company logo; PNG/JPEG) upper left; RUC, CFE type, serie-número and Contado/Crédito box upper right; receiver box (`RUC COMPRADOR`, `RUC VENDEDOR` on e-Boletas, `CONSUMO FINAL` on e-Tickets without receiver); lines; per-rate net and IVA totals (no IVA mention for IVA-mínimo/Monotributo issuers); QR bottom left (A4 28 mm, ticket 26 mm, within the 22-30 mm DGI range) with "Código de seguridad" (first 6 characters of the signature DigestValue), CAE number, range and expiry; legends ("Puede verificar comprobante en …": the company\'s urlVerificacion on e-Tickets, else www.dgi.gub.uy; "Res. N/año" when the company has numeroResolucion/fechaResolucion); adenda. Spanish labels; amounts in the CFE\'s currency with Uruguayan separators (1.234,56).';

const pdfResponse = { ...errorResponses };

export function cfeDocumentsRoutes(service: CfeDocumentsService, mail: CfeMailService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/cfeemitido/representacionImpresa', {
      config: { minRole: 'lectura' },
      schema: {
        tags: ['CFE emitido'], summary: 'Printed representation (PDF)', querystring: s.printedQuery, response: pdfResponse,
        description: `The printed representation of issued CFE \`idCfe\` as \`application/pdf\` (inline), drawn from the signed XML as stored. \`formato\`: \`A4\` (default) or \`ticket80\`. ${LAYOUT}\n\nErrors: 404 CFE_NO_ENCONTRADO (missing, or of a company the caller cannot see); 400 VALIDACION (bad idCfe/formato). Role: any role on the CFE's company.`,
      },
    }, async (req, reply) => {
      const { pdf, fileName } = await service.printed(requireActor(req), req.query.idCfe, req.query.formato);
      return reply.type('application/pdf').header('content-disposition', `inline; filename="${fileName}"`).send(pdf as never);
    });

    app.post('/api/v1/comprobante/previsualizar', {
      config: { minRole: 'emisor' },
      schema: {
        tags: ['Comprobante'], summary: 'Preview a receipt (PDF by token)', body: issueCfeBody, querystring: s.previewQuery,
        response: { 200: s.previewResponse, ...errorResponses, 422: errorBody },
        description: `Takes exactly the emitir body (spec 2.1) and prepares the would-be CFE like emitir does (validation, issuer and receiver resolution, currency, totals) but does NOT reserve a number, sign or store a CFE. The PDF carries "VISTA PREVIA - SIN VALIDEZ FISCAL" across every page, serie and number "(sin asignar)", CAE "a asignar al emitir", no QR and security code "------". Query \`formato\`: \`A4\` (default) or \`ticket80\`.\n\nResponse 200: \`token\`, \`url\` (GET it with the same kind of bearer token), \`formato\`, \`expiraEn\` (tokens live ${PREVIEW_TTL_MINUTES} minutes; the PDF is stored in the database so any API process serves it; expired ones are purged by a cron job), \`bytes\`.\n\nErrors: emitir's own 422 codes (TIPO_CFE_INVALIDO, REFERENCIA_REQUERIDA, CLIENTE_RECEPTOR_NO_ENCONTRADO, MONEDA_NO_EXISTE, TOTALES_INVALIDOS, …), 404 EMPRESA_NO_ENCONTRADA, 403 SIN_PERMISO (role lectura: previewing needs emisor).`,
      },
    }, async (req) => service.createPreview(requireActor(req), req.body, req.query.formato));

    app.get('/api/v1/comprobante/previsualizar/:token', {
      config: { minRole: 'lectura' },
      schema: {
        tags: ['Comprobante'], summary: 'Preview PDF by token', params: s.previewTokenParams, response: { ...pdfResponse, 410: errorBody },
        description: 'The preview PDF (`application/pdf`, inline). Not a capability URL: it needs a bearer token of a user with any role on the company the preview was made for; for everyone else it does not exist (404 PREVISUALIZACION_NO_ENCONTRADA, also for unknown tokens). 410 PREVISUALIZACION_EXPIRADA after `expiraEn`.',
      },
    }, async (req, reply) => {
      const { pdf, fileName } = await service.previewPdf(requireActor(req), req.params.token);
      return reply.type('application/pdf').header('content-disposition', `inline; filename="${fileName}"`).header('cache-control', 'private, no-store').send(pdf as never);
    });

    app.post('/api/v1/cfeemitido/enviarPdfPorCorreo', {
      config: { minRole: 'emisor' },
      schema: {
        tags: ['CFE emitido'], summary: 'Send PDF (and signed XML) by e-mail', body: s.sendEmailBody,
        response: { 202: s.emailSend, ...errorResponses, 422: errorBody },
        description: 'Queues an e-mail of issued CFE `idCfe` with its printed representation (`formato`, default A4) and its signed XML attached, to `destinatarios` or, when omitted, to the e-mail of the receiver\'s customer record. Answers 202 with the send record (`estado` `pendiente`); a worker job sends it through the service\'s transport (SMTP_URL; without it the message is written to DATA_DIR/outbox). Per-company SMTP settings do not exist yet: when they do, they take precedence. Every attempt is recorded (GET emailenvios): SMTP 4xx replies and connection failures are retried with exponential backoff (8 attempts, about 30 minutes), 5xx replies end as `fallido`.\n\nErrors: 422 SIN_DESTINATARIO (no destinatarios and no customer e-mail), 404 CFE_NO_ENCONTRADO, 403 SIN_PERMISO (role lectura), 400 VALIDACION (bad address).',
      },
    }, async (req, reply) => reply.status(202).send(await mail.request(requireActor(req), req.body)));

    app.get('/api/v1/cfeemitido/emailenvios', {
      config: { minRole: 'lectura' },
      schema: {
        tags: ['CFE emitido'], summary: 'E-mail send history of an issued CFE', querystring: s.historyQuery,
        response: { 200: pagedResponse(s.emailSend), ...errorResponses },
        description: 'Every e-mail requested for issued CFE `idCfe`, newest first, with its state (`pendiente`, `reintentando`, `enviado`, `fallido`), attempts, last error and SMTP code, message id and transport. Paging: `start`, `length`. 404 CFE_NO_ENCONTRADO. Role: any role on the CFE\'s company.',
      },
    }, async (req) => mail.history(requireActor(req), req.query.idCfe, { start: req.query.start, length: req.query.length }));

    app.post('/api/v1/cfeemitido/descargarPdfsFiltrados', {
      config: { minRole: 'lectura' },
      schema: {
        tags: ['CFE emitido'], summary: 'Download the PDFs (and signed XMLs) of a filtered set as ZIP', body: s.zipBody, response: { ...errorResponses },
        description: 'A ZIP (`application/zip`, attachment) with `pdf/<Tipo>_<serie>-<número>.pdf` for every issued CFE of `idEmpresa` matching the search filters (the same fields as GET /api/v1/cfeemitido/buscar: `tipoFiltro`, `fechaFirmaDesde`, `fechaFirmaHasta`, `tipoCfe`, `serie`, `numeroDesde/Hasta`, `receptorDocumento`, `receptorNombre`, `estado`, `estadoReceptor`, `idSucursal`, `idPuntoEmision`, `montoDesde/Hasta`, `moneda`; `orden`, `direccion`) plus `xml/<…>.xml` (the signed XML as stored) unless `incluirXml` is false. `formato`: `A4` (default) or `ticket80`. Streamed while it is built: rows are read in keyset-paged chunks and PDFs rendered one ahead, so memory stays flat whatever the size; an empty selection gives an empty ZIP. A failure after the first byte cuts the download (the archive is then incomplete and unreadable). Errors before streaming: 400 VALIDACION / FILTROS_INVALIDOS, 404 EMPRESA_NO_ENCONTRADA. Role: any role on the company.',
      },
    }, async (req, reply) => {
      const { idEmpresa, formato, incluirXml, orden, direccion, ...filters } = req.body;
      service.checkZipRequest(filters);
      const out = new PassThrough();
      const day = uyToday();
      reply.type('application/zip').header('content-disposition', `attachment; filename="cfe-emitidos-${idEmpresa}-${day}.zip"`);
      service.zip(idEmpresa, { filters, sort: { orden, direccion }, formato, incluirXml }, out).catch((err) => {
        req.log.error({ err }, 'ZIP of issued CFEs failed while streaming');
        out.destroy(err as Error);
      });
      return reply.send(out as never);
    });
  };
}
