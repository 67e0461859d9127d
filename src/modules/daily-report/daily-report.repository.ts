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

/** 'pendiente' (or an 'enviando' whose 5-minute lease ran out) → 'enviando'; undefined when someone else holds it. */
export async function claimForSending(db: DbOrTx, id: number): Promise<DailyReportRow | undefined> {
  return (
    await db
      .update(dailyReports)
      .set({ estado: 'enviando', enviadoEn: new Date(), intentos: sql`${dailyReports.intentos} + 1` })
      .where(and(eq(dailyReports.id, id), sql`(${dailyReports.estado} = 'pendiente' or (${dailyReports.estado} = 'enviando' and ${dailyReports.enviadoEn} < now() - interval '5 minutes'))`))
      .returning()
  )[0];
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
