import { and, asc, count, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { contractPeriodNotes, contractPeriods, contractStateHistory, contractTerms } from './contract-billing.tables.js';

export type TermsRow = typeof contractTerms.$inferSelect;
export type PeriodRow = typeof contractPeriods.$inferSelect;
export type HistoryRow = typeof contractStateHistory.$inferSelect;
export type NoteRow = typeof contractPeriodNotes.$inferSelect;

export async function findTerms(db: DbOrTx, contractId: number, lock = false): Promise<TermsRow | undefined> {
  const q = db.select().from(contractTerms).where(eq(contractTerms.contractId, contractId));
  const [row] = lock ? await q.for('update') : await q;
  return row;
}

export async function upsertTerms(db: DbOrTx, values: typeof contractTerms.$inferInsert): Promise<TermsRow> {
  const { contractId: _c, companyId: _e, ...set } = values;
  const [row] = await db.insert(contractTerms).values(values)
    .onConflictDoUpdate({ target: contractTerms.contractId, set: { ...set, updatedAt: new Date() } }).returning();
  return row!;
}

export async function updateTerms(db: DbOrTx, contractId: number, values: Partial<typeof contractTerms.$inferInsert>): Promise<void> {
  await db.update(contractTerms).set({ ...values, updatedAt: new Date() }).where(eq(contractTerms.contractId, contractId));
}

export async function insertHistory(db: DbOrTx, rows: Array<typeof contractStateHistory.$inferInsert>): Promise<void> {
  if (rows.length) await db.insert(contractStateHistory).values(rows);
}

export async function listHistory(db: DbOrTx, contractId: number, from: Date | undefined, to: Date | undefined, paging: { offset: number; length: number }) {
  const where = and(eq(contractStateHistory.contractId, contractId), from ? gte(contractStateHistory.at, from) : undefined, to ? lt(contractStateHistory.at, to) : undefined);
  const [data, [{ n }]] = await Promise.all([
    db.select().from(contractStateHistory).where(where).orderBy(asc(contractStateHistory.at), asc(contractStateHistory.id)).limit(paging.length).offset(paging.offset),
    db.select({ n: count() }).from(contractStateHistory).where(where) as Promise<Array<{ n: number }>>,
  ]);
  return { data, total: Number(n) };
}

export async function lastPeriod(db: DbOrTx, contractId: number): Promise<PeriodRow | undefined> {
  const [row] = await db.select().from(contractPeriods).where(eq(contractPeriods.contractId, contractId)).orderBy(desc(contractPeriods.periodStart)).limit(1);
  return row;
}

export async function findPeriod(db: DbOrTx, contractId: number, periodStart: string, lock = false): Promise<PeriodRow | undefined> {
  const q = db.select().from(contractPeriods).where(and(eq(contractPeriods.contractId, contractId), eq(contractPeriods.periodStart, periodStart)));
  const [row] = lock ? await q.for('update') : await q;
  return row;
}

export async function findPeriods(db: DbOrTx, keys: Array<{ contractId: number; periodStart: string }>): Promise<PeriodRow[]> {
  if (!keys.length) return [];
  return db.select().from(contractPeriods).where(sql`(${contractPeriods.contractId}, ${contractPeriods.periodStart}) in
    (select x."contractId", x."periodStart" from jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) as x("contractId" int, "periodStart" date))`);
}

/** Which of these contracts have terms (the others have no rules to evaluate). */
export async function contractsWithTerms(db: DbOrTx, contractIds: number[]): Promise<number[]> {
  if (!contractIds.length) return [];
  const rows = await db.select({ id: contractTerms.contractId }).from(contractTerms).where(inArray(contractTerms.contractId, contractIds));
  return rows.map((r) => r.id);
}

export async function findTermsMany(db: DbOrTx, contractIds: number[]): Promise<TermsRow[]> {
  if (!contractIds.length) return [];
  return db.select().from(contractTerms).where(inArray(contractTerms.contractId, contractIds));
}

export async function updatePeriod(db: DbOrTx, contractId: number, periodStart: string, values: Partial<typeof contractPeriods.$inferInsert>): Promise<void> {
  await db.update(contractPeriods).set({ ...values, updatedAt: new Date() }).where(and(eq(contractPeriods.contractId, contractId), eq(contractPeriods.periodStart, periodStart)));
}

export async function notesOf(db: DbOrTx, contractId: number, periodStart: string): Promise<NoteRow[]> {
  return db.select().from(contractPeriodNotes).where(and(eq(contractPeriodNotes.contractId, contractId), eq(contractPeriodNotes.periodStart, periodStart))).orderBy(asc(contractPeriodNotes.seq), asc(contractPeriodNotes.kind));
}

export async function insertNote(db: DbOrTx, row: typeof contractPeriodNotes.$inferInsert): Promise<void> {
  await db.insert(contractPeriodNotes).values(row).onConflictDoNothing();
}

/**
 * Opens the close of every period due by `dueBefore` (its end + the company's grace), in one
 * statement per slice: inserts the (contract, period) row, moves the contract's open period on, and
 * answers what was opened. The contract's row lock (FOR UPDATE SKIP LOCKED) makes two workers split
 * the work instead of doing it twice; the primary key of contract_periods stops a repeat anyway.
 */
export async function claimDuePeriods(db: DbOrTx, candidates: Array<{ contractId: number; periodStart: string; periodEnd: string; nextStart: string; companyId: number }>, leaseSeconds: number): Promise<Array<{ contractId: number; periodStart: string }>> {
  if (!candidates.length) return [];
  const res = await db.execute(sql`
    with c as (
      select * from jsonb_to_recordset(${JSON.stringify(candidates)}::jsonb) as x("contractId" int, "periodStart" date, "periodEnd" date, "nextStart" date, "companyId" int)
    ), locked as (
      select t.contract_id, c."periodStart", c."periodEnd", c."nextStart", c."companyId" from contract_terms t join c on c."contractId" = t.contract_id and t.open_period_start = c."periodStart"
      -- Never a period overlapping one already closed (it would bill those days twice): left for the check to report.
      where not exists (select 1 from contract_periods p where p.contract_id = t.contract_id and p.period_end >= c."periodStart")
      for update of t skip locked
    ), moved as (
      update contract_terms t set open_period_start = l."nextStart", updated_at = now() from locked l where t.contract_id = l.contract_id returning t.contract_id
    )
    insert into contract_periods (contract_id, period_start, period_end, company_id, status, lease_until)
    select l.contract_id, l."periodStart", l."periodEnd", l."companyId", 'pendiente', now() + make_interval(secs => ${leaseSeconds})
    from locked l join moved m on m.contract_id = l.contract_id
    on conflict do nothing
    returning contract_id, to_char(period_start, 'YYYY-MM-DD') as period_start`);
  return (res.rows as Array<{ contract_id: number; period_start: string }>).map((r) => ({ contractId: r.contract_id, periodStart: r.period_start }));
}

/** Moves the open period on without a period row: the contract had ended before the period began, so there is nothing to bill. */
export async function skipPeriods(db: DbOrTx, items: Array<{ contractId: number; periodStart: string; nextStart: string }>): Promise<void> {
  if (!items.length) return;
  await db.execute(sql`
    update contract_terms t set open_period_start = x."nextStart", updated_at = now()
    from jsonb_to_recordset(${JSON.stringify(items)}::jsonb) as x("contractId" int, "periodStart" date, "nextStart" date)
    where t.contract_id = x."contractId" and t.open_period_start = x."periodStart"`);
}

/** Terms whose open period started before `before`, in (openPeriodStart, contractId) order after `after` (keyset paging). */
export async function termsWithOpenPeriodBefore(db: DbOrTx, before: string, after: { start: string; id: number } | null, limit: number): Promise<TermsRow[]> {
  const from = after ? sql`(${contractTerms.openPeriodStart}, ${contractTerms.contractId}) > (${after.start}::date, ${after.id})` : undefined;
  return db.select().from(contractTerms).where(and(lt(contractTerms.openPeriodStart, before), from))
    .orderBy(asc(contractTerms.openPeriodStart), asc(contractTerms.contractId)).limit(limit);
}

/** Queues the issue of claimed periods, in the claiming transaction: one job per slice of `perJob` periods (see contract-billing.jobs.ts). */
export async function enqueueIssueJobs(db: DbOrTx, jobName: string, rows: Array<{ contractId: number; periodStart: string }>, perJob: number): Promise<void> {
  if (!rows.length) return;
  const slices = [];
  for (let i = 0; i < rows.length; i += perJob) slices.push({ periods: rows.slice(i, i + perJob) });
  await db.execute(sql`select graphile_worker.add_job(${jobName}::text, x.payload::json, max_attempts => 10)
    from jsonb_array_elements(${JSON.stringify(slices)}::jsonb) as x(payload)`);
}

/** Renews the lease of the `pendiente` rows a live issue job works on (see contractPeriods.leaseUntil). */
export async function leasePeriods(db: DbOrTx, keys: Array<{ contractId: number; periodStart: string }>, leaseSeconds: number): Promise<void> {
  if (!keys.length) return;
  await db.execute(sql`update contract_periods p set lease_until = now() + make_interval(secs => ${leaseSeconds})
    from jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) as x("contractId" int, "periodStart" date)
    where p.contract_id = x."contractId" and p.period_start = x."periodStart" and p.status = 'pendiente'`);
}

/**
 * Takes up to `limit` `pendiente` rows whose lease ran out (their job died with its process, or never
 * ran) and leases them again, in one statement; the caller queues their issue in the same transaction.
 */
export async function takeExpiredPending(db: DbOrTx, limit: number, leaseSeconds: number): Promise<Array<{ contractId: number; periodStart: string }>> {
  const res = await db.execute(sql`
    with due as (
      select contract_id, period_start from contract_periods
      where status = 'pendiente' and (lease_until is null or lease_until < now())
      order by lease_until nulls first limit ${limit} for update skip locked
    )
    update contract_periods p set lease_until = now() + make_interval(secs => ${leaseSeconds}), updated_at = now()
    from due where p.contract_id = due.contract_id and p.period_start = due.period_start
    returning p.contract_id, to_char(p.period_start, 'YYYY-MM-DD') as period_start`);
  return (res.rows as Array<{ contract_id: number; period_start: string }>).map((r) => ({ contractId: r.contract_id, periodStart: r.period_start }));
}

/** Terms changed since `since`, with the last day their closed periods cover (null: none closed yet). */
export async function termsChangedSince(db: DbOrTx, since: Date): Promise<Array<{ contractId: number; companyId: number; openPeriodStart: string; closeAlert: string | null; lastClosedEnd: string | null }>> {
  const res = await db.execute(sql`
    select t.contract_id, t.company_id, to_char(t.open_period_start, 'YYYY-MM-DD') as open_start, t.close_alert,
      (select to_char(max(p.period_end), 'YYYY-MM-DD') from contract_periods p where p.contract_id = t.contract_id) as last_end
    from contract_terms t where t.updated_at >= ${since.toISOString()}::timestamptz`);
  return (res.rows as Array<{ contract_id: number; company_id: number; open_start: string; close_alert: string | null; last_end: string | null }>)
    .map((r) => ({ contractId: r.contract_id, companyId: r.company_id, openPeriodStart: r.open_start, closeAlert: r.close_alert, lastClosedEnd: r.last_end }));
}

/** Sets (or clears, with null) the close alert of contracts without touching updated_at (the check reads that). */
export async function setCloseAlerts(db: DbOrTx, alerts: Array<{ contractId: number; alert: string | null }>): Promise<void> {
  if (!alerts.length) return;
  await db.execute(sql`update contract_terms t set close_alert = x.alert
    from jsonb_to_recordset(${JSON.stringify(alerts)}::jsonb) as x("contractId" int, alert text) where t.contract_id = x."contractId"`);
}

/** A contract's periods, newest first, paged. */
export async function listPeriods(db: DbOrTx, contractId: number, paging: { start: number; length: number }) {
  const where = eq(contractPeriods.contractId, contractId);
  const [data, [{ n }]] = await Promise.all([
    db.select().from(contractPeriods).where(where).orderBy(desc(contractPeriods.periodStart)).limit(paging.length).offset(paging.start),
    db.select({ n: count() }).from(contractPeriods).where(where) as Promise<Array<{ n: number }>>,
  ]);
  const notes = data.length ? await db.select().from(contractPeriodNotes).where(and(eq(contractPeriodNotes.contractId, contractId), inArray(contractPeriodNotes.periodStart, data.map((d) => d.periodStart))))
    .orderBy(asc(contractPeriodNotes.seq), asc(contractPeriodNotes.kind)) : [];
  return { data: data.map((p) => ({ row: p, notes: notes.filter((x) => x.periodStart === p.periodStart) })), total: Number(n) };
}

/** Closed periods of a contract with late usage not yet corrected, oldest first, issued (the ones a correction can fix). */
export async function periodsWithLateUsage(db: DbOrTx, contractId: number): Promise<PeriodRow[]> {
  return db.select().from(contractPeriods).where(and(eq(contractPeriods.contractId, contractId), eq(contractPeriods.status, 'emitido'),
    sql`${contractPeriods.lateUsageAt} is not null and (${contractPeriods.lateCorrectedAt} is null or ${contractPeriods.lateCorrectedAt} < ${contractPeriods.lateUsageAt})`))
    .orderBy(asc(contractPeriods.periodStart));
}

/** `pendiente` periods of every contract, oldest first (the sandbox clock issues them in its call). */
export async function pendingPeriods(db: DbOrTx, limit: number): Promise<Array<{ contractId: number; periodStart: string }>> {
  return db.select({ contractId: contractPeriods.contractId, periodStart: contractPeriods.periodStart }).from(contractPeriods)
    .where(eq(contractPeriods.status, 'pendiente')).orderBy(asc(contractPeriods.periodStart), asc(contractPeriods.contractId)).limit(limit);
}

export async function pendingPeriodsOf(db: DbOrTx, contractId: number): Promise<Array<{ contractId: number; periodStart: string }>> {
  const rows = await db.select({ periodStart: contractPeriods.periodStart }).from(contractPeriods)
    .where(and(eq(contractPeriods.contractId, contractId), eq(contractPeriods.status, 'pendiente'))).orderBy(asc(contractPeriods.periodStart));
  return rows.map((r) => ({ contractId, periodStart: r.periodStart }));
}

/** Marks the periods late events fell in (issue 40 point 6): `days` are the events' local days. */
export async function markLateUsage(db: DbOrTx, days: Array<{ contractId: number; day: string }>): Promise<void> {
  if (!days.length) return;
  await db.execute(sql`update contract_periods p set late_usage_at = now(), updated_at = now()
    from (select distinct * from jsonb_to_recordset(${JSON.stringify(days)}::jsonb) as x("contractId" int, day date)) x
    where p.contract_id = x."contractId" and x.day between p.period_start and p.period_end`);
}
