import { inArray } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import type { DbOrTx } from './client.js';

/**
 * id → company id for the rows of a company-owned table (issue 28 point 5). Ids that do not exist
 * are absent from the map; each owning module wraps this for its own table in its service.
 */
export async function companyOfIds(db: DbOrTx, table: PgTable & { id: PgColumn; companyId: PgColumn }, ids: readonly number[]): Promise<Map<number, number>> {
  // Ids are `integer`: a larger one cannot exist (and would be a data exception).
  const valid = [...new Set(ids)].filter((id) => Number.isSafeInteger(id) && id > 0 && id <= PG_INT_MAX);
  if (valid.length === 0) return new Map();
  const rows = (await db.select({ id: table.id, companyId: table.companyId }).from(table as PgTable).where(inArray(table.id, valid))) as Array<{ id: number; companyId: number }>;
  return new Map(rows.map((r) => [r.id, r.companyId]));
}
