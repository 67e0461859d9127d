/**
 * Request fields whose value reaches a CFE, bounded by the DGI simple type that will carry it
 * (issue 28 point 3): the limits come from the compiled XSD model (platform/xml/xsd-limits.ts), so
 * a value the XSD would refuse is a 400 naming its field when it is saved, never an XML_INVALIDO on
 * a later receipt. Built once when the schemas are declared; the checks are a length or a digit scan.
 */
import { z } from 'zod';
import { describeLimit, xsdLimit, xsdProblem } from '../xml/xsd-limits.js';

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

function numberToDecimal(n: number): string {
  const s = String(n);
  return /e/i.test(s) ? n.toFixed(10).replace(/\.?0+$/, '') : s;
}

/**
 * A decimal (JSON number or decimal string) within DGI type `type`, answered as an exact decimal
 * string: more decimals or digits than the type admits are refused, never rounded.
 */
export function dgiDecimal(type: string) {
  const limit = xsdLimit(type);
  return z
    .union([z.number().finite(), z.string().regex(DECIMAL_TEXT, 'debe ser un número decimal, como "1220.50"')])
    .transform((v) => (typeof v === 'number' ? numberToDecimal(v) : v))
    .superRefine((v, ctx) => {
      const problem = xsdProblem(limit, v);
      if (problem) ctx.addIssue({ code: 'custom', message: `${problem} (${limit.name} de DGI)` });
    })
    .describe(`Decimal (number or string). ${describeLimit(limit)}.`);
}

/**
 * Text within DGI type `type` (maxLength / length / enumeration), trimmed; `required` refuses an
 * empty or blank value (DGI's names are non-empty: a name of only spaces prints nothing).
 */
export function dgiText(type: string, opts: { required?: boolean } = {}) {
  const limit = xsdLimit(type);
  // A plain maxLength/length type (most of them) is checked by its length alone; XSD counts characters
  // (code points), so only a string longer in UTF-16 units than the limit is counted again.
  const lengthOnly = limit.builtin === 'string' && !limit.enumeration && !limit.patterns.length && limit.minLength === undefined && limit.length === undefined;
  const max = limit.maxLength ?? limit.length;
  let s = z.string().trim();
  if (opts.required) s = s.min(1, 'no puede estar vacío ni tener solo espacios');
  return s.superRefine((v, ctx) => {
    if (v === '' && !opts.required) return;
    if (lengthOnly && (max === undefined || v.length <= max)) return;
    const problem = xsdProblem(limit, v);
    if (problem) ctx.addIssue({ code: 'custom', message: `${problem} (${limit.name} de DGI)` });
  }).meta(max !== undefined && limit.builtin === 'string' ? { maxLength: max } : {}).describe(describeLimit(limit));
}

/** An integer of DGI type `type` (its enumeration, digits or range), e.g. ModVentaType. */
export function dgiInt(type: string) {
  const limit = xsdLimit(type);
  return z.number().int().superRefine((v, ctx) => {
    const problem = xsdProblem(limit, String(v));
    if (problem) ctx.addIssue({ code: 'custom', message: `${problem} (${limit.name} de DGI)` });
  }).describe(describeLimit(limit));
}
