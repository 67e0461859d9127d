import { z } from 'zod';
import { PG_INT_MAX } from '../../lib/pg-int.js';

/** GET /api/v1/empresa/correoSaliente: the settings as stored, without the password. */
export const outboundMailView = z.object({
  idEmpresa: z.number().int(),
  configurado: z.boolean().describe('true = CFE e-mails go through the company SMTP server; false = through the service transport (the other fields are null).'),
  smtpHost: z.string().nullable().describe('SMTP server host name or IP.'),
  smtpPuerto: z.number().int().nullable().describe('SMTP port (587 submission, 465 SMTPS, 25).'),
  smtpSeguro: z.boolean().nullable().describe('true = TLS from connection start (SMTPS, usually port 465); false = plain connection upgraded with STARTTLS when the server offers it.'),
  smtpUsuario: z.string().nullable().describe('SMTP AUTH user; null = no authentication.'),
  smtpClaveConfigurada: z.boolean().describe('Whether an SMTP password is stored. The password itself is never returned.'),
  remitente: z.string().nullable().describe('From address of the messages (e.g. `Facturación <cfe@empresa.uy>`).'),
  fechaActualizacion: z.string().nullable(),
});

export const outboundMailBody = z
  .object({
    idEmpresa: z.number().int().positive().max(PG_INT_MAX),
    smtpHost: z.string().trim().min(1).max(255).nullable().describe('null clears the settings: mail goes back to the service transport.'),
    smtpPuerto: z.number().int().min(1).max(65535).optional(),
    smtpSeguro: z.boolean().optional().describe('TLS on connect (SMTPS). Default: true when smtpPuerto is 465.'),
    smtpUsuario: z.string().trim().min(1).max(255).nullish().describe('SMTP AUTH user; null or omitted = no authentication.'),
    smtpClave: z.string().min(1).max(500).nullish().describe('Write-only password, stored encrypted (AES-256-GCM under MASTER_KEY). Omitted = keep the stored one; null = remove it.'),
    remitente: z.string().trim().min(3).max(320).optional().describe('From address; required with smtpHost. Plain `a@b.uy` or `Nombre <a@b.uy>`.'),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.smtpHost === null) return;
    if (b.smtpPuerto === undefined) ctx.addIssue({ code: 'custom', path: ['smtpPuerto'], message: 'smtpPuerto es obligatorio con smtpHost.' });
    if (!b.remitente) ctx.addIssue({ code: 'custom', path: ['remitente'], message: 'remitente es obligatorio con smtpHost.' });
    else if (!/^(?:[^<>]*<)?[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>?$/.test(b.remitente)) ctx.addIssue({ code: 'custom', path: ['remitente'], message: 'remitente debe ser una dirección de correo.' });
  });

export const outboundMailQuery = z.object({ idEmpresa: z.coerce.number().int().positive() });

export const verifyOutboundBody = z
  .object({
    idEmpresa: z.number().int().positive().max(PG_INT_MAX),
    destinatario: z.string().trim().email().max(320).optional().describe("Where the test message goes; default: the company's e-mail."),
  })
  .strict();

export const verifyOutboundResult = z.object({
  ok: z.literal(true),
  transporte: z.enum(['empresa', 'servicio']).describe('empresa = the company SMTP settings; servicio = the service default transport (SMTP_URL, or DATA_DIR/outbox without it).'),
  messageId: z.string(),
  destinatario: z.string(),
});
