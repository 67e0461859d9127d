import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errors } from '../../lib/errors.js';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './certificates.schemas.js';
import type { CertificatesService } from './certificates.service.js';
import { readMultipart } from '../../platform/http/multipart.js';

export function certificatesRoutes(certs: CertificatesService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Empresa'];

    app.post('/api/v1/empresa/importarCertificado', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Import certificate',
        description:
          'multipart/form-data with fields `idEmpresa`, `clave` (password), optional `activar` (true/false) and the .p12/.pfx file; or JSON `{ idEmpresa, clave, archivo (base64), activar? }`. ' +
          'Checks: password, key matches certificate, valid now, subject serialNumber=RUC<company RUT>, and trust: the certificate may sign (keyUsage) and chains, through the intermediates in the file, to an accredited Uruguayan CA ' +
          '(built-in: AC Raíz Nacional de Uruguay, Correo Uruguayo - CA, AC del Ministerio del Interior; others through CERT_TRUST_ANCHORS; in DGI_MODE=simulator also the simulator\'s test CA). ' +
          'DGI_MODE=real refuses an untrusted certificate with 422; DGI_MODE=simulator imports it and lists each finding in `advertencias` (also shown by the certificate list), because DGI (and the simulator) answer E04 to its CFEs. ' +
          'The first certificate becomes active. The private key is stored encrypted (AES-256-GCM) and never returned. ' +
          'Errors (400): CERTIFICADO_ARCHIVO_REQUERIDO, CERTIFICADO_ARCHIVO_INVALIDO, CERTIFICADO_CLAVE_INCORRECTA, CERTIFICADO_SIN_CLAVE_PRIVADA, CERTIFICADO_CLAVE_NO_RSA (EC or other non-RSA key: DGI signs with RSA), CERTIFICADO_CLAVE_NO_CORRESPONDE, CERTIFICADO_NO_VIGENTE, CERTIFICADO_RUT_DISTINTO; ' +
          '422 (real mode): CERTIFICADO_AUTOFIRMADO, CERTIFICADO_CADENA_INCOMPLETA (an intermediate is missing), CERTIFICADO_CA_NO_CONFIABLE, CERTIFICADO_CADENA_INVALIDA, CERTIFICADO_CA_NO_VIGENTE, CERTIFICADO_USO_NO_FIRMA; 409 CERTIFICADO_DUPLICADO. Role: administrador.',
        response: { 201: s.certificateView, ...errorResponses, 409: errorBody, 422: errorBody },
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
      schema: { tags, summary: 'Assign an existing certificate', description: 'Makes an imported, currently valid certificate the active signing certificate. In DGI_MODE=real the trust check of importarCertificado applies again (422 with the same codes). Role: administrador.', body: s.assignBody, response: { 200: s.certificateView, ...errorResponses, 422: errorBody } },
    }, async (req) => certs.assign(requireActor(req), req.body.idEmpresa, req.body.idCertificado));

    app.get('/api/v1/empresa/:id/certificados', {
      config: { minRole: 'lectura', companyParam: 'id' },
      schema: { tags, summary: 'List certificates of a company', description: 'Subject, issuer, decimal serial, validity, active flag, an expiry warning (`porVencer`: active and within 30 days) and the trust findings of the import (`advertencias`). Never the key.', params: s.companyIdParams, response: { 200: s.certificateList, ...errorResponses } },
    }, async (req) => certs.list(requireActor(req), req.params.id));
  };
}
