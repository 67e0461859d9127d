/** Metrics, contracts and per-company settings of usage metering. */
import { and, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { PG_UNIQUE_VIOLATION, pgErrorCode, type DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { usageContracts, usageMetrics, usageSettings } from './usage.tables.js';

export type MetricRow = typeof usageMetrics.$inferSelect;
export type ContractRow = typeof usageContracts.$inferSelect;

export const isUniqueViolation = (err: unknown) => pgErrorCode(err) === PG_UNIQUE_VIOLATION;

export async function insertMetric(db: DbOrTx, values: typeof usageMetrics.$inferInsert): Promise<MetricRow> {
  const [row] = await db.insert(usageMetrics).values(values).returning();
  return row;
}

export async function findMetric(db: DbOrTx, id: number): Promise<MetricRow | undefined> {
  const [row] = await db.select().from(usageMetrics).where(eq(usageMetrics.id, id));
  return row;
}

export async function metricsByCode(db: DbOrTx, companyId: number, codes: string[]): Promise<MetricRow[]> {
  if (codes.length === 0) return [];
  return db.select().from(usageMetrics).where(and(eq(usageMetrics.companyId, companyId), inArray(usageMetrics.code, codes)));
}

export async function metricsByIds(db: DbOrTx, ids: number[]): Promise<MetricRow[]> {
  if (ids.length === 0) return [];
  return db.select().from(usageMetrics).where(inArray(usageMetrics.id, ids)).orderBy(usageMetrics.code);
}

export async function listMetrics(db: DbOrTx, companyId: number, paging: Paging) {
  const where = eq(usageMetrics.companyId, companyId);
  const [data, [{ total }]] = await Promise.all([
    db.select().from(usageMetrics).where(where).orderBy(usageMetrics.code).offset(paging.start).limit(paging.length),
    db.select({ total: count() }).from(usageMetrics).where(where),
  ]);
  return { data, total };
}

export async function updateMetric(db: DbOrTx, id: number, values: Partial<typeof usageMetrics.$inferInsert>): Promise<MetricRow> {
  const [row] = await db.update(usageMetrics).set({ ...values, updatedAt: new Date() }).where(eq(usageMetrics.id, id)).returning();
  return row;
}

export async function deleteMetric(db: DbOrTx, id: number): Promise<void> {
  await db.delete(usageMetrics).where(eq(usageMetrics.id, id));
}

/** Whether any usage was counted for the metric (on any contract): then its definition is frozen. */
export async function metricHasUsage(db: DbOrTx, metricId: number, contractId?: number): Promise<boolean> {
  const res = await db.execute(sql`
    select exists(select 1 from usage_contracts c join usage_rollups r on r.contract_id = c.id and r.metric_id = ${metricId}
      where c.metric_ids @> array[${metricId}]::int[] ${contractId ? sql`and c.id = ${contractId}` : sql``}) as used`);
  return (res.rows[0] as { used: boolean }).used;
}

export async function contractsUsingMetric(db: DbOrTx, metricId: number): Promise<number> {
  const [{ n }] = await db.select({ n: count() }).from(usageContracts).where(sql`${usageContracts.metricIds} @> array[${metricId}]::int[]`);
  return n;
}

export async function insertContract(db: DbOrTx, values: typeof usageContracts.$inferInsert): Promise<ContractRow> {
  const [row] = await db.insert(usageContracts).values(values).returning();
  return row;
}

export async function findContract(db: DbOrTx, id: number): Promise<ContractRow | undefined> {
  const [row] = await db.select().from(usageContracts).where(eq(usageContracts.id, id));
  return row;
}

export async function listContracts(db: DbOrTx, companyId: number, filters: { estado?: string; idCliente?: number; idExterno?: string }, paging: Paging) {
  const conds: SQL[] = [eq(usageContracts.companyId, companyId)];
  if (filters.estado) conds.push(sql`${usageContracts.state} = ${filters.estado}`);
  if (filters.idCliente) conds.push(eq(usageContracts.customerId, filters.idCliente));
  if (filters.idExterno) conds.push(eq(usageContracts.externalId, filters.idExterno));
  const where = and(...conds);
  const [data, [{ total }]] = await Promise.all([
    db.select().from(usageContracts).where(where).orderBy(desc(usageContracts.id)).offset(paging.start).limit(paging.length),
    db.select({ total: count() }).from(usageContracts).where(where),
  ]);
  return { data, total };
}

export async function updateContract(db: DbOrTx, id: number, values: Partial<typeof usageContracts.$inferInsert>): Promise<ContractRow> {
  const [row] = await db.update(usageContracts).set({ ...values, updatedAt: new Date() }).where(eq(usageContracts.id, id)).returning();
  return row;
}

export async function deleteContract(db: DbOrTx, id: number): Promise<void> {
  await db.delete(usageContracts).where(eq(usageContracts.id, id));
}

export async function graceHoursOf(db: DbOrTx, companyId: number): Promise<number | undefined> {
  const [row] = await db.select({ h: usageSettings.graceHours }).from(usageSettings).where(eq(usageSettings.companyId, companyId));
  return row?.h;
}

export async function settingsOf(db: DbOrTx, companyId: number): Promise<{ graceHours: number; lateUsagePolicy: 'marcar' | 'automatica' } | undefined> {
  const [row] = await db.select({ graceHours: usageSettings.graceHours, lateUsagePolicy: usageSettings.lateUsagePolicy }).from(usageSettings).where(eq(usageSettings.companyId, companyId));
  return row;
}

export async function setSettings(db: DbOrTx, companyId: number, values: { graceHours: number; lateUsagePolicy: 'marcar' | 'automatica' }): Promise<void> {
  await db.insert(usageSettings).values({ companyId, ...values })
    .onConflictDoUpdate({ target: usageSettings.companyId, set: { ...values, updatedAt: new Date() } });
}
