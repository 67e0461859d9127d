import { sql } from 'drizzle-orm';
import { bigserial, date, index, integer, jsonb, pgTable, smallint, text, timestamp, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { companies } from '../companies/companies.tables.js';

/**
 * Daily reports (BRIEF 9; FREP v13.2): one row per generated Reporte, signed, with DGI's
 * synchronous ACKRepDiario. A correction is a new row with SecEnvio + 1; the row it supersedes
 * stays for the audit trail.
 *
 * estado: 'pendiente' (generated, waiting to be sent or retried), 'enviando' (claimed by a sender
 * until `leaseUntil`, which its heartbeat extends while the SOAP call lasts), 'aceptado' (AR),
 * 'rechazado' (BR/BA, R-codes in `motivos`), 'error' (DGI fault that retrying cannot fix),
 * 'reemplazado' (a pending report superseded by a regeneration before it was sent).
 */
export const REPORT_STATES = ['pendiente', 'enviando', 'aceptado', 'rechazado', 'error', 'reemplazado'] as const;
export type ReportState = (typeof REPORT_STATES)[number];

export const dailyReports = pgTable(
  'daily_reports',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    fechaResumen: date({ mode: 'string' }).notNull(),
    secEnvio: smallint().notNull(),
    estado: varchar({ length: 12 }).$type<ReportState>().notNull().default('pendiente'),
    /** 'cron' (the daily task) or 'manual' (POST /api/v1/reportediario/regenerar). */
    origen: varchar({ length: 10 }).$type<'cron' | 'manual'>().notNull(),
    cantComprobantes: integer().notNull(),
    /** Per block: { tipoComp, cantDocsUtil?, cantDocsAnulados?, cantDocsEmi?, cantCfcEmi? }. */
    resumen: jsonb().notNull(),
    tmstFirmaEnv: text().notNull(),
    xml: text().notNull(),
    fileName: text().notNull(),
    ackEstado: varchar({ length: 2 }),
    /** [{ codigo, glosa, detalle }] of ACKRepDiario/MotivosRechazo. */
    motivos: jsonb(),
    ackXml: text(),
    /** DGI's id of the report (ACKRepDiario Caratula IDReceptor), for EFACCONSULTARRESPUESTAREPORTE. */
    idReceptor: text(),
    intentos: integer().notNull().default(0),
    ultimoError: text(),
    userId: integer(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** When the last send attempt started (the claim). */
    enviadoEn: timestamp({ withTimezone: true, mode: 'date' }),
    /**
     * While 'enviando': the sender's lease (database time). Renewed by the sender's heartbeat; once it
     * is past, the sender is taken for dead and another may claim the row. Null in every other state.
     */
    leaseUntil: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('daily_reports_company_date_idx').on(t.companyId, t.fechaResumen, t.secEnvio),
    // DGI keeps one accepted report per SecEnvio (R05): never two accepted rows with one number.
    uniqueIndex('daily_reports_accepted_uq').on(t.companyId, t.fechaResumen, t.secEnvio).where(sql`${t.estado} = 'aceptado'`),
  ],
);

export type DailyReportRow = typeof dailyReports.$inferSelect;
