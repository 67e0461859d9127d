import { and, asc, count, desc, eq, gte, inArray, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { recurringPlans, recurringPlanVersions, recurringRuns, type PlanRow, type RunRow } from './recurring.tables.js';

export type NewPlan = typeof recurringPlans.$inferInsert;
export type NewRun = typeof recurringRuns.$inferInsert;

export async function insertPlan(tx: DbOrTx, values: NewPlan, userId: number | null): Promise<PlanRow> {
  const [row] = await tx.insert(recurringPlans).values(values).returning();
  await tx.insert(recurringPlanVersions).values({ planId: row.id, companyId: row.companyId, version: row.version, definicion: row.definicion, userId });
  return row;
}

export async function insertVersion(tx: DbOrTx, row: PlanRow, userId: number | null) {
  await tx.insert(recurringPlanVersions).values({ planId: row.id, companyId: row.companyId, version: row.version, definicion: row.definicion, userId });
}

export async function findPlan(db: DbOrTx, id: number): Promise<PlanRow | undefined> {
  const [row] = await db.select().from(recurringPlans).where(eq(recurringPlans.id, id));
  return row;
}

export async function lockPlan(tx: DbOrTx, id: number): Promise<PlanRow | undefined> {
  const [row] = await tx.select().from(recurringPlans).where(eq(recurringPlans.id, id)).for('update');
  return row;
}

export async function updatePlan(tx: DbOrTx, id: number, set: Partial<NewPlan>): Promise<PlanRow> {
  const [row] = await tx.update(recurringPlans).set({ ...set, updatedAt: sql`now()` }).where(eq(recurringPlans.id, id)).returning();
  return row;
}

export interface PlanFilters {
  estado?: string;
  /** Each entry: plans whose receiver is one of these customers OR has one of these documents (entries AND-ed). */
  receivers?: Array<{ customerIds: number[]; documentos: string[] }>;
  nextFrom?: Date;
  nextTo?: Date;
}

export async function searchPlans(db: DbOrTx, companyId: number, f: PlanFilters, paging: Paging) {
  const where: SQL[] = [eq(recurringPlans.companyId, companyId)];
  if (f.estado) where.push(eq(recurringPlans.estado, f.estado as PlanRow['estado']));
  for (const r of f.receivers ?? []) {
    const any = [
      ...(r.customerIds.length ? [inArray(recurringPlans.customerId, r.customerIds)] : []),
      ...(r.documentos.length ? [inArray(recurringPlans.documentoReceptor, r.documentos)] : []),
    ];
    where.push(any.length ? or(...any)! : sql`false`);
  }
  if (f.nextFrom) where.push(gte(recurringPlans.nextRunAt, f.nextFrom));
  if (f.nextTo) where.push(lte(recurringPlans.nextRunAt, f.nextTo));
  const cond = and(...where);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(recurringPlans).where(cond).orderBy(asc(recurringPlans.id)).limit(paging.length).offset(paging.start),
    db.select({ total: count() }).from(recurringPlans).where(cond),
  ]);
  return { rows, total };
}

export async function listVersions(db: DbOrTx, planId: number) {
  return db.select().from(recurringPlanVersions).where(eq(recurringPlanVersions.planId, planId)).orderBy(asc(recurringPlanVersions.version));
}

export async function lastRuns(db: DbOrTx, planIds: number[]): Promise<Map<number, RunRow>> {
  if (!planIds.length) return new Map();
  const rows = await db.selectDistinctOn([recurringRuns.planId]).from(recurringRuns)
    .where(inArray(recurringRuns.planId, planIds)).orderBy(recurringRuns.planId, desc(recurringRuns.periodoDesde));
  return new Map(rows.map((r: RunRow) => [r.planId, r]));
}

/** Active plans whose next run has come, locked; a plan another scheduler holds is skipped. */
export async function lockDuePlans(tx: DbOrTx, now: Date, limit: number): Promise<PlanRow[]> {
  return tx.select().from(recurringPlans)
    .where(and(eq(recurringPlans.estado, 'activo'), lte(recurringPlans.nextRunAt, now)))
    .orderBy(asc(recurringPlans.nextRunAt)).limit(limit).for('update', { skipLocked: true });
}

