/** Query-string pieces the search endpoints share (issued and received CFE). */
import { z } from 'zod';

/** An amount filter as decimal text (never a float), up to 2 decimals. */
export const amountFilter = z.string().regex(/^-?\d{1,15}(\.\d{1,2})?$/, 'Monto como texto decimal, p. ej. "1500.50" (hasta 2 decimales).');

/**
 * The text-to-list steps of `listOf`: a JSON body reusing such a filter takes a real array instead
 * (strict-body.ts), as it takes real numbers.
 */
export const queryListSteps = new WeakSet<object>();

/** A list from a repeated query parameter (`a=1&a=2`) or a comma-separated string (`a=1,2`); 1 to 50 items. */
export function listOf<T extends z.ZodTypeAny>(item: T) {
  const list = z.preprocess((v) => {
    if (v === undefined || v === null || v === '') return undefined;
    const arr = Array.isArray(v) ? v : [v];
    return arr.flatMap((x) => (typeof x === 'string' ? x.split(',').map((s) => s.trim()).filter(Boolean) : [x]));
  }, z.array(item).min(1).max(50).optional());
  queryListSteps.add((list._zod.def as { in: object }).in);
  return list;
}
