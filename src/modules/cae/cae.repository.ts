import { and, asc, count, eq, gte, isNull, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { caeRanges, caeVoidedNumbers } from './cae.tables.js';

export type CaeRangeRow = typeof caeRanges.$inferSelect;

export interface ReservedNumber {
  caeRangeId: number;
  serie: string;
  numero: number;
  cae: { NA: string; DNro: number; HNro: number; FVD: string; CAEEspecial?: number; CausalCAEEsp?: number };
}

type RangeChoice = { companyId: number; branchId: number | null; tipoCfe: number; serie: string | null; fecha: string };

/**
 * The ranges a number may come from, in the order they are used: the branch's own before the
 * company-wide ones, then the one that expires first, then the lowest numbers. Shared by both
 * reservations below so they always agree on which range is next.
 */
const usableRanges = (p: RangeChoice) => sql`
  from cae_ranges
  where company_id = ${p.companyId} and tipo_cfe = ${p.tipoCfe}
    and (${p.serie}::varchar is null or serie = ${p.serie}::varchar)
    and (branch_id = ${p.branchId}::integer or branch_id is null)
    and annulled_at is null and fvd >= ${p.fecha}::date and next_number <= h_nro
  order by (branch_id is null), fvd, d_nro, id`;

/** The day's usage of the range a CTE named `reserved` (columns id, taken) just advanced. */
const countDailyUsage = (p: RangeChoice) => sql`
  insert into cae_daily_usage (cae_range_id, company_id, fecha, cantidad)
  select id, ${p.companyId}::integer, ${p.fecha}::date, taken from reserved
  on conflict (cae_range_id, fecha) do update set cantidad = cae_daily_usage.cantidad + excluded.cantidad`;

/**
 * One statement: lock the chosen range, advance its cursor by up to `count` numbers and count the
 * day's usage. The row lock serializes concurrent callers; a rollback of the caller's transaction
 * gives the numbers back. Returns the first number and how many were taken (fewer than `count` when
 * the range runs out: the caller asks again and the next range is chosen).
 */
export async function reserveBlockFromBestRange(tx: DbOrTx, p: RangeChoice, count: number): Promise<{ first: ReservedNumber; taken: number } | undefined> {
  const result = await tx.execute(sql`
    with target as (
      select id, next_number as old_next, least(${count}::integer, h_nro - next_number + 1) as taken ${usableRanges(p)}
      limit 1
      for update
    ), reserved as (
      update cae_ranges r set next_number = r.next_number + target.taken, updated_at = now()
      from target where r.id = target.id and target.taken > 0
      returning r.id, r.serie, target.old_next as numero, target.taken, r.cae_number, r.d_nro, r.h_nro, r.fvd, r.cae_especial, r.causal_cae_esp
    ), usage as (${countDailyUsage(p)})
    select * from reserved`);
  const row = result.rows[0] as Record<string, unknown> | undefined;
  if (!row) return undefined;
  return {
    taken: Number(row.taken),
    first: {
      caeRangeId: Number(row.id),
      serie: String(row.serie),
      numero: Number(row.numero),
      cae: {
        NA: String(row.cae_number),
        DNro: Number(row.d_nro),
        HNro: Number(row.h_nro),
        FVD: typeof row.fvd === 'string' ? row.fvd : toDate(row.fvd as Date),
        ...(row.cae_especial != null ? { CAEEspecial: Number(row.cae_especial) } : {}),
        ...(row.causal_cae_esp != null ? { CausalCAEEsp: Number(row.causal_cae_esp) } : {}),
      },
    },
  };
}

/**
 * CTEs (`reserved`, `usage`) for a caller's single statement that takes EXACTLY numbers
 * first..first+count-1 of range `caeRangeId`, only if that range is still the one
 * reserveBlockFromBestRange would choose and `first` is still its next number. `reserved` yields
 * one row (id) when taken and none otherwise; the caller conditions the rest of its statement on it.
 * Waiting for the row lock re-checks the cursor against the committed row (READ COMMITTED).
 */
export function exactBlockCtes(p: RangeChoice, block: { caeRangeId: number; first: number; count: number }): SQL {
  return sql`reserved as (
      update cae_ranges r set next_number = r.next_number + ${block.count}::integer, updated_at = now()
      where r.id = ${block.caeRangeId}::integer and r.next_number = ${block.first}::integer
        and r.next_number + ${block.count}::integer - 1 <= r.h_nro
        and r.id = (select id ${usableRanges(p)} limit 1)
      returning r.id, ${block.count}::integer as taken
    ), usage as (${countDailyUsage(p)})`;
}

/**
 * Claims the next `count` numbers of a range for a process that signs ahead (cae.tables.ts
 * caeRangeClaims): the first one after every earlier claim and after the range's cursor, or
 * undefined when the range cannot hold them. Its own short statement: it waits only for another
 * claim of the same range, never for the range row's lock held by a storing emission.
 */
export async function claimBlock(db: DbOrTx, caeRangeId: number, count: number): Promise<number | undefined> {
  const result = await db.execute(sql`
    with range as (
      select company_id, next_number, h_nro from cae_ranges where id = ${caeRangeId}::integer and annulled_at is null
    ), claimed as (
      insert into cae_range_claims as c (company_id, cae_range_id, next_free)
      select company_id, ${caeRangeId}::integer, next_number + ${count}::integer from range where next_number + ${count}::integer - 1 <= h_nro
      on conflict (company_id, cae_range_id) do update set next_free = greatest(c.next_free, (select next_number from range)) + ${count}::integer
        where greatest(c.next_free, (select next_number from range)) + ${count}::integer - 1 <= (select h_nro from range)
      returning c.next_free
    )
    select next_free - ${count}::integer as first from claimed`);
  const row = result.rows[0] as { first: number } | undefined;
  return row ? Number(row.first) : undefined;
}

/** The range's cursor as committed (no lock): whose turn it is among the claims. */
export async function nextNumberOf(db: DbOrTx, caeRangeId: number): Promise<number | undefined> {
  const [row] = await db.select({ next: caeRanges.nextNumber }).from(caeRanges).where(eq(caeRanges.id, caeRangeId));
  return row?.next;
}

/**
 * Forgets every outstanding claim of a range: the next claim starts at the range's cursor. For a
 * claim that was never stored (its process died, a receipt of it failed), which otherwise holds
 * every later claim back; the owners of the claims forgotten find their numbers taken and reseal.
 */
export async function resetClaims(db: DbOrTx, caeRangeId: number): Promise<void> {
  await db.execute(sql`update cae_range_claims set next_free = r.next_number from cae_ranges r where r.id = ${caeRangeId}::integer and cae_range_claims.company_id = r.company_id and cae_range_claims.cae_range_id = r.id`);
}

function toDate(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/**
 * Serializes imports of one (company, type, serie) until the transaction ends, so two concurrent
 * imports cannot both pass the overlap check (same scheme as cfc.repository lockSeries).
 */
export async function lockSeries(tx: DbOrTx, k: { companyId: number; tipoCfe: number; serie: string }) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`cae:${k.companyId}:${k.tipoCfe}:${k.serie}`}))`);
}

/** A range of the company, type and serie that is not voided and shares a number with desde..hasta (any branch, expired too). */
export async function findOverlap(tx: DbOrTx, k: { companyId: number; tipoCfe: number; serie: string; desde: number; hasta: number }) {
  const [row] = await tx
    .select()
    .from(caeRanges)
    .where(and(eq(caeRanges.companyId, k.companyId), eq(caeRanges.tipoCfe, k.tipoCfe), eq(caeRanges.serie, k.serie), isNull(caeRanges.annulledAt), lte(caeRanges.dNro, k.hasta), gte(caeRanges.hNro, k.desde)))
    .orderBy(asc(caeRanges.dNro))
    .limit(1);
  return row;
}

export async function insertRange(db: DbOrTx, values: typeof caeRanges.$inferInsert): Promise<CaeRangeRow> {
  const [row] = await db.insert(caeRanges).values(values).returning();
  return row;
}

export async function findRange(db: DbOrTx, id: number, forUpdate = false): Promise<CaeRangeRow | undefined> {
  const q = db.select().from(caeRanges).where(eq(caeRanges.id, id));
  const [row] = forUpdate ? await q.for('update') : await q;
  return row;
}

export async function updateRange(db: DbOrTx, id: number, values: Partial<typeof caeRanges.$inferInsert>) {
  const [row] = await db.update(caeRanges).set({ ...values, updatedAt: new Date() }).where(eq(caeRanges.id, id)).returning();
  return row;
}

export async function insertVoided(db: DbOrTx, values: typeof caeVoidedNumbers.$inferInsert) {
  await db.insert(caeVoidedNumbers).values(values);
}

/** Voided-number count per range (sum of the voided sub-ranges). */
const voidedCount = sql<number>`coalesce((select sum(v.hasta - v.desde + 1) from cae_voided_numbers v where v.cae_range_id = "cae_ranges"."id"), 0)::int`;

export interface RangeFilters {
  companyId: number;
  tipoCfe?: number;
  serie?: string;
  /** true: only expired; false: only not expired; undefined: all. */
  vencidos?: boolean;
  today: string;
}

export async function listRanges(db: DbOrTx, f: RangeFilters, paging: Paging | undefined) {
  const conds: SQL[] = [eq(caeRanges.companyId, f.companyId)];
  if (f.tipoCfe !== undefined) conds.push(eq(caeRanges.tipoCfe, f.tipoCfe));
  if (f.serie !== undefined) conds.push(eq(caeRanges.serie, f.serie));
  if (f.vencidos === true) conds.push(lt(caeRanges.fvd, f.today));
  if (f.vencidos === false) conds.push(gte(caeRanges.fvd, f.today));
  const where = and(...conds);
  const q = db.select({ range: caeRanges, voided: voidedCount }).from(caeRanges).where(where).orderBy(asc(caeRanges.tipoCfe), asc(caeRanges.serie), asc(caeRanges.fvd), asc(caeRanges.id));
  const rows = paging ? await q.offset(paging.start).limit(paging.length) : await q;
  const [{ total }] = await db.select({ total: count() }).from(caeRanges).where(where);
  return { rows, total };
}

/** Usable ranges (not annulled, not expired, not exhausted) with the last 30 days of usage. */
export async function usableRangesWithUsage(db: DbOrTx, companyId: number, today: string) {
  return db
    .select({
      range: caeRanges,
      used30: sql<number>`coalesce((select sum(u.cantidad) from cae_daily_usage u where u.cae_range_id = "cae_ranges"."id" and u.fecha > ${today}::date - 30), 0)::int`,
    })
    .from(caeRanges)
    .where(and(eq(caeRanges.companyId, companyId), isNull(caeRanges.annulledAt), gte(caeRanges.fvd, today), sql`${caeRanges.nextNumber} <= ${caeRanges.hNro}`))
    .orderBy(asc(caeRanges.tipoCfe), asc(caeRanges.serie), asc(caeRanges.fvd));
}

export async function voidedOn(db: DbOrTx, companyId: number, fecha: string) {
  return db.select().from(caeVoidedNumbers).where(and(eq(caeVoidedNumbers.companyId, companyId), eq(caeVoidedNumbers.fecha, fecha))).orderBy(asc(caeVoidedNumbers.tipoCfe), asc(caeVoidedNumbers.serie), asc(caeVoidedNumbers.desde));
}

export async function branchBelongsTo(db: DbOrTx, branchId: number, companyId: number): Promise<boolean> {
  const r = await db.execute(sql`select 1 from branches where id = ${branchId} and company_id = ${companyId}`);
  return r.rows.length > 0;
}


export async function voidedCountOf(db: DbOrTx, caeRangeId: number): Promise<number> {
  const [row] = await db.select({ n: sql<number>`coalesce(sum(${caeVoidedNumbers.hasta} - ${caeVoidedNumbers.desde} + 1), 0)::int` }).from(caeVoidedNumbers).where(eq(caeVoidedNumbers.caeRangeId, caeRangeId));
  return row.n;
}
