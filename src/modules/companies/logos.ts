/**
 * Logo checks for the representación impresa: the bytes decide the type (magic numbers), never the
 * file name or the client's content type. SVG is accepted when the document root is <svg>.
 */
import { companyErrors } from './companies.errors.js';

export const LOGO_MAX_BYTES = 512 * 1024;

export type LogoContentType = 'image/png' | 'image/jpeg' | 'image/svg+xml';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function detectLogoType(data: Buffer): LogoContentType | undefined {
  if (data.length >= PNG.length && data.subarray(0, PNG.length).equals(PNG)) return 'image/png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  const head = data.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '');
  // Skip the XML declaration, comments and a DOCTYPE; the first element must be <svg>.
  const rest = head.replace(/^\s*(<\?xml[^>]*\?>\s*)?((<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)\s*)*/i, '');
  if (/^<svg[\s>]/i.test(rest) && /<\/svg>\s*$/i.test(data.subarray(-1024).toString('utf8'))) return 'image/svg+xml';
  return undefined;
}

/** Throws LOGO_DEMASIADO_GRANDE / LOGO_INVALIDO; returns the detected content type. */
export function validateLogo(data: Buffer): LogoContentType {
  if (data.length > LOGO_MAX_BYTES) throw companyErrors.LOGO_DEMASIADO_GRANDE();
  if (data.length === 0) throw companyErrors.LOGO_INVALIDO('El archivo del logo está vacío.');
  const type = detectLogoType(data);
  if (!type) throw companyErrors.LOGO_INVALIDO();
  return type;
}
