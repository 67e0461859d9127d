/** Received CFEs, part 2 (issue 31 point 3): exportarExcel, export configuration, descargarPdfsFiltrados. */
import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { fileResponse } from '../../platform/http/file-response.js';
import { requireActor } from '../../platform/http/tenancy.js';
import { DEFAULT_RECEIVED_EXPORT_COLUMNS, RECEIVED_EXPORT_COLUMN_KEYS, RECEIVED_EXPORT_COLUMNS } from './received-cfe.export-columns.js';
import { RECEIVED_XLSX_MAX_ROWS, RECEIVED_ZIP_MAX_CFE, type ReceivedExports } from './received-cfe.exports.js';
import * as s from './received-cfe.exports.schemas.js';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const tags = ['CFE recibido'];

const FILTERS = 'Filters and sort: the same fields as GET /api/v1/cferecibido/buscar (`tipoFiltro`, `fechaComprobanteDesde`, `fechaComprobanteHasta`, `estado`, `rutEmisor`, `razonSocialEmisor`, `tipoCfe`, `serie`, `numero`, `montoDesde`, `montoHasta`, `moneda`, `vencimientoRespuestaHasta`, `desdeSecuencia`, `importadoStock` (a boolean in the body); `orden`, `direccion`), in the JSON body with `idEmpresa`. Lists (`estado`, `tipoCfe`) are JSON arrays (comma-separated text is for query strings only: a body takes exactly the types of its schema). Inconsistent ranges: 400 VALIDACION.';
const COLUMNS = `Column catalogue (key: header): ${RECEIVED_EXPORT_COLUMN_KEYS.map((k) => `\`${k}\`: ${RECEIVED_EXPORT_COLUMNS[k].header}`).join('; ')}. Default set: ${DEFAULT_RECEIVED_EXPORT_COLUMNS.join(', ')}.`;

export function receivedCfeExportsRoutes(exports: ReceivedExports): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/v1/cferecibido/exportarExcel', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Export received CFE to a spreadsheet', body: s.excelBody,
        description: `The received CFEs matching the filters as a real .xlsx (one sheet "CFE recibidos", bold frozen header, one row per CFE, money as numbers with 2 decimals), streamed in constant memory (rows read in keyset-paged chunks). Optional \`columnas\`; without it, the caller's saved configuration for idEmpresa (getConfiguracionExportacionCfe), else the default set. Header \`x-total-count\` = rows. At most ${RECEIVED_XLSX_MAX_ROWS} rows (422 EXPORTACION_DEMASIADO_GRANDE, checked before streaming). Role lectura or above on idEmpresa.\n\n${COLUMNS}\n\n${FILTERS}`,
        response: { 200: fileResponse('The received CFE as a spreadsheet (.xlsx)', XLSX_TYPE), ...errorResponses, 422: errorBody },
      },
    }, async (req, reply) => {
      const prep = await exports.prepareExcel(requireActor(req), req.body);
      const out = new PassThrough();
      prep.write(out).catch((err) => req.log.error({ err }, 'received CFE xlsx export failed'));
      return reply.type(XLSX_TYPE).header('content-disposition', `attachment; filename="${prep.fileName}"`).header('x-total-count', String(prep.rows)).send(out);
    });

    app.get('/api/v1/cferecibido/getConfiguracionExportacionCfe', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Received CFE export configuration of a user', querystring: s.exportConfigQuery,
        description: `The spreadsheet columns (keys, in order) a user chose for POST /api/v1/cferecibido/exportarExcel, with the catalogue. Separate from the issued CFEs' configuration (other columns). \`userId\` defaults to the caller; \`idEmpresa\` (optional) asks for the company-specific configuration, falling back to the user's general one, then the defaults (\`predeterminada: true\`). A user reads only their own; another user's needs operator, or administrador of a company both share (of idEmpresa when given); otherwise 404 CONFIGURACION_NO_VISIBLE. Save with POST /api/v1/cferecibido/configuracionExportacionCfe. ${COLUMNS}`,
        response: { 200: s.exportConfigResponse, ...errorResponses },
      },
    }, async (req) => exports.getExportConfig(requireActor(req), req.query.userId, req.query.idEmpresa));

    app.post('/api/v1/cferecibido/configuracionExportacionCfe', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Save a received CFE export configuration', body: s.exportConfigBody,
        description: 'Saves (replaces) the columns of POST /api/v1/cferecibido/exportarExcel for `userId` (default the caller), for `idEmpresa` or, without it, for every company of the user. `columnas`: keys of the catalogue (see getConfiguracionExportacionCfe), in order, no repeats (400 VALIDACION). Same access rule as getConfiguracionExportacionCfe. Answers the saved configuration.',
        response: { 200: s.exportConfigResponse, ...errorResponses },
      },
    }, async (req) => exports.saveExportConfig(requireActor(req), req.body));

    app.post('/api/v1/cferecibido/descargarPdfsFiltrados', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Download the PDFs (and XMLs) of filtered received CFE as ZIP', body: s.zipBody,
        description: `A ZIP (\`application/zip\`, attachment) with \`pdf/CFE_<rutEmisor>_<tipo>_<serie><número>.pdf\` (the printed representation, as GET representacionImpresa draws it) for every received CFE of \`idEmpresa\` matching the filters, plus \`xml/<…>.xml\` (the signed XML as received) unless \`incluirXml\` is false. A CFE stored as rechazado_formato (not readable) has its XML only; duplicado and rechazado_formato names end in \`_id<id>\` (they share an identity with another). \`formato\`: \`A4\` (default) or \`ticket80\`. Streamed while it is built (rows in keyset-paged chunks, one PDF rendered ahead): memory stays flat. Header \`x-total-count\` = CFE in the archive. At most ${RECEIVED_ZIP_MAX_CFE} CFE per ZIP: more is 422 EXPORTACION_DEMASIADO_GRANDE, checked before the first byte (narrow the dates). An empty selection gives an empty ZIP. A failure after the first byte cuts the download. Role lectura or above on idEmpresa.\n\n${FILTERS}`,
        response: { 200: fileResponse('A ZIP of the PDFs (and XMLs)', 'application/zip'), ...errorResponses, 422: errorBody },
      },
    }, async (req, reply) => {
      const prep = await exports.prepareZip(requireActor(req), req.body);
      const out = new PassThrough();
      prep.write(out).catch((err) => {
        req.log.error({ err }, 'ZIP of received CFEs failed while streaming');
        out.destroy(err as Error);
      });
      return reply.type('application/zip').header('content-disposition', `attachment; filename="${prep.fileName}"`).header('x-total-count', String(prep.rows)).send(out as never);
    });
  };
}
