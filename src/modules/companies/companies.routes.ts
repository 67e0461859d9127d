import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { fileResponse } from '../../platform/http/file-response.js';
import { paged } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import { branchesRoutes } from './branches.routes.js';
import { streamCompaniesXlsx, XLSX_TYPE } from './companies.export.js';
import * as s from './companies.schemas.js';
import type { CompaniesService } from './companies.service.js';
import { emissionPointsRoutes } from './emission-points.routes.js';
import { imageResponse, logoUploaded, readLogoFile, sendLogo, uploadDescription } from './logo-upload.js';

const conflict = { 409: errorBody.describe('Duplicate') };
const adminOnly = 'Caller: operator or `administrador` of the company. ';

export function companiesRoutes(companies: CompaniesService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Empresa'];

    app.post('/api/v1/empresa/crear', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Create company',
        description: 'Operators only (a new tenant is a service decision; roles are then granted with /usuario/editar). The RUT must have 12 digits and a valid DGI check digit: otherwise 400 RUT_INVALIDO. A RUT already used by a non-deleted company: 409 EMPRESA_DUPLICADA.',
        body: s.createCompanyBody, response: { 201: s.companyView, ...errorResponses, ...conflict },
      },
    }, async (req, reply) => reply.status(201).send(await companies.create(requireActor(req), req.body)));

    app.post('/api/v1/empresa/editar', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Edit company', description: `${adminOnly}limiteCfeMensual only by operators.`, body: s.editCompanyBody, response: { 200: s.companyView, ...errorResponses } },
    }, async (req) => {
      const { idEmpresa, ...input } = req.body;
      return companies.edit(requireActor(req), idEmpresa, input);
    });

    app.get('/api/v1/empresa/todas', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List companies', description: 'Companies visible to the caller (all for operators), by legal name. Deleted companies never appear.', querystring: s.listCompaniesQuery, response: { 200: s.companiesPage, ...errorResponses } },
    }, async (req) => {
      const { start, length, ...filters } = req.query;
      const { data, total } = await companies.list(requireActor(req), filters, { start, length });
      return paged(data, total, { start, length });
    });

    app.get('/api/v1/empresa/exportarExcel', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Export companies to spreadsheet',
        description: 'The companies of /empresa/todas (same filters, no paging) as an .xlsx file, streamed.',
        querystring: s.companyFilters,
        response: { 200: fileResponse('The companies as a spreadsheet (empresas.xlsx)', XLSX_TYPE), ...errorResponses },
      },
    }, async (req, reply) => {
      const stream = streamCompaniesXlsx(companies.exportRows(requireActor(req), req.query), (err) => req.log.error({ err }, 'company export failed'));
      return reply.type(XLSX_TYPE).header('content-disposition', 'attachment; filename="empresas.xlsx"').send(stream);
    });

    app.get('/api/v1/empresa/parametros', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Company parameters',
        description: 'Fiscal and operating parameters of `idEmpresa`: DGI environment, CodigoCasaDgiPorDefecto, tax regime, e-Ticket verification URL, monthly CFE limit (null = unlimited), DGI resolution number and date, settings.',
        querystring: s.companyQuery, response: { 200: s.companyParameters, ...errorResponses },
      },
    }, async (req) => companies.parameters(requireActor(req), req.query.idEmpresa));

    app.get('/api/v1/empresa/:id', {
      config: { minRole: 'lectura', companyParam: 'id' },
      schema: { tags, summary: 'Get company by id', params: s.idParams, response: { 200: s.companyView, ...errorResponses } },
    }, async (req) => companies.get(requireActor(req), req.params.id));

    app.delete('/api/v1/empresa/:id', {
      config: { companyParam: 'id', minRole: 'administrador' },
      schema: {
        tags, summary: 'Delete company',
        description: `${adminOnly}Soft delete: the company disappears from every list and lookup and cannot issue, but the row and its issued CFE are kept (fiscal records are never destroyed). Its RUT can be registered again as a new company.`,
        params: s.idParams, response: { 204: z.null(), ...errorResponses },
      },
    }, async (req, reply) => {
      await companies.remove(requireActor(req), req.params.id);
      return reply.status(204).send(null);
    });

    const toggle = (path: string, summary: string, run: (actor: ReturnType<typeof requireActor>, id: number) => Promise<z.infer<typeof s.companyView>>) =>
      app.post(path, {
        config: { companyParam: 'id', minRole: 'administrador' },
        schema: { tags, summary, description: `${adminOnly}A disabled company cannot issue and is invisible to its non-operator users until an operator enables it again.`, params: s.idParams, response: { 200: s.companyView, ...errorResponses } },
      }, async (req) => run(requireActor(req), (req.params as { id: number }).id));
    toggle('/api/v1/empresa/habilitar/:id', 'Enable company by id', companies.enable);
    toggle('/api/v1/empresa/deshabilitar/:id', 'Disable company by id', companies.disable);

    const toggleRut = (path: string, summary: string, run: (actor: ReturnType<typeof requireActor>, rut: string) => Promise<z.infer<typeof s.companyView>>) =>
      app.post(path, {
        config: { minRole: 'administrador' },
        schema: { tags, summary, description: `${adminOnly}An invalid RUT is 400 RUT_INVALIDO; an unknown or invisible one 404.`, params: s.rutParams, response: { 200: s.companyView, ...errorResponses } },
      }, async (req) => run(requireActor(req), (req.params as { rut: string }).rut));
    toggleRut('/api/v1/empresa/habilitarPorRut/:rut', 'Enable company by RUT', companies.enableByRut);
    toggleRut('/api/v1/empresa/deshabilitarPorRut/:rut', 'Disable company by RUT', companies.disableByRut);

    app.post('/api/v1/empresa/actualizarLogo', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Update company logo',
        description: `${adminOnly}${uploadDescription}The company goes in the query string (\`?idEmpresa=\`) because multipart bodies are read after the access check. Read it back with GET /api/v1/empresa/{id}/logo.`,
        querystring: s.companyQuery, response: { 200: logoUploaded.extend({ idEmpresa: z.number().int() }), ...errorResponses, 413: errorBody },
      },
    }, async (req) => companies.setLogo(requireActor(req), req.query.idEmpresa, await readLogoFile(req)));

    app.post('/api/v1/empresa/eliminarLogo', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Remove company logo', description: `${adminOnly}\`?idEmpresa=\` in the query string. 404 LOGO_NO_ENCONTRADO when there is none.`, querystring: s.companyQuery, response: { 204: z.null(), ...errorResponses } },
    }, async (req, reply) => {
      await companies.removeLogo(requireActor(req), req.query.idEmpresa);
      return reply.status(204).send(null);
    });

    app.get('/api/v1/empresa/:id/logo', {
      config: { minRole: 'lectura', companyParam: 'id' },
      schema: { tags, summary: 'Company logo (extra)', description: 'Not in the spec: serves the stored logo for printing.', params: s.idParams, response: { 200: imageResponse, ...errorResponses } },
    }, async (req, reply) => sendLogo(reply, await companies.logo(requireActor(req), req.params.id)));

    await app.register(branchesRoutes(companies.branches));
    await app.register(emissionPointsRoutes(companies.points));
  };
}
