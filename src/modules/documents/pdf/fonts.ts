/**
 * Reuses the parsed AFM metrics of the two standard fonts across documents. pdfkit 0.20.2 parses
 * the Helvetica AFM tables (glyph widths, ~2,700 kerning pairs) again for every document, about
 * 0.8 ms per font and a tenth of an A4 render. The metrics are read-only, so one parsed copy is
 * shared; each document still gets its own font object (own id and PDF dictionary).
 * This reaches into pdfkit internals (_fontFamilies, _fontCount): if they change shape, the code
 * falls back to pdfkit's own loading. Verified with pdfkit 0.20.2 (pinned), 2026.
 */
import { FONT, FONT_BOLD, type Doc } from './draw.ts';

interface FontInternals {
  _fontFamilies?: Record<string, object & { name?: string; font?: unknown; document?: unknown; id?: string }>;
  _fontCount?: number;
}

const templates = new Map<string, object>();

/** Loads FONT and FONT_BOLD into `doc`, from the shared parsed copy when one exists. */
export function loadStandardFonts(doc: Doc): void {
  const d = doc as unknown as FontInternals;
  for (const name of [FONT_BOLD, FONT]) {
    const template = templates.get(name) as FontInternals['_fontFamilies'] extends Record<string, infer F> | undefined ? F : never;
    if (template && d._fontFamilies && typeof d._fontCount === 'number') {
      const copy = Object.assign(Object.create(Object.getPrototypeOf(template)), template, { document: doc, id: `F${++d._fontCount}` });
      delete copy.dictionary;
      delete copy.embedded;
      d._fontFamilies[name] = copy;
      doc.font(name);
      continue;
    }
    doc.font(name);
    const loaded = d._fontFamilies?.[name];
    if (loaded && loaded.font) templates.set(name, loaded);
  }
}