export async function lockPausedToResume(tx: DbOrTx, now: Date, limit: number): Promise<PlanRow[]> {
  return tx.select().from(recurringPlans)
    .where(and(eq(recurringPlans.estado, 'pausado'), lte(recurringPlans.pausedUntil, now)))
    .limit(limit).for('update', { skipLocked: true });
}

/** Inserts run rows (in chunks under PostgreSQL's parameter limit); an existing key (plan, periodoDesde) is left as it is. Returns the new ones. */
export async function insertRuns(tx: DbOrTx, values: NewRun[]): Promise<RunRow[]> {
  const out: RunRow[] = [];
  for (let i = 0; i < values.length; i += 1000) {
    out.push(...(await tx.insert(recurringRuns).values(values.slice(i, i + 1000)).onConflictDoNothing({ target: [recurringRuns.planId, recurringRuns.periodoDesde] }).returning()));
  }
  return out;
}

/** One UPDATE for many plans: next index, next run time, state (finalizado clears the pause). */
export async function movePlans(tx: DbOrTx, moves: Array<{ id: number; nextIndex: number; nextRunAt: Date | null; estado: string }>) {
  if (!moves.length) return;
  const values = sql.join(moves.map((m) => sql`(${m.id}::int, ${m.nextIndex}::int, ${m.nextRunAt?.toISOString() ?? null}::timestamptz, ${m.estado}::varchar)`), sql`, `);
  await tx.execute(sql`
    update recurring_plans p set next_index = v.next_index, next_run_at = v.next_run_at, estado = v.estado,
      paused_until = case when v.estado = 'finalizado' then null else p.paused_until end, updated_at = now()
    from (values ${values}) as v(id, next_index, next_run_at, estado) where p.id = v.id`);
}

/** Records issued runs in one UPDATE (only those still pending / failed); returns the rows changed. */
export async function finishIssued(tx: DbOrTx, items: Array<{ id: number; cfeId: number; tipoCfe: number; serie: string; numero: number; intento: number }>, now: Date): Promise<RunRow[]> {
  if (!items.length) return [];
  const values = sql.join(items.map((i) => sql`(${i.id}::int, ${i.cfeId}::int, ${i.tipoCfe}::int, ${i.serie}::varchar, ${i.numero}::int, ${i.intento}::int)`), sql`, `);
  const r = await tx.execute<{ id: number }>(sql`
    update recurring_runs r set resultado = 'emitido', cfe_id = v.cfe_id, tipo_cfe = v.tipo_cfe, serie = v.serie, numero = v.numero, intento = v.intento,
      ejecutada_en = ${now.toISOString()}::timestamptz, codigo = null, motivo = null, proximo_intento = null, lease_until = null, updated_at = now()
    from (values ${values}) as v(id, cfe_id, tipo_cfe, serie, numero, intento)
    where r.id = v.id and r.resultado in ('pendiente', 'fallido') returning r.id`);
  const ids = (r.rows as Array<{ id: number }>).map((x) => Number(x.id));
  return ids.length ? tx.select().from(recurringRuns).where(inArray(recurringRuns.id, ids)) : [];
}

/**
 * Takes up to `limit` runs to issue (pending, or failed with a retry due) whose lease is free, and
 * leases them for `leaseMs`: a second scheduler skips them (and would replay the same
 * Idempotency-Key anyway). Leases are in the database's own time, not the plans' clock (which the
 * sandbox moves and a restart resets): they measure whether a worker is alive, not the schedule.
 * The worker renews them while it issues (renewLeases); a crashed worker's expire within `leaseMs`.
 */
export async function leaseWork(db: DbOrTx, now: Date, leaseMs: number, limit: number): Promise<RunRow[]> {
  const result = await db.execute<{ id: number }>(sql`
    update recurring_runs r set lease_until = clock_timestamp() + ${leaseMs} * interval '1 millisecond'
    where r.id in (
      select id from recurring_runs
      where resultado in ('pendiente', 'fallido') and proximo_intento <= ${now.toISOString()}::timestamptz
        and (lease_until is null or lease_until < clock_timestamp())
      order by proximo_intento limit ${limit}
      for update skip locked)
    returning r.id`);
  const ids = (result.rows as Array<{ id: number }>).map((r) => Number(r.id));
  if (!ids.length) return [];
  return db.select().from(recurringRuns).where(inArray(recurringRuns.id, ids)).orderBy(asc(recurringRuns.id));
}

