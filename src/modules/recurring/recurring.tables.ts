import { sql } from 'drizzle-orm';
import { date, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { timestamps } from '../../platform/db/columns.js';
import { companies } from '../companies/companies.tables.js';
import type { PlanState, RunResult } from './recurring.states.js';
import type { PlanDefinition } from './recurring.schemas.js';

/** A recurring invoicing plan (issue 32). `definicion` is the current version's definition. */
export const recurringPlans = pgTable(
  'recurring_plans',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id, { onDelete: 'cascade' }),
    estado: varchar({ length: 20 }).$type<PlanState>().notNull(),
    version: integer().notNull().default(1),
    definicion: jsonb().$type<PlanDefinition>().notNull(),
    /** The receiver, copied out of the template for the search filters. */
    customerId: integer(),
    documentoReceptor: varchar({ length: 40 }),
    /** The next period index the scheduler will handle (periods before it have a run row or were passed over). */
    nextIndex: integer().notNull().default(0),
    /** When that period is due; null unless active (the scheduler's index). */
    nextRunAt: timestamp({ withTimezone: true, mode: 'date' }),
    /** Automatic resume at this instant (pausar with `hasta`): the plan is active again from it. */
    pausedUntil: timestamp({ withTimezone: true, mode: 'date' }),
    /** What the automatic resume does with the runs inside the pause (pausar's politicaReanudacion): omitir | recuperar. */
    pausePolicy: varchar({ length: 20 }).$type<'omitir' | 'recuperar'>(),
    motivoCancelacion: text(),
    ...timestamps,
  },
  (t) => [
    index('recurring_plans_company_idx').on(t.companyId, t.id),
    index('recurring_plans_due_idx').on(t.nextRunAt).where(sql`${t.estado} = 'activo'`),
    index('recurring_plans_paused_idx').on(t.pausedUntil).where(sql`${t.estado} = 'pausado'`),
  ],
);

/** Every version of a plan's definition: the history says which one produced each CFE. */
export const recurringPlanVersions = pgTable(
  'recurring_plan_versions',
  {
    planId: integer().notNull().references(() => recurringPlans.id, { onDelete: 'cascade' }),
    /** The plan's company: the distribution column of a sharded database (docs/DEPLOYMENT.md). */
    companyId: integer().notNull().references(() => companies.id, { onDelete: 'cascade' }),
    version: integer().notNull(),
    definicion: jsonb().$type<PlanDefinition>().notNull(),
    userId: integer(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.planId, t.version] })],
);

/**
 * The run ledger: one row per (plan, period start), the run key, UNIQUE. The row is written (with
 * the frozen emission request) before the CFE is issued, and its key is the emission's
 * Idempotency-Key, so two schedulers, a retry or a crash after numbering cannot issue a second CFE.
 */
export const recurringRuns = pgTable(
  'recurring_runs',
  {
    id: serial().primaryKey(),
    planId: integer().notNull().references(() => recurringPlans.id, { onDelete: 'cascade' }),
    companyId: integer().notNull(),
    version: integer().notNull(),
    periodIndex: integer().notNull(),
    periodoDesde: date({ mode: 'string' }).notNull(),
    periodoHasta: date({ mode: 'string' }).notNull(),
    /** Periods billed by this run's CFE (> 1 when emitir_uno folded missed periods into it). */
    periodos: integer().notNull().default(1),
    programadaPara: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    ejecutadaEn: timestamp({ withTimezone: true, mode: 'date' }),
    resultado: varchar({ length: 20 }).$type<RunResult>().notNull(),
    /** programada (scheduler) | manual (emitirAhora / omitirProxima) | pausa (skipped while paused). */
    origen: varchar({ length: 20 }).notNull().default('programada'),
    codigo: varchar({ length: 60 }),
    motivo: text(),
    intento: integer().notNull().default(0),
    proximoIntento: timestamp({ withTimezone: true, mode: 'date' }),
    /** A worker holds the run until then (the emission call in progress). */
    leaseUntil: timestamp({ withTimezone: true, mode: 'date' }),
    idempotencyKey: varchar({ length: 200 }),
    /** The emission request exactly as issued (replayed unchanged after a crash). */
    request: jsonb(),
    /** E-mail the issued CFE (the plan's envioEmail when the run was written): null = no mail. */
    correo: jsonb().$type<{ destinatarios?: string[] }>(),
    /** The run whose CFE billed this period (resultado acumulado). */
    acumuladaEn: integer(),
    cfeId: integer(),
    tipoCfe: integer(),
    serie: varchar({ length: 2 }),
    numero: integer(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('recurring_runs_key_uq').on(t.planId, t.periodoDesde),
    index('recurring_runs_company_idx').on(t.companyId, t.programadaPara),
    index('recurring_runs_work_idx').on(t.proximoIntento).where(sql`${t.resultado} in ('pendiente', 'fallido')`),
    index('recurring_runs_cfe_idx').on(t.cfeId),
  ],
);

export type PlanRow = typeof recurringPlans.$inferSelect;
export type RunRow = typeof recurringRuns.$inferSelect;
