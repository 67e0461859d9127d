/** Request contracts of the printed-representation endpoints (spec 4.3 "Issued CFE", "Comprobante"). */
import { z } from 'zod';
import { pagingQuery } from '../../platform/http/paging.js';
import { companySearchSchema } from '../issued-cfe/issued-cfe.search.js';
import { PDF_FORMATOS } from './cfe-documents.render.js';
import { companyRef } from '../../platform/http/company-refs.js';

export const formato = z
  .enum(PDF_FORMATOS)
  .default('A4')
  .describe('`A4` (default: A4 sheet, QR 28 mm bottom left) or `ticket80` (80 mm thermal roll, QR 26 mm bottom left).');

const idCfe = z.coerce.number().int().positive().describe('Issued CFE id (the `id` of the emitir response).');

export const printedQuery = z.object({ idCfe, formato });
export const previewQuery = z.object({ formato });
export const previewTokenParams = z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{20,64}$/, 'Token de vista previa inválido.') });

export const previewResponse = z.object({
  token: z.string(),
  url: z.string().describe('Path of GET /api/v1/comprobante/previsualizar/{token}.'),
  formato: z.enum(PDF_FORMATOS),
  expiraEn: z.string().describe('ISO 8601 instant after which the token answers 410.'),
  bytes: z.number().int(),
});

export const sendEmailBody = z.object({
  idCfe: companyRef(idCfe, 'cfe', { anchor: true }),
  destinatarios: z.array(z.string().trim().email()).min(1).max(10).optional().describe('Addresses; default: the e-mail of the receiver\'s customer record.'),
  asunto: z.string().trim().min(1).max(200).optional().describe('Subject; default "<tipo> <serie>-<número> de <razón social>".'),
  mensaje: z.string().max(2000).optional().describe('Text placed before the standard body.'),
  formato,
});

export const emailSend = z.object({
  id: z.number().int(),
  idCfe: z.number().int(),
  idEmpresa: z.number().int(),
  destinatarios: z.array(z.string()),
  asunto: z.string(),
  formato: z.string(),
  estado: z.enum(['pendiente', 'reintentando', 'enviado', 'fallido']).describe('pendiente (queued), reintentando (a transient failure, will retry), enviado, fallido (permanent failure or retries exhausted).'),
  intentos: z.number().int().describe('SMTP attempts made.'),
  ultimoError: z.string().nullable().describe('Last failure (SMTP reply or connection error).'),
  codigoSmtp: z.number().int().nullable().describe('SMTP reply code of the last failure, if the server answered.'),
  messageId: z.string().nullable(),
  transporte: z.string().nullable().describe('empresa (the company SMTP settings, /empresa/correoSaliente), servicio (SMTP_URL) or outbox (no SMTP configured: .eml written under DATA_DIR/outbox).'),
  idUsuario: z.number().int().nullable(),
  fechaSolicitud: z.string(),
  fechaEnvio: z.string().nullable(),
});

export const historyQuery = pagingQuery.extend({ idCfe });

export const zipBody = companySearchSchema.extend({
  formato,
  incluirXml: z.boolean().default(true).describe('Add each signed XML under xml/ (default true).'),
});
