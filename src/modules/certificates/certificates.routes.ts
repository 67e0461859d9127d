import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errors } from '../../lib/errors.js';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './certificates.schemas.js';
import type { CertificatesService } from './certificates.service.js';
import { readMultipart } from './certificates.upload.js';

export function certificatesRoutes(certs: CertificatesService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Empresa'];

    app.post('/api/v1/empresa/importarCertificado', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Import certificate',
        description:
          'multipart/form-data with fields `idEmpresa`, `clave` (password), optional `activar` (true/false) and the .p12/.pfx file; or JSON `{ idEmpresa, clave, archivo (base64), activar? }`. ' +
          'Checks: password, key matches certificate, valid now, subject serialNumber=RUC<company RUT>. The first certificate becomes active. The private key is stored encrypted (AES-256-GCM) and never returned. ' +
          'Errors (400): CERTIFICADO_ARCHIVO_REQUERIDO, CERTIFICADO_ARCHIVO_INVALIDO, CERTIFICADO_CLAVE_INCORRECTA, CERTIFICADO_SIN_CLAVE_PRIVADA, CERTIFICADO_CLAVE_NO_RSA (EC or other non-RSA key: DGI signs with RSA), CERTIFICADO_CLAVE_NO_CORRESPONDE, CERTIFICADO_NO_VIGENTE, CERTIFICADO_RUT_DISTINTO; 409 CERTIFICADO_DUPLICADO. Role: administrador.',
        response: { 201: s.certificateView, ...errorResponses, 409: errorBody },
      },
    }, async (req, reply) => {
      let input;
      if (req.isMultipart()) {
        const { fields, file } = await readMultipart(req);
        input = { idEmpresa: Number(fields.idEmpresa), clave: fields.clave ?? '', archivo: file, activar: fields.activar === undefined ? undefined : fields.activar === 'true' };
        if (!Number.isSafeInteger(input.idEmpresa) || input.idEmpresa <= 0 || input.idEmpresa > PG_INT_MAX) throw errors.VALIDACION('Indique idEmpresa: un entero positivo.');
      } else {
        const parsed = s.importJsonBody.safeParse(req.body);
        if (!parsed.success) throw errors.VALIDACION(`Datos inválidos: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
        input = { ...parsed.data, archivo: Buffer.from(parsed.data.archivo, 'base64') };
      }
      return reply.status(201).send(await certs.importCertificate(requireActor(req), input));
    });

    app.post('/api/v1/empresa/asignarCertificado', {
      config: { minRole: 'administrador' },
      schema: { tags, summary: 'Assign an existing certificate', description: 'Makes an imported, currently valid certificate the active signing certificate. Role: administrador.', body: s.assignBody, response: { 200: s.certificateView, ...errorResponses } },
    }, async (req) => certs.assign(requireActor(req), req.body.idEmpresa, req.body.idCertificado));

    app.get('/api/v1/empresa/:id/certificados', {
      config: { minRole: 'lectura', companyParam: 'id' },
      schema: { tags, summary: 'List certificates of a company', description: 'Subject, issuer, decimal serial, validity, active flag and an expiry warning (`porVencer`: active and within 30 days). Never the key.', params: s.companyIdParams, response: { 200: s.certificateList, ...errorResponses } },
    }, async (req) => certs.list(requireActor(req), req.params.id));
  };
}
