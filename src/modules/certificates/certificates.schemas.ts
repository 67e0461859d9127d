import { z } from 'zod';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { companyRef } from '../../platform/http/company-refs.js';

export const certificateView = z.object({
  id: z.number().int(),
  idEmpresa: z.number().int(),
  sujeto: z.string().describe('Subject, RFC 2253'),
  emisor: z.string().describe('Issuer, RFC 2253 (as X509IssuerName)'),
  numeroSerie: z.string().describe('Serial number in decimal (as X509SerialNumber)'),
  validoDesde: z.string(),
  validoHasta: z.string(),
  activo: z.boolean().describe('The company signs with this certificate'),
  vigente: z.boolean(),
  venceEnDias: z.number().int(),
  porVencer: z.boolean().describe(`Active and expiring within 30 days`),
  advertencias: z
    .array(z.object({
      codigo: z.enum(['CERTIFICADO_AUTOFIRMADO', 'CERTIFICADO_CADENA_INCOMPLETA', 'CERTIFICADO_CA_NO_CONFIABLE', 'CERTIFICADO_CADENA_INVALIDA', 'CERTIFICADO_CA_NO_VIGENTE', 'CERTIFICADO_USO_NO_FIRMA']),
      mensaje: z.string(),
    }))
    .describe('Trust findings at import (BRIEF 3). Empty when the certificate chains to an accredited Uruguayan CA (built-in store, CERT_TRUST_ANCHORS; in simulator mode also the simulator\'s test CA). ' +
      'Only DGI_MODE=simulator imports a certificate with findings: real DGI rejects its CFEs with E04, and so does the simulator. Each code is the 422 that DGI_MODE=real answers.'),
});
export const certificateList = z.array(certificateView);
export const companyIdParams = z.object({ id: z.coerce.number().int().positive() });
export const assignBody = z.object({ idEmpresa: z.number().int().positive().max(PG_INT_MAX), idCertificado: companyRef(z.number().int().positive().max(PG_INT_MAX), 'certificado') });
export const importJsonBody = z.object({
  idEmpresa: z.number().int().positive().max(PG_INT_MAX),
  clave: z.string().describe('Password of the .p12/.pfx'),
  archivo: z.string().min(1).describe('The .p12/.pfx file, base64'),
  activar: z.boolean().optional(),
});
