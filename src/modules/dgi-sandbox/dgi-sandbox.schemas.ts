import { z } from 'zod';
import { positiveInt4 } from '../../platform/http/numbers.js';
import { calendarDate } from '../../platform/http/dates.js';

/** Said in every operation's description: these routes exist only beside the simulated DGI. */
export const SANDBOX_NOTE =
  'SANDBOX ONLY: exists only with DGI_MODE=simulator (the default) served by the in-process simulator (no DGI_SIMULATOR_URL) outside NODE_ENV=production; ' +
  'in DGI_MODE=real the route does not exist (404). What it hands out is signed by the simulated DGI\'s test keys: the real DGI refuses it. Role: administrador of the company.';

export const certificateBody = z.object({ idEmpresa: positiveInt4.describe('Company id; the certificate is made for its RUT and razón social') });

export const certificateResult = z.object({
  idEmpresa: z.number().int(),
  rut: z.string(),
  clave: z.string().describe('Password of the PKCS#12'),
  archivo: z.string().describe('The PKCS#12 (.p12) file, base64: this object can be posted as is to /api/v1/empresa/importarCertificado'),
  sujeto: z.string().describe('Subject, with serialNumber=RUC<rut> as DGI requires'),
  emisor: z.string().describe('Issuer: the simulated DGI\'s test CA'),
  vigenciaDesde: z.string(),
  vigenciaHasta: z.string(),
});

export const caeBody = z.object({
  idEmpresa: positiveInt4.describe('Company id; the CAE is made for its RUT (RucE)'),
  tipoCfe: z.number().int().min(100).max(999).describe('Electronic CFE type, e.g. 101 e-Ticket, 111 e-Factura, 112 its credit note'),
  serie: z.string().regex(/^[A-Z]{1,2}$/, 'una o dos letras mayúsculas'),
  desde: z.number().int().min(1).max(9_999_999).describe('DNro'),
  hasta: z.number().int().min(1).max(9_999_999).describe('HNro; at most 1,000,000 numbers (BRIEF 10)'),
  fechaVencimiento: calendarDate.optional().describe('FVD; default one year from today (at most 24 months, BRIEF 10)'),
});

export const caeResult = z.object({
  idEmpresa: z.number().int(),
  xml: z.string().describe('The CAE file in DGI\'s format (CAE.xsd), signed by the simulated DGI: this object can be posted as is to /api/v1/cae/importar'),
  numeroCae: z.string().describe('NA'),
  tipoCfe: z.number().int(),
  serie: z.string(),
  desde: z.number().int(),
  hasta: z.number().int(),
  fechaVencimiento: z.string(),
});
