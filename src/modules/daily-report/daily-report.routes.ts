import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { paged } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './daily-report.schemas.js';
import type { DailyReportService } from './daily-report.service.js';

const tags = ['Reporte diario'];
const ABOUT = `Daily report (Reporte Diario, BRIEF 9): one per company and day, keyed by FechaResumen = the date of the CFEs' TmstFirma. Built from the stored CFEs: per type block (ReporteDiarioCFE.xsd order) CantDocsUtil / CantDocsAnulados / CantDocsEmi with RngDocsUtil / RngDocsAnulados (DGI-rejected CFEs except E02/E09, and numbers voided in the CAE module, count as annulled); contingency CFC (2xx) blocks count the emitted, non-observed CFCs (CantCFCEmi, no ranges); amounts in UYU (foreign currency at the fiscal rate: BCU interbank buyer quote of the day before FchEmis; the CFE's own TpoCambio for NC/ND, e-Resguardos, UI/UR, or when no quote exists). Signed with the company certificate (XMLDSig, same profile as the CFE), validated against ReporteDiarioCFE.xsd, sent with EFACRECEPCIONREPORTE (WS-Security); DGI's ACKRepDiario is stored. A scheduled task sends yesterday's report every day from DAILY_REPORT_HOUR (Uruguay time, default 01:00), also when nothing was issued (CantComprobantes 0).

**estado**: \`pendiente\` (waiting to be sent; retried automatically on transport failures), \`enviando\` (a process is sending it; should that process stop, another sends it within about 30 s), \`aceptado\` (AR), \`rechazado\` (BR/BA, see \`motivos\` R01-R06), \`error\` (DGI fault that retrying cannot fix; see \`ultimoError\`), \`reemplazado\` (superseded by a regeneration before being sent).`;

export function dailyReportRoutes(service: DailyReportService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/reportediario', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'List daily reports', querystring: s.listQuery, response: { 200: s.reportsPage, ...errorResponses },
        description: `${ABOUT}\n\nLists the reports of \`idEmpresa\` (newest FechaResumen first), without the XML; filters \`fechaDesde\`, \`fechaHasta\`, \`estado\`; shared paging \`start\`/\`length\`. Role lectura.`,
      },
    }, async (req) => {
      const { start, length, ...filters } = req.query;
      const { data, total } = await service.list(requireActor(req), filters, { start, length });
      return paged(data, total, { start, length });
    });

    app.get('/api/v1/reportediario/:id', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Get a daily report', params: s.idParams, response: { 200: s.reportView, ...errorResponses },
        description: 'One report with its signed XML (`xml`) and DGI\'s ACK (`ackXml`). Another company\'s report answers 404 REPORTE_NO_ENCONTRADO.',
      },
    }, async (req) => service.get(requireActor(req), req.params.id));

    app.get('/api/v1/reportediario/:id/xml', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Download the signed daily report XML', params: s.idParams, response: errorResponses,
        description: 'The signed Reporte exactly as sent (application/xml, attachment Rep_<RUC>_<AAAAMMDD>_<SecEnvio>.xml). 404 REPORTE_NO_ENCONTRADO.',
      },
    }, async (req, reply) => {
      const { xml, fileName } = await service.xml(requireActor(req), req.params.id);
      return reply.type('application/xml; charset=utf-8').header('content-disposition', `attachment; filename="${fileName}"`).send(xml as never);
    });

    app.post('/api/v1/reportediario/regenerar', {
      config: { minRole: 'emisor' },
      schema: {
        tags, summary: 'Generate (or correct) the daily report of a day and send it', body: s.regenerateBody,
        response: { 200: s.reportView, ...errorResponses, 409: errorBody, 422: errorBody, 503: errorBody },
        description: `Generates the complete report of \`fecha\` again from the stored CFEs with the next SecEnvio (the last accepted one + 1; BRIEF 9: a correction resends the whole report) and sends it at once; the answer carries DGI's verdict (\`estado\`, \`estadoDgi\`, \`motivos\`). A still-unsent report of that day becomes \`reemplazado\`. If DGI cannot be reached the report stays \`pendiente\` and is retried automatically; if a worker is already sending it, the answer shows \`enviando\` (read it again for the verdict). Role emisor.\n\nErrors: 422 REPORTE_FECHA_INVALIDA (today or later: DGI answers R06), 422 REPORTE_SIN_CERTIFICADO, 422 REPORTE_INVALIDO (does not meet the XSD; \`errores\`), 404 EMPRESA_NO_ENCONTRADA, 403 SIN_PERMISO.`,
      },
    }, async (req) => service.regenerate(requireActor(req), req.body.idEmpresa, req.body.fecha));

    app.post('/api/v1/reportediario/:id/reenviar', {
      config: { minRole: 'emisor' },
      schema: {
        tags, summary: 'Resend a daily report that has no DGI answer', params: s.idParams,
        response: { 200: s.reportView, ...errorResponses, 409: errorBody },
        description: 'Sends the same signed XML again when no ACK was stored (`pendiente` or `error`). A report DGI answered is corrected with regenerar instead: 409 REPORTE_NO_REENVIABLE. 404 REPORTE_NO_ENCONTRADO. Role emisor.',
      },
    }, async (req) => service.resend(requireActor(req), req.params.id));
  };
}
