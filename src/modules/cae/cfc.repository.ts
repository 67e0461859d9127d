import { and, asc, count, eq, gte, lte, max, min, ne, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { cfcRanges, cfcUsedNumbers } from './cae.tables.js';

export type CfcRangeRow = typeof cfcRanges.$inferSelect;
type Key = { companyId: number; tipoCfc: number; serie: string };

/**
 * Serializes registrations of one (company, type, serie) until the transaction ends, so two
 * concurrent altaCfc/editarCfc cannot both pass the overlap check.
 */
export async function lockSeries(tx: DbOrTx, k: Key) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`cfc:${k.companyId}:${k.tipoCfc}:${k.serie}`}))`);
}

export async function findOverlap(tx: DbOrTx, k: Key & { desde: number; hasta: number; exceptId?: number }) {
  const conds: SQL[] = [eq(cfcRanges.companyId, k.companyId), eq(cfcRanges.tipoCfc, k.tipoCfc), eq(cfcRanges.serie, k.serie), lte(cfcRanges.dNro, k.hasta), gte(cfcRanges.hNro, k.desde)];
  if (k.exceptId) conds.push(ne(cfcRanges.id, k.exceptId));
  const [row] = await tx.select().from(cfcRanges).where(and(...conds)).limit(1);
  return row;
}

export async function insertRange(tx: DbOrTx, values: typeof cfcRanges.$inferInsert) {
  return (await tx.insert(cfcRanges).values(values).returning())[0];
}

export async function updateRange(tx: DbOrTx, id: number, values: Partial<typeof cfcRanges.$inferInsert>) {
  return (await tx.update(cfcRanges).set({ ...values, updatedAt: new Date() }).where(eq(cfcRanges.id, id)).returning())[0];
}

/** `lock`: 'update' for edits, 'share' for reservations (an edit waits for them and vice versa). */
export async function findRange(tx: DbOrTx, id: number, lock?: 'update' | 'share') {
  const q = tx.select().from(cfcRanges).where(eq(cfcRanges.id, id));
  const [row] = lock === 'update' ? await q.for('update') : lock === 'share' ? await q.for('share') : await q;
  return row;
}

/** The range holding a number (ranges of one type+serie never overlap, so at most one). */
export async function rangeHolding(tx: DbOrTx, k: Key & { numero: number }, lock?: 'share') {
  const q = tx.select().from(cfcRanges).where(and(eq(cfcRanges.companyId, k.companyId), eq(cfcRanges.tipoCfc, k.tipoCfc), eq(cfcRanges.serie, k.serie), lte(cfcRanges.dNro, k.numero), gte(cfcRanges.hNro, k.numero))).limit(1);
  const [row] = lock ? await q.for('share') : await q;
  return row;
}

export async function isUsed(tx: DbOrTx, rangeId: number, numero: number) {
  const [row] = await tx.select({ n: cfcUsedNumbers.numero }).from(cfcUsedNumbers).where(and(eq(cfcUsedNumbers.cfcRangeId, rangeId), eq(cfcUsedNumbers.numero, numero)));
  return Boolean(row);
}

/** True when the number was free and is now marked used (the primary key makes it once only). */
export async function markUsed(tx: DbOrTx, range: { id: number; companyId: number }, numero: number) {
  const rows = await tx.insert(cfcUsedNumbers).values({ cfcRangeId: range.id, companyId: range.companyId, numero }).onConflictDoNothing().returning();
  return rows.length === 1;
}

export async function usedStats(tx: DbOrTx, rangeId: number) {
  const [row] = await tx.select({ total: count(), lo: min(cfcUsedNumbers.numero), hi: max(cfcUsedNumbers.numero) }).from(cfcUsedNumbers).where(eq(cfcUsedNumbers.cfcRangeId, rangeId));
  return { total: row?.total ?? 0, lo: row?.lo ?? null, hi: row?.hi ?? null };
}

export async function listRanges(tx: DbOrTx, f: { companyId: number; tipoCfc?: number; serie?: string }, paging: Paging) {
  const conds: SQL[] = [eq(cfcRanges.companyId, f.companyId)];
  if (f.tipoCfc !== undefined) conds.push(eq(cfcRanges.tipoCfc, f.tipoCfc));
  if (f.serie) conds.push(eq(cfcRanges.serie, f.serie));
  const where = and(...conds);
  const used = sql<number>`(select count(*)::int from cfc_used_numbers u where u.cfc_range_id = ${cfcRanges.id})`;
  const rows = await tx.select({ range: cfcRanges, used }).from(cfcRanges).where(where).orderBy(asc(cfcRanges.tipoCfc), asc(cfcRanges.serie), asc(cfcRanges.dNro)).offset(paging.start).limit(paging.length);
  const [{ total }] = await tx.select({ total: count() }).from(cfcRanges).where(where);
  return { rows, total };
}
