import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './dgi-sandbox.schemas.js';
import type { DgiSandboxService } from './dgi-sandbox.service.js';

/** Registered only in simulator mode (modules/index.ts): in DGI_MODE=real these paths are 404. */
export function dgiSandboxRoutes(sandbox: DgiSandboxService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Sandbox DGI (solo simulador)'];

    app.post('/api/v1/sandbox/dgi/certificado', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Sandbox: a test certificate for the company',
        description:
          `${s.SANDBOX_NOTE} ` +
          'A new PKCS#12 (RSA 2048, subject serialNumber=RUC<company RUT>, issued by the simulated DGI\'s test CA) and its password, for signing receipts the simulated DGI accepts. ' +
          'The answer is a valid body for POST /api/v1/empresa/importarCertificado (`idEmpresa`, `clave`, `archivo`).',
        body: s.certificateBody,
        response: { 201: s.certificateResult, ...errorResponses, 503: errorBody },
      },
    }, async (req, reply) => reply.status(201).send(await sandbox.certificate(requireActor(req), req.body.idEmpresa)));

    app.post('/api/v1/sandbox/dgi/cae', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Sandbox: a signed CAE file for the company',
        description:
          `${s.SANDBOX_NOTE} ` +
          'A CAE file as DGI issues it (CAE.xsd, XMLDSig by the simulated DGI\'s certificate) for the company RUT, type, serie and numbers asked; the simulated DGI records the range, so receipts numbered in it are not rejected E09/E03. ' +
          'The answer is a valid body for POST /api/v1/cae/importar (`idEmpresa`, `xml`), which trusts the simulator\'s signer in this mode. ' +
          'Errors: CAE_TIPO_INVALIDO, CAE_RANGO_INVALIDO (400, the same rules as importar), SANDBOX_CAE_SUPERPUESTO (409: the simulated DGI already authorized some of those numbers for that type and serie).',
        body: s.caeBody,
        response: { 201: s.caeResult, ...errorResponses, 409: errorBody, 503: errorBody },
      },
    }, async (req, reply) => reply.status(201).send(await sandbox.cae(requireActor(req), req.body)));
  };
}
