import { PassThrough, Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { fileResponse } from '../../platform/http/file-response.js';
import { paged, pagedResponse } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import { ACCOUNT_CATALOGUE, ACCOUNT_KEYS, CSV_HEADER } from './issued-cfe.accounting.js';
import { DEFAULT_EXPORT_COLUMNS, EXPORT_COLUMNS, EXPORT_COLUMN_KEYS } from './issued-cfe.export-columns.js';
import * as s from './issued-cfe.reports.schemas.js';
import { XLSX_MAX_ROWS, type IssuedCfeReports } from './issued-cfe.reports.service.js';
import { TIPOS_FILTRO } from './issued-cfe.search.js';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const tags = ['CFE emitido'];

const FILTERS_DOC = `**Filters** (all optional, combined with AND; shared by buscar, exportarExcel, ExportacionContable/exportarExt and descargarPdfsFiltrados): \`tipoFiltro\` chooses the date the range applies to: ${TIPOS_FILTRO.map((t) => `\`${t}\``).join(', ')} (default \`fechaFirma\` = signing instant by Uruguay day, UTC−3; \`fechaEmision\` = the receipt's FchEmis; \`fechaEstado\` = last state change, the signing instant while unchanged); \`fechaFirmaDesde\`/\`fechaFirmaHasta\` (YYYY-MM-DD, both inclusive); \`tipoCfe\` (codes; in a query string repeated or comma-separated, in a JSON body an array); \`serie\`; \`numeroDesde\`/\`numeroHasta\`; \`receptorDocumento\` (exact); \`receptorNombre\` (contains, case-insensitive); \`estado\` and \`estadoReceptor\` (lists of the CFE state names, given the same way as \`tipoCfe\`); \`idSucursal\`; \`idPuntoEmision\`; \`montoDesde\`/\`montoHasta\` (MntTotal in the receipt's currency, decimal strings); \`moneda\`. **Sort**: \`orden\` = fechaFirma (default) | fechaEmision | numero (tipoCfe, serie, numero) | mntTotal | receptorNombre, \`direccion\` = asc | desc (default), ties broken by id. Inconsistent ranges (desde > hasta) answer 400 VALIDACION.`;

const COLUMNS_DOC = `Column catalogue (key: header): ${EXPORT_COLUMN_KEYS.map((k) => `\`${k}\`: ${EXPORT_COLUMNS[k].header}`).join('; ')}. Default set: ${DEFAULT_EXPORT_COLUMNS.join(', ')}.`;

const ACCOUNTING_DOC = `Accounting journal of the filtered receipts as CSV (UTF-8 with BOM for Excel, separator \`;\`, decimal point \`.\`, CRLF, fields with \`;\` or quotes double-quoted), streamed. Columns: ${CSV_HEADER.join(';')}. One entry per receipt (\`idCfe\` identifies it), one line per account movement: debit \`deudoresPorVentas\` with the sum of the credits; credit each non-zero DGI total: net per VAT rate (ventasTasaBasica, ventasTasaMinima, ventasOtraTasa), ventasNoGravadas, ventasExportacion, VAT payable per rate (ivaVentasTasaBasica, ivaVentasTasaMinima, ivaVentasOtraTasa), ivaEnSuspenso, impuestoPercibido. Credit notes: the same entry reversed. Remitos, resguardos and e-Boletas de entrada produce no lines. \`debe\`/\`haber\` are in the receipt's currency; \`debeMN\`/\`haberMN\` in UYU with the receipt's tipoCambio (rounding goes to the receivable line, so both balance). Receipts rejected by DGI (estado rechazado, voided) are left out unless \`estado\` is given. Account codes: GET/PUT /api/v1/ExportacionContable/cuentas (defaults: ${ACCOUNT_KEYS.map((k) => `${k}=${ACCOUNT_CATALOGUE[k].codigo}`).join(', ')}). Role lectura or above on idEmpresa.`;

const CHART_DOC = (unit: string, def: string) => `Chart-ready series of the company's issued CFEs per ${unit} (Uruguay time, UTC−3, by signing instant), computed by one SQL GROUP BY GROUPING SETS over the (company_id, firmado_en) index. \`etiquetas\` is the zero-filled axis; every array below is aligned with it: \`cantidad\` (all CFEs), \`montoUYU\` (amount converted with each receipt's tipoCambio), \`porMoneda[]\` {moneda, cantidad[], monto[] in that currency}, \`porTipo[]\` {tipoCfe, nombreTipoCfe, cantidad[], montoUYU[]}. Amount = MntTotal as decimal strings; credit notes subtract; remitos, resguardos and e-Boletas count with amount 0; CFEs rejected by DGI are left out. Range: ${def}. Role lectura or above. 400 RANGO_FECHAS_INVALIDO.`;

export function issuedCfeReportsRoutes(reports: IssuedCfeReports): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/cfeemitido/buscar', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Search issued CFEs', querystring: s.buscarQuery,
        description: `Issued CFEs of \`idEmpresa\` (required; role lectura or above), newest first, with the shared paging (\`start\`, \`length\` ≤ 500) and the exact \`total\` (count(*) over the same filters; every filter is served by an index leading with company_id, see bench/search.ts). Rows are summaries (no XML): id, idEmpresa, idSucursal, idPuntoEmision, tipoCfe, nombreTipoCfe, serie, numero, fechaEmision, fechaFirma, estado, estadoReceptor, receptor {tipoDocumento, documento, nombre}, moneda, tipoCambio, totales {mntNoGrv, mntNetoIvaTasaMin, mntNetoIvaTasaBasica, mntIvaTasaMin, mntIvaTasaBasica, mntTotal, mntPagar} (decimal strings), codigoSeguridad.\n\n${FILTERS_DOC}`,
        response: { 200: pagedResponse(s.searchRow), ...errorResponses },
      },
    }, async (req) => {
      const { start, length, ...q } = req.query;
      const { data, total } = await reports.search(q, { start, length });
      return paged(data, total, { start, length });
    });

    app.post('/api/v1/cfeemitido/exportarExcel', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Export issued CFEs to a spreadsheet', body: s.exportExcelBody,
        description: `The issued CFEs matching the filters as a real .xlsx (one sheet "CFE emitidos", bold frozen header, one row per receipt, money as numbers with 2 decimals), streamed in constant memory. Body: \`idEmpresa\` + the search filters and sort below + optional \`columnas\`; without it, the caller's saved export configuration for idEmpresa (getConfiguracionExportacionCfe), else the default set. Header \`x-total-count\` = rows. At most ${XLSX_MAX_ROWS} rows (422 EXPORTACION_DEMASIADO_GRANDE, checked before streaming). Role lectura or above.\n\n${COLUMNS_DOC}\n\n${FILTERS_DOC}`,
        response: { 200: fileResponse('The issued CFE as a spreadsheet (.xlsx)', XLSX_TYPE), ...errorResponses, 422: errorBody },
      },
    }, async (req, reply) => {
      const prep = await reports.prepareExcel(requireActor(req), req.body);
      const out = new PassThrough();
      prep.write(out).catch((err) => req.log.error({ err }, 'issued CFE xlsx export failed'));
      return reply.type(XLSX_TYPE).header('content-disposition', `attachment; filename="${prep.fileName}"`).header('x-total-count', String(prep.rows)).send(out);
    });

    app.get('/api/v1/cfeemitido/getConfiguracionExportacionCfe', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Export configuration of a user', querystring: s.exportConfigQuery,
        description: `The spreadsheet columns (keys, in order) a user chose for exportarExcel, with the catalogue. \`userId\` defaults to the caller; \`idEmpresa\` (optional) asks for the company-specific configuration, falling back to the user's general one, then the defaults (\`predeterminada: true\`). A user reads only their own; another user's needs operator, or administrador of a company both share (of idEmpresa when given); otherwise 404 CONFIGURACION_NO_VISIBLE. ${COLUMNS_DOC}`,
        response: { 200: s.exportConfigResponse, ...errorResponses },
      },
    }, async (req) => reports.getExportConfig(requireActor(req), req.query.userId, req.query.idEmpresa));

    app.post('/api/v1/cfeemitido/configuracionExportacionCfe', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Save an export configuration', body: s.exportConfigBody,
        description: 'Saves (replaces) the columns of exportarExcel for `userId` (default the caller), for `idEmpresa` or, without it, for every company of the user. `columnas`: keys of the catalogue (see getConfiguracionExportacionCfe), in order, no repeats (400 VALIDACION). Same access rule as getConfiguracionExportacionCfe. Answers the saved configuration.',
        response: { 200: s.exportConfigResponse, ...errorResponses },
      },
    }, async (req) => reports.saveExportConfig(requireActor(req), req.body));

    app.post('/api/v1/ExportacionContable/exportarExt', {
      config: { minRole: 'lectura' },
      schema: {
        tags: ['Exportación contable'], summary: 'Accounting export (journal CSV)', body: s.accountingBody,
        description: `${ACCOUNTING_DOC}\n\n${FILTERS_DOC}`,
        response: { 200: fileResponse('The journal as CSV (UTF-8)', 'text/csv'), ...errorResponses },
      },
    }, async (req, reply) => {
      const prep = await reports.prepareAccounting(req.body);
      return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${prep.fileName}"`).send(Readable.from(prep.lines()));
    });

    app.get('/api/v1/ExportacionContable/cuentas', {
      config: { minRole: 'lectura' },
      schema: {
        tags: ['Exportación contable'], summary: 'Account codes of the accounting export', querystring: s.accountsQuery,
        description: 'The account code used for each journal movement of exportarExt for idEmpresa (saved code or default), with its name and default. Role lectura or above.',
        response: { 200: s.accountsResponse, ...errorResponses },
      },
    }, async (req) => reports.getAccounts(req.query.idEmpresa));

    app.put('/api/v1/ExportacionContable/cuentas', {
      config: { minRole: 'administrador' },
      schema: {
        tags: ['Exportación contable'], summary: 'Save account codes', body: s.accountsBody,
        description: `Replaces the company's account codes: \`cuentas\` maps keys (${ACCOUNT_KEYS.join(', ')}) to codes (1-40 chars); keys left out use the default. Unknown keys: 400 VALIDACION. Role administrador (403 SIN_PERMISO otherwise).`,
        response: { 200: s.accountsResponse, ...errorResponses },
      },
    }, async (req) => reports.saveAccounts(req.body.idEmpresa, req.body.cuentas));

    app.get('/api/v1/cfeemitido/graficaDiaria', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Daily chart', querystring: s.dailyChartQuery,
        description: CHART_DOC('day', '`desde`/`hasta` (YYYY-MM-DD, inclusive), default the last 30 days ending today; at most 366 days'),
        response: { 200: s.chartResponse, ...errorResponses },
      },
    }, async (req) => reports.dailyChart(req.query.idEmpresa, req.query.desde, req.query.hasta));

    app.get('/api/v1/cfeemitido/graficaFacturacionMensual', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Monthly billing chart', querystring: s.monthlyChartQuery,
        description: CHART_DOC('month', '`desde`/`hasta` (YYYY-MM, inclusive), default the last 12 months ending with the current one; at most 120 months'),
        response: { 200: s.chartResponse, ...errorResponses },
      },
    }, async (req) => reports.monthlyChart(req.query.idEmpresa, req.query.desde, req.query.hasta));
  };
}
