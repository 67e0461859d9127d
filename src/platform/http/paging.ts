/**
 * The shared paging of every list (spec 8.4 leaves bounds open): `start` is the zero-based offset
 * (default 0), `length` the page size, 1..500, default 50. Lists answer `{ data, total, start, length }`.
 */
import { z } from 'zod';

export const PAGE_MAX = 500;
export const PAGE_DEFAULT = 50;

export const pagingQuery = z.object({
  start: z.coerce.number().int().min(0).default(0).describe('Offset of the first row (0-based). Default 0.'),
  length: z.coerce.number().int().min(1).max(PAGE_MAX).default(PAGE_DEFAULT).describe(`Page size, 1..${PAGE_MAX}. Default ${PAGE_DEFAULT}.`),
});
export type Paging = z.infer<typeof pagingQuery>;

export function pagedResponse<T extends z.ZodTypeAny>(item: T) {
  return z.object({
    data: z.array(item),
    total: z.number().int().describe('Total rows matching the filters, ignoring paging.'),
    start: z.number().int(),
    length: z.number().int(),
  });
}

export function paged<T>(data: T[], total: number, paging: Paging) {
  return { data, total, start: paging.start, length: paging.length };
}

/** 0/1 flags of the spec (`habilitada`, `vencidos`). */
export const flag01 = z.enum(['0', '1']).transform((v) => v === '1');