/** Leases one run to the caller, in its transaction (the run it has just written for an action). */
export async function holdRun(tx: DbOrTx, id: number, leaseMs: number): Promise<void> {
  await tx.execute(sql`update recurring_runs set lease_until = clock_timestamp() + ${leaseMs} * interval '1 millisecond' where id = ${id}`);
}

/** The heartbeat of a worker issuing runs: extends its leases of the runs still unrecorded; returns the new expiry. */
export async function renewLeases(db: DbOrTx, ids: number[], leaseMs: number): Promise<Date | undefined> {
  if (!ids.length) return undefined;
  const r = await db.execute<{ until: string | Date }>(sql`
    update recurring_runs set lease_until = clock_timestamp() + ${leaseMs} * interval '1 millisecond'
    where id = any(${`{${ids.join(',')}}`}::int[]) and resultado in ('pendiente', 'fallido') returning lease_until as until`);
  const until = (r.rows as Array<{ until: string | Date }>)[0]?.until;
  return until ? new Date(until) : undefined;
}

export async function findRun(db: DbOrTx, planId: number, periodoDesde: string): Promise<RunRow | undefined> {
  const [row] = await db.select().from(recurringRuns).where(and(eq(recurringRuns.planId, planId), eq(recurringRuns.periodoDesde, periodoDesde))).for('update');
  return row;
}

export async function getRun(db: DbOrTx, id: number): Promise<RunRow | undefined> {
  const [row] = await db.select().from(recurringRuns).where(eq(recurringRuns.id, id));
  return row;
}

export async function updateRun(tx: DbOrTx, id: number, set: Partial<NewRun>): Promise<RunRow> {
  const [row] = await tx.update(recurringRuns).set({ ...set, updatedAt: sql`now()` }).where(eq(recurringRuns.id, id)).returning();
  return row;
}

/** Only while the run is still pending / failed (a concurrent scheduler may have finished it). */
export async function finishRun(tx: DbOrTx, id: number, set: Partial<NewRun>): Promise<RunRow | undefined> {
  const [row] = await tx.update(recurringRuns).set({ ...set, leaseUntil: null, updatedAt: sql`now()` })
    .where(and(eq(recurringRuns.id, id), inArray(recurringRuns.resultado, ['pendiente', 'fallido']))).returning();
  return row;
}

export async function foldedInto(tx: DbOrTx, runId: number, set: Partial<NewRun>) {
  await tx.update(recurringRuns).set({ ...set, updatedAt: sql`now()` }).where(eq(recurringRuns.acumuladaEn, runId));
}

export async function issuedRunsOfCfes(tx: DbOrTx, cfeIds: number[]): Promise<RunRow[]> {
  if (!cfeIds.length) return [];
  return tx.select().from(recurringRuns).where(and(inArray(recurringRuns.cfeId, cfeIds), eq(recurringRuns.resultado, 'emitido'))).for('update');
}

export interface HistoryFilters {
  planId?: number;
  resultado?: string;
  from?: Date;
  to?: Date;
}

export async function history(db: DbOrTx, companyId: number, f: HistoryFilters, paging: Paging) {
  const where: SQL[] = [eq(recurringRuns.companyId, companyId)];
  if (f.planId) where.push(eq(recurringRuns.planId, f.planId));
  if (f.resultado) where.push(eq(recurringRuns.resultado, f.resultado as RunRow['resultado']));
  if (f.from) where.push(gte(recurringRuns.programadaPara, f.from));
  if (f.to) where.push(lt(recurringRuns.programadaPara, f.to));
  const cond = and(...where);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(recurringRuns).where(cond).orderBy(desc(recurringRuns.programadaPara), desc(recurringRuns.id)).limit(paging.length).offset(paging.start),
    db.select({ total: count() }).from(recurringRuns).where(cond),
  ]);
  return { rows, total };
}
