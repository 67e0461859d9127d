/**
 * What emitir accepts in free text (issue 29 point 2): one policy for every string of the body
 * (names, descriptions, addresses, glosas, razón, adenda…), chosen so that a receipt is never
 * signed with text that some reader on the way to DGI would read differently from what we signed.
 *
 * - Line breaks: DGI's types for free text are plain xs:string (DGITypes.xsd, whiteSpace preserve),
 *   so a line feed is allowed everywhere. CR LF and a lone CR become LF before anything else: XML 1.0
 *   turns a raw CR into LF when it reads a document (§2.11), so a CR survives only as `&#xD;`, and
 *   any stack that decodes and re-serialises the text (a DOM round trip, a SOAP library) would send
 *   a different character than the one signed (E04, and DGI voids the number). With LF every reader
 *   agrees. Length limits count the text as sent.
 * - Tab is kept (element content keeps it in XML 1.0 and C14N).
 * - Refused with 400 VALIDACION naming the field: C0 controls other than tab/LF/CR (also refused for
 *   every route by platform/http/text-safety.ts), DEL and the C1 controls U+0080-U+009F (XML 1.1
 *   reads U+0085 as a line end and requires the others escaped), and U+2028 / U+2029 (line and
 *   paragraph separators: read as line ends by XML 1.1 and by xmldom, which the SOAP layer uses;
 *   a line feed says the same thing unambiguously).
 */
import type { z } from 'zod';

// A body can only hold a CR or one of the refused characters if this matches one of its strings.
const NEEDS_WORK = /[\r\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029]/;
const REFUSED = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029]/;

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

export function refusalMessage(char: string): string {
  return `contiene un carácter no admitido (${codePoint(char)}): los textos no pueden llevar caracteres de control ni separadores de línea Unicode; use un salto de línea (LF)`;
}

/** CR LF and lone CR → LF; null when `text` holds a refused character (the caller names it). */
export function normalizeFreeText(text: string): { ok: true; text: string } | { ok: false; char: string } {
  if (!NEEDS_WORK.test(text)) return { ok: true, text };
  const refused = REFUSED.exec(text);
  if (refused) return { ok: false, char: refused[0] };
  return { ok: true, text: text.replace(/\r\n?/g, '\n') };
}

type Issue = { path: (string | number)[]; char: string };

/** Normalises every string of `value` in place (arrays and objects), collecting refused characters. */
function walk(value: unknown, path: (string | number)[], issues: Issue[]): unknown {
  if (typeof value === 'string') {
    const r = normalizeFreeText(value);
    if (!r.ok) issues.push({ path, char: r.char });
    return r.ok ? r.text : value;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = walk(value[i], [...path, i], issues);
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const v = record[key];
      if (typeof v === 'string' && !NEEDS_WORK.test(v)) continue; // the common case: nothing to do
      record[key] = walk(v, [...path, key], issues);
    }
  }
  return value;
}

/**
 * The emitir body schema with the free-text policy applied after parsing (a refinement on the
 * schema, so its fields and the OpenAPI document stay as they are).
 */
export function withFreeTextPolicy<T extends z.ZodType<Record<string, unknown>>>(schema: T) {
  return schema.transform((body, ctx) => {
    const issues: Issue[] = [];
    walk(body, [], issues);
    for (const issue of issues) ctx.issues.push({ code: 'custom', message: refusalMessage(issue.char), input: body, path: issue.path });
    return body;
  });
}
