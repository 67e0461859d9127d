import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errors } from '../../lib/errors.js';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { paged } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import { assertCompanyRefs } from '../../platform/http/company-refs.js';
import { readMultipart } from '../../platform/http/multipart.js';
import * as s from './cae.schemas.js';
import type { CaeService } from './cae.service.js';

const withConflict = { ...errorResponses, 409: errorBody.describe('Conflict') };

export function caeRoutes(cae: CaeService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['CAE'];

    app.get('/api/v1/cae/todos', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List CAE', description: 'CAE ranges of `idEmpresa` with their counters (next number, used, voided, remaining) and expiry. Filters: tipoCfe, serie, vencidos (0/1).', querystring: s.listQuery, response: { 200: s.caeRangesPage, ...errorResponses } },
    }, async (req) => {
      const { start, length, ...filters } = req.query;
      const { data, total } = await cae.list(requireActor(req), filters, { start, length });
      return paged(data, total, { start, length });
    });

    app.get('/api/v1/empresa/cfe', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'CAE ranges of the company', description: 'Same rows as /api/v1/cae/todos for `idEmpresa`, paged.', querystring: s.listQuery, response: { 200: s.caeRangesPage, ...errorResponses } },
    }, async (req) => {
      const { start, length, ...filters } = req.query;
      const { data, total } = await cae.list(requireActor(req), filters, { start, length });
      return paged(data, total, { start, length });
    });

    app.post('/api/v1/cae/importar', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Import CAE from XML',
        description:
          'Either JSON `{ idEmpresa, xml, idSucursal? }` or multipart/form-data with fields `idEmpresa`, optional `idSucursal` and the file (any field name). ' +
          'The file is validated against CAE.xsd (the 2012 format without <TA> is accepted) and DGI\'s rules (electronic type, at most 1,000,000 numbers, FVD within 24 months of FA), its XML signature must verify with a DGI certificate chained to a trusted CA (Correo Uruguayo, CAE_TRUST_ANCHORS; with DGI_MODE=simulator outside production also the in-process simulated DGI\'s CA, whose files POST /api/v1/sandbox/dgi/cae hands out; never in DGI_MODE=real), and RucE must be the company RUT. ' +
          'With DGI_MODE=simulator the range is registered with the in-process simulated DGI too (a file it did not issue, such as a DGI sample, would otherwise get E09). ' +
          'Errors: CAE_XML_INVALIDO, CAE_FIRMA_INVALIDA, CAE_FIRMANTE_NO_CONFIABLE, CAE_RUT_DISTINTO, CAE_TIPO_INVALIDO, CAE_RANGO_INVALIDO (400), CAE_DUPLICADO, CAE_SUPERPUESTO (409: overlaps a range not voided of the same type and serie).',
        response: { 201: s.manualResult, ...withConflict },
      },
    }, async (req, reply) => {
      const input = req.isMultipart() ? await multipartImport(req) : parseImport(req.body);
      await assertCompanyRefs(req, s.importXmlBody, input);
      return reply.status(201).send(await cae.importXml(requireActor(req), input.idEmpresa, input.xml, input.idSucursal));
    });

    app.post('/api/v1/cae/importar-manual', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Manual CAE import', description:
        'A CAE received on paper: the same data as the DGI file, typed in. No signature is checked; the same DGI rules apply. ' +
        'With DGI_MODE=simulator the range is also registered with the in-process simulated DGI, which otherwise rejects receipts of ranges it did not issue with E09; ' +
        'when that cannot be done (an external simulator at DGI_SIMULATOR_URL) the answer carries `advertencias` saying so and how to get a CAE it accepts. ' +
        'Errors: CAE_TIPO_INVALIDO, CAE_RANGO_INVALIDO (400), CAE_DUPLICADO, CAE_SUPERPUESTO (409).', body: s.manualBody, response: { 201: s.manualResult, ...withConflict } },
    }, async (req, reply) => reply.status(201).send(await cae.importManual(requireActor(req), req.body)));

    app.post('/api/v1/cae/validar', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Validate CAE XML', description: 'Checks a CAE file without storing it: XSD, signature, signer and (with idEmpresa) the RUT. Always 200 with `valido` and the problems found.', body: s.validateBody, response: { 200: s.validateResult, ...errorResponses } },
    }, async (req) => cae.validate(requireActor(req), req.body.xml, req.body.idEmpresa));

    app.get('/api/v1/cae/obtenerDisponibilidad', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Availability', description: 'Per tipoCfe and serie over usable ranges: numbers left, latest expiry, usage of the last 30 days and the estimated exhaustion date at that pace.', querystring: s.companyQuery, response: { 200: s.availabilityResult, ...errorResponses } },
    }, async (req) => cae.availability(requireActor(req), req.query.idEmpresa));

    app.post('/api/v1/cae/modificarSucursal', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Change the CAE branch', description: 'Reserves the range for one branch of the same company, or (idSucursal null) for the whole company. Role: administrador.', body: s.setBranchBody, response: { 200: s.caeRangeView, ...errorResponses } },
    }, async (req) => cae.setBranch(requireActor(req), req.body.idCae, req.body.idSucursal));

    app.post('/api/v1/cae/ajustar-proximo-numero', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Adjust next number', description: 'Moves the next number forward only (up to HNro+1); the skipped numbers are recorded as voided today and appear in the daily report. Role: administrador.', body: s.adjustBody, response: { 200: s.caeRangeView, ...withConflict } },
    }, async (req) => cae.adjustNext(requireActor(req), req.body.idCae, req.body.proximoNumero));

    app.post('/api/v1/cae/anular-completo', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Void a whole CAE', description: 'Voids the unused remainder of the range (recorded as voided today); the range never hands out numbers again. The DGI procedure itself is done at DGI. Role: administrador.', body: s.annulBody, response: { 200: s.caeRangeView, ...withConflict } },
    }, async (req) => cae.annul(requireActor(req), req.body.idCae));
  };
}

async function multipartImport(req: Parameters<typeof readMultipart>[0]) {
  const { fields, file } = await readMultipart(req);
  return parseImport({
    idEmpresa: Number(fields.idEmpresa),
    xml: file?.toString('utf8') ?? fields.xml,
    idSucursal: fields.idSucursal ? Number(fields.idSucursal) : undefined,
  });
}

function parseImport(body: unknown) {
  const parsed = s.importXmlBody.safeParse(body);
  if (!parsed.success) {
    const campos = parsed.error.issues.map((i) => ({ campo: i.path.join('.') || 'body', mensaje: i.message }));
    throw errors.VALIDACION(`Datos inválidos: ${campos.map((c) => `${c.campo}: ${c.mensaje}`).join('; ')}`, { campos });
  }
  return parsed.data;
}
