import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { errors } from '../../lib/errors.js';
import { companyErrors } from './companies.errors.js';
import { LOGO_MAX_BYTES } from './logos.js';
import { fileResponse } from '../../platform/http/file-response.js';

/** Reads the single file of a multipart logo upload; anything over the logo limit is refused while streaming. */
export async function readLogoFile(request: FastifyRequest): Promise<Buffer> {
  if (!request.isMultipart()) throw errors.TIPO_CONTENIDO_NO_SOPORTADO('Envíe el logo como multipart/form-data con un campo de archivo.');
  const file = await request.file({ limits: { fileSize: LOGO_MAX_BYTES } });
  if (!file) throw companyErrors.LOGO_INVALIDO('Falta el archivo del logo en el formulario.');
  const data = await file.toBuffer().catch((err: { code?: string }) => {
    if (err.code === 'FST_REQ_FILE_TOO_LARGE') throw companyErrors.LOGO_DEMASIADO_GRANDE();
    throw err;
  });
  if (file.file.truncated) throw companyErrors.LOGO_DEMASIADO_GRANDE();
  return data;
}

export function sendLogo(reply: FastifyReply, logo: { contentType: string; data: Buffer }) {
  // SVG is served as an attachment-safe image with a restrictive CSP so a script inside cannot run.
  return reply
    .type(logo.contentType)
    .header('cache-control', 'private, max-age=300')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
    .send(logo.data);
}

export const uploadDescription =
  'multipart/form-data with one file field (any name): PNG, JPEG (baseline or progressive) or SVG, at most 512 KB. The type is detected from the content: 400 LOGO_INVALIDO for another type; a PNG or JPEG that does not decode (truncated, corrupt) is 400 LOGO_DANADO. Only PNG and JPEG print on the PDF. ';
export const logoUploaded = z.object({ contentType: z.enum(['image/png', 'image/jpeg', 'image/svg+xml']), bytes: z.number().int() });
export const imageResponse = fileResponse('The image bytes', 'image/png', 'image/jpeg', 'image/svg+xml');
