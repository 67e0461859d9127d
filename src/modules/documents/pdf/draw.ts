/** Small pdfkit drawing helpers shared by the A4 and ticket layouts. Coordinates in points. */
import { checkRasterImage } from '../raster-image.ts';

export type Doc = PDFKit.PDFDocument;
export type Align = 'left' | 'center' | 'right';

export const FONT = 'Helvetica';
export const FONT_BOLD = 'Helvetica-Bold';
export const GREY = '#555555';
export const LINE = '#999999';

/** Cuts `text` with an ellipsis so that it fits `width` in the current font; returns it with its width. */
export function fit(doc: Doc, text: string, width: number): { text: string; width: number } {
  const full = doc.widthOfString(text);
  if (full <= width) return { text, width: full };
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (doc.widthOfString(`${text.slice(0, mid)}…`) <= width) lo = mid;
    else hi = mid - 1;
  }
  const cut = `${text.slice(0, lo).trimEnd()}…`;
  return { text: cut, width: doc.widthOfString(cut) };
}

/** One line of text, never wrapping, truncated to `width`. */
export function line(doc: Doc, text: string, x: number, y: number, width: number, align: Align = 'left'): void {
  if (!text) return;
  const s = fit(doc, text, width);
  const dx = align === 'left' ? 0 : align === 'right' ? width - s.width : (width - s.width) / 2;
  doc.text(s.text, x + dx, y, { lineBreak: false });
}

/**
 * Breaks `text` into lines no wider than `width` in the current font (words kept whole unless one
 * alone is wider; the text's own line breaks kept), so that a long text can be paginated line by line.
 */
export function wrapLines(doc: Doc, text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let current = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      const candidate = current ? `${current} ${word}` : word;
      if (doc.widthOfString(candidate) <= width) {
        current = candidate;
        continue;
      }
      if (current) out.push(current);
      current = word;
      while (doc.widthOfString(current) > width) {
        // The longest prefix that fits (at least one character), by bisection.
        let lo = 1;
        let hi = current.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (doc.widthOfString(current.slice(0, mid)) <= width) lo = mid;
          else hi = mid - 1;
        }
        out.push(current.slice(0, lo));
        current = current.slice(lo);
      }
    }
    out.push(current);
  }
  while (out.length && !out[out.length - 1]) out.pop();
  return out;
}

/** Sets font, size and colour in one call. */
export function font(doc: Doc, size: number, bold = false, color = 'black'): Doc {
  doc.font(bold ? FONT_BOLD : FONT).fontSize(size);
  // Measuring happens before the first page exists; colour needs a page.
  return (doc as { page?: unknown }).page ? doc.fillColor(color) : doc;
}

/** Wrapped paragraph; returns its height. */
export function para(doc: Doc, text: string, x: number, y: number, width: number, align: Align = 'left', draw = true): number {
  const h = doc.heightOfString(text, { width, align });
  if (draw) doc.text(text, x, y, { width, align });
  return h;
}

export function hr(doc: Doc, x1: number, x2: number, y: number, color = LINE, dash = false): void {
  doc.save().lineWidth(0.5).strokeColor(color);
  if (dash) doc.dash(2, { space: 2 });
  doc.moveTo(x1, y).lineTo(x2, y).stroke();
  doc.restore();
}

export function box(doc: Doc, x: number, y: number, w: number, h: number, color = LINE): void {
  doc.save().lineWidth(0.7).strokeColor(color).rect(x, y, w, h).stroke().restore();
}

/** Logo scaled to fit `maxW`×`maxH`; returns the drawn size (0×0 when absent or unreadable). */
export interface Logo {
  /** pdfkit's opened image: embedded once, reused on every page. */
  img?: Buffer;
  w: number;
  h: number;
}

/** Told when a logo is left out of the document; the caller logs it. */
export type LogoSkipped = (problem: string) => void;

/**
 * A logo that cannot be decoded is left out (and reported through `onSkip`) instead of failing the
 * document: the CFE must still print. It is checked before pdfkit sees it because pdfkit decodes
 * alpha PNGs in an async zlib callback, where a corrupt stream would crash the process.
 */
export function openLogo(doc: Doc, logo: Buffer | undefined, maxW: number, maxH: number, onSkip?: LogoSkipped): Logo {
  if (!logo) return { w: 0, h: 0 };
  const check = checkRasterImage(logo);
  if (!check.ok) {
    onSkip?.(check.problem);
    return { w: 0, h: 0 };
  }
  let img: Buffer & { width: number; height: number };
  try {
    // openImage is public pdfkit API but missing from @types/pdfkit.
    img = (doc as unknown as { openImage(src: Buffer): Buffer & { width: number; height: number } }).openImage(logo);
  } catch (err) {
    // pdfkit throws bare strings for some JPEG problems.
    onSkip?.(err instanceof Error ? err.message : String(err));
    return { w: 0, h: 0 };
  }
  const k = Math.min(maxW / img.width, maxH / img.height, 1);
  return { img, w: img.width * k, h: img.height * k };
}

/** The preview stamp: large, light, diagonal across the given area. */
export function stamp(doc: Doc, text: string, cx: number, cy: number, size: number, angle: number): void {
  doc.save();
  doc.rotate(angle, { origin: [cx, cy] });
  font(doc, size, true, '#cc0000');
  doc.fillOpacity(0.3);
  const w = doc.widthOfString(text);
  doc.text(text, cx - w / 2, cy - size / 2, { lineBreak: false });
  doc.restore();
}
