import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { paged } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import { renderDeclarationPdf } from './tax-benefit.pdf.js';
import * as s from './tax-benefit.schemas.js';
import type { TaxBenefitService } from './tax-benefit.service.js';

const tags = ['beneficio fiscal'];
const base = '/api/v1/empresa/beneficio-fiscal';

const DECLARE = `Saves the company's sworn declaration for a fiscal year and regime (BRIEF 12). Decreto 206/019 needs \`fundamento\`: \`literal_e\` (the company's regimenTributario must be iva_minimo), \`ingresos_hasta_750000_ui\` (with \`ingresosAnioAnterior\` in pesos, converted at BCU's UI of 31/12 of the prior year) or \`inicio_actividad\` (start in the year or the one before). Decreto 324/011 needs \`inversiones\` dated from 12 months before to 4 months after the start as an electronic issuer (DGI's registry, else the company's fechaResolucion, else \`fechaInicioEmisor\`); SaaS counts since 17/10/2015 and up to USD 3,000 (8,000 with \`grandeContribuyente\`) without VAT; the year must be one of the exemption's fiscal years (5 from the start since 2016, 10 before). The answer carries the exemption computed (\`hechos.exoneracion\`).

A newer declaration for the same company, year and regime supersedes the current one, which stays listed as \`reemplazada\`.

Errors: 422 with the code of the first broken rule (BENEFICIO_206_FUERA_DE_VIGENCIA, BENEFICIO_206_NO_LITERAL_E, BENEFICIO_206_EJERCICIO_NO_CERRADO, BENEFICIO_206_INGRESOS_SUPERAN_TOPE, BENEFICIO_206_INICIO_FUERA_DE_PLAZO, BENEFICIO_324_INVERSION_FUERA_DE_PLAZO, BENEFICIO_324_SAAS_ANTES_DE_2015, BENEFICIO_324_SAAS_SUPERA_TOPE, BENEFICIO_324_FUERA_DE_PLAZO, BENEFICIO_FECHA_INICIO_DESCONOCIDA, BENEFICIO_FECHA_INICIO_DISTINTA, BENEFICIO_ANIO_FISCAL_FUTURO, BENEFICIO_DATO_REQUERIDO, BENEFICIO_DATO_NO_CORRESPONDE), \`regla\` and \`campo\` naming it and \`problemas\` listing every broken rule; 503 BENEFICIO_VALOR_UI_NO_DISPONIBLE / BENEFICIO_COTIZACION_NO_DISPONIBLE when BCU cannot be reached; 409 BENEFICIO_DECLARACION_CONCURRENTE. Role administrador.`;

const STATUS = `For the period of \`fecha\` (default today, Uruguay): per regime whether a current declaration covers its fiscal year (\`vigente\`), which (\`declaracion\`) and until when (\`vigenteHasta\`, 31/12 of the year; Decreto 206/019 only through TAX_BENEFIT_206_LAST_YEAR). For Decreto 206/019 in force, \`creditoMensual\`: 80 UI at BCU's UI value (code 9800) of the month's last day (or the latest earlier day BCU has) in pesos, rounded to cents, decimal strings. BCU unreachable: \`creditoMensual\` null and a notice in \`avisos\`. Role lectura.`;

const START = `The company's start date as an electronic issuer: from the local copy of DGI's registry of electronic issuers (EFACCONSULTARRUCEMISORES, synced daily; a RUC not synced yet is asked to DGI right away with the company's certificate) with \`fuente: registro_dgi\` and \`leidoEn\`, when it was read; else the company's \`fechaResolucion\` (\`fuente: empresa\`). Neither known: while the registry was never synced (the service syncs it at startup when it never did, then daily), 503 REGISTRO_EMISORES_NO_SINCRONIZADO ("not synced yet": retry in a few minutes; \`ultimoError\` = the last sync error, if any); once synced, 404 FECHA_INICIO_NO_DISPONIBLE (the RUT is not in the registry; \`registroSincronizado\` = when it was synced). Role lectura.`;

export function taxBenefitRoutes(service: TaxBenefitService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(`${base}/declaracion`, {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Save tax-benefit declaration', description: DECLARE, body: s.declarationBody, response: { 201: s.declarationView, ...errorResponses, 409: errorBody, 422: errorBody, 503: errorBody } },
    }, async (req, reply) => reply.status(201).send(await service.declare(requireActor(req), req.body)));

    app.get(`${base}/declaraciones`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List tax-benefit declarations', description: 'Declarations of the company, newest first, superseded ones included (`estado`). Filters `anioFiscal`, `regimen`; paging `start`, `length`. Role lectura.', querystring: s.listQuery, response: { 200: s.declarationsPage, ...errorResponses } },
    }, async (req) => {
      const { start, length, ...f } = req.query;
      const { data, total } = await service.list(requireActor(req), f, { start, length });
      return paged(data, total, { start, length });
    });

    app.get(`${base}/estado`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Declaration status', description: STATUS, querystring: s.statusQuery, response: { 200: s.statusView, ...errorResponses } },
    }, async (req) => service.status(requireActor(req), req.query.idEmpresa, req.query.fecha));

    app.get(`${base}/fecha-inicio`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Activity start date', description: START, querystring: s.companyQuery, response: { 200: s.startDateView, ...errorResponses, 503: errorBody } },
    }, async (req) => service.startDate(requireActor(req), req.query.idEmpresa));

    app.get(`${base}/declaracion/pdf`, {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Download declaration PDF', description: 'The declaration `id` as a printable A4 PDF (inline): the company as it was when it declared, regime, grounds or investments and the exemption computed, declarant, oath, the date it was made and the date printed; a superseded one is marked REEMPLAZADA. 404 DECLARACION_NO_ENCONTRADA (missing or another company\'s). Role lectura.', querystring: s.pdfQuery, response: { ...errorResponses } },
    }, async (req, reply) => {
      const declaration = await service.forPdf(requireActor(req), req.query.id);
      const pdf = await renderDeclarationPdf(declaration, new Date());
      return reply.type('application/pdf').header('content-disposition', `inline; filename="declaracion-${declaration.id}-${declaration.anioFiscal}.pdf"`).send(pdf as never);
    });
  };
}
