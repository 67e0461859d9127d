import { index, integer, jsonb, pgTable, serial, text, timestamp, varchar } from 'drizzle-orm/pg-core';
import { companies } from '../companies/companies.tables.js';

/**
 * Runs of DGI's "Prueba de Testing" set (issue 47, BRIEF 13): one row per run, its progress while it
 * runs and the final report (dgi-testing.report.ts) when it ends. `estado`: en_curso, completado
 * (every step done; the report says whether DGI's requirements are met), no_listo (the preflight
 * found problems; nothing was issued), error (stopped by an unexpected failure; `error` says why).
 */
export const dgiTestingRuns = pgTable(
  'dgi_testing_runs',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id, { onDelete: 'cascade' }),
    /** 'simulador' or 'dgi_testing' (DGI_MODE=real). */
    destino: varchar({ length: 20 }).notNull(),
    /** Receipts per type asked for (50 = DGI's minimum). */
    cantidadPorTipo: integer().notNull(),
    estado: varchar({ length: 20 }).notNull().default('en_curso'),
    /** The last progress line printed. */
    progreso: text(),
    reporte: jsonb(),
    error: text(),
    startedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    finishedAt: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [index('dgi_testing_runs_company_idx').on(t.companyId, t.id)],
);

export type DgiTestingRunRow = typeof dgiTestingRuns.$inferSelect;
