/**
 * Logo checks for the representación impresa: the bytes decide the type (magic numbers), never the
 * file name or the client's content type. SVG is accepted when the document root is <svg>. A PNG
 * or JPEG must also decode (documents/raster-image.ts, the check the PDF renderer runs): a
 * signature followed by garbage is refused here instead of breaking every PDF of the company.
 */
import { checkRasterImage, isJpeg, isPng } from '../documents/raster-image.js';
import { companyErrors } from './companies.errors.js';

export const LOGO_MAX_BYTES = 512 * 1024;

export type LogoContentType = 'image/png' | 'image/jpeg' | 'image/svg+xml';

export function detectLogoType(data: Buffer): LogoContentType | undefined {
  if (isPng(data)) return 'image/png';
  if (isJpeg(data)) return 'image/jpeg';
  const head = data.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '');
  // Skip the XML declaration, comments and a DOCTYPE; the first element must be <svg>.
  const rest = head.replace(/^\s*(<\?xml[^>]*\?>\s*)?((<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)\s*)*/i, '');
  if (/^<svg[\s>]/i.test(rest) && /<\/svg>\s*$/i.test(data.subarray(-1024).toString('utf8'))) return 'image/svg+xml';
  return undefined;
}

/** Throws LOGO_DEMASIADO_GRANDE / LOGO_INVALIDO / LOGO_DANADO; returns the detected content type. */
export function validateLogo(data: Buffer): LogoContentType {
  if (data.length > LOGO_MAX_BYTES) throw companyErrors.LOGO_DEMASIADO_GRANDE();
  if (data.length === 0) throw companyErrors.LOGO_INVALIDO('El archivo del logo está vacío.');
  const type = detectLogoType(data);
  if (!type) throw companyErrors.LOGO_INVALIDO();
  if (type !== 'image/svg+xml') {
    const check = checkRasterImage(data);
    if (!check.ok) throw companyErrors.LOGO_DANADO(`El logo no se puede decodificar: ${check.problem}`);
  }
  return type;
}
