import { and, count, desc, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { dailyReports, type DailyReportRow, type ReportState } from './daily-report.tables.js';

export async function insertReport(tx: DbOrTx, values: typeof dailyReports.$inferInsert): Promise<DailyReportRow> {
  return (await tx.insert(dailyReports).values(values).returning())[0];
}

export async function findReport(db: DbOrTx, id: number): Promise<DailyReportRow | undefined> {
  return (await db.select().from(dailyReports).where(eq(dailyReports.id, id)))[0];
}

export async function reportsOf(db: DbOrTx, companyId: number, fecha: string): Promise<DailyReportRow[]> {
  return db.select().from(dailyReports).where(and(eq(dailyReports.companyId, companyId), eq(dailyReports.fechaResumen, fecha))).orderBy(desc(dailyReports.id));
}

/** Serialises generation per company and day (cron and a manual regeneration may race). */
export async function lockDay(tx: DbOrTx, companyId: number, fecha: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${companyId}::int, ${Number(fecha.replace(/-/g, ''))}::int)`);
}

export async function updateReport(db: DbOrTx, id: number, changes: Partial<typeof dailyReports.$inferInsert>): Promise<DailyReportRow | undefined> {
  return (await db.update(dailyReports).set(changes).where(eq(dailyReports.id, id)).returning())[0];
}

/**
 * A sender's outcome, written only while its claim (`intentos`) still holds the row: a sender that
 * stalled past its lease and was taken over leaves the row to the one that took it. Clears the lease.
 */
export async function finishSend(db: DbOrTx, id: number, intentos: number, changes: Partial<typeof dailyReports.$inferInsert>): Promise<DailyReportRow | undefined> {
  return (
    await db.update(dailyReports).set({ ...changes, leaseUntil: null })
      .where(and(eq(dailyReports.id, id), eq(dailyReports.estado, 'enviando'), eq(dailyReports.intentos, intentos)))
      .returning()
  )[0];
}

/**
 * 'pendiente', or an 'enviando' whose lease ran out (its sender died), → 'enviando' leased for
 * `leaseMs` in database time; undefined when a live sender holds it or nothing is left to send.
 * `intentos` is the claim's number: the heartbeat renews only the lease of its own claim.
 */
export async function claimForSending(db: DbOrTx, id: number, leaseMs: number): Promise<DailyReportRow | undefined> {
  return (
    await db
      .update(dailyReports)
      .set({ estado: 'enviando', enviadoEn: new Date(), leaseUntil: sql`clock_timestamp() + ${leaseMs} * interval '1 millisecond'`, intentos: sql`${dailyReports.intentos} + 1` })
      .where(and(eq(dailyReports.id, id), sql`(${dailyReports.estado} = 'pendiente' or (${dailyReports.estado} = 'enviando' and (${dailyReports.leaseUntil} is null or ${dailyReports.leaseUntil} < clock_timestamp())))`))
      .returning()
  )[0];
}

/** The sender's heartbeat: extends the lease of its claim (`intentos`) while the row is still 'enviando'; returns the new expiry. */
export async function renewLease(db: DbOrTx, id: number, intentos: number, leaseMs: number): Promise<Date | undefined> {
  return (
    await db
      .update(dailyReports)
      .set({ leaseUntil: sql`clock_timestamp() + ${leaseMs} * interval '1 millisecond'` })
      .where(and(eq(dailyReports.id, id), eq(dailyReports.estado, 'enviando'), eq(dailyReports.intentos, intentos)))
      .returning({ leaseUntil: dailyReports.leaseUntil })
  )[0]?.leaseUntil ?? undefined;
}

export async function supersedePending(tx: DbOrTx, companyId: number, fecha: string): Promise<void> {
  await tx.update(dailyReports).set({ estado: 'reemplazado' }).where(and(eq(dailyReports.companyId, companyId), eq(dailyReports.fechaResumen, fecha), eq(dailyReports.estado, 'pendiente')));
}

export interface ReportFilters {
  idEmpresa: number;
  fechaDesde?: string;
  fechaHasta?: string;
  estado?: ReportState;
}

export async function listReports(db: DbOrTx, f: ReportFilters, paging: Paging) {
  const conds: SQL[] = [eq(dailyReports.companyId, f.idEmpresa)];
  if (f.fechaDesde) conds.push(gte(dailyReports.fechaResumen, f.fechaDesde));
  if (f.fechaHasta) conds.push(lte(dailyReports.fechaResumen, f.fechaHasta));
  if (f.estado) conds.push(eq(dailyReports.estado, f.estado));
  const where = and(...conds);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(dailyReports).where(where).orderBy(desc(dailyReports.fechaResumen), desc(dailyReports.id)).offset(paging.start).limit(paging.length),
    db.select({ total: count() }).from(dailyReports).where(where),
  ]);
  return { rows, total };
}
