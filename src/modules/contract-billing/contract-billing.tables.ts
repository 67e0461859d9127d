import { bigserial, boolean, date, index, integer, jsonb, numeric, pgTable, primaryKey, serial, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { timestamps } from '../../platform/db/columns.js';
import type { RulesState, TransitionCause, UsageRule } from '../contract-rules/usage-rules.js';
import type { RatingResult } from '../price-books/rating.js';

/**
 * Billing terms of a usage contract (issue 34 point 2), one row per contract of issue 33's
 * `usage_contracts` (no foreign key across modules: the contract id is checked through the usage
 * service). `rulesState` is what the rule evaluator left (reached/lifted rules, period key);
 * `openPeriodStart` is the first period not yet closed into a CFE.
 */
export const contractTerms = pgTable('contract_terms', {
  contractId: integer().primaryKey(),
  companyId: integer().notNull(),
  /** A pinned price-book version, or null to follow the version of `priceBookCode` in force on the period's first day. */
  priceBookVersionId: integer(),
  priceBookCode: text().notNull(),
  /** Day of the month periods start on (1-31; 31 = the month's last day when shorter), in America/Montevideo. */
  anchorDay: integer().notNull().default(1),
  cfeType: integer().notNull(),
  codComercio: text().notNull(),
  codTerminal: text().notNull(),
  paymentTerm: integer().notNull().default(2),
  rules: jsonb().$type<UsageRule[]>().notNull().default([]),
  rulesState: jsonb().$type<RulesState>().notNull(),
  /** An operator's suspension (action suspender): holds the contract suspended whatever the rules say, until reanudar. */
  manualSuspension: boolean().notNull().default(false),
  stateCause: jsonb().$type<TransitionCause | { tipo: 'alta' }>(),
  openPeriodStart: date({ mode: 'string' }).notNull(),
  /** Set by the close's check (issue 40 point 2) when the open period was due and no close claimed it; null when fine. */
  closeAlert: text(),
  ...timestamps,
}, (t) => [index('contract_terms_due_idx').on(t.openPeriodStart, t.contractId)]);

/** Every state transition of a contract with its cause (GET /contracts/{id}/status-history). */
export const contractStateHistory = pgTable('contract_state_history', {
  id: serial().primaryKey(),
  contractId: integer().notNull(),
  companyId: integer().notNull(),
  fromState: text().notNull(),
  toState: text().notNull(),
  at: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
  cause: jsonb().$type<TransitionCause>().notNull(),
}, (t) => [index('contract_state_history_contract_idx').on(t.contractId, t.at, t.id)]);

export const periodStatuses = ['pendiente', 'emitido', 'sin_consumo', 'error'] as const;
export type PeriodStatus = (typeof periodStatuses)[number];

/**
 * One row per (contract, period): the primary key is what makes a period billed once, together with
 * the Idempotency-Key `periodIdempotencyKey(contract, periodStart)` handed to emission.
 * `rating` is the rating the CFE was built from; corrections compare against it and replace it.
 */
export const contractPeriods = pgTable('contract_periods', {
  contractId: integer().notNull(),
  periodStart: date({ mode: 'string' }).notNull(),
  periodEnd: date({ mode: 'string' }).notNull(),
  companyId: integer().notNull(),
  status: text({ enum: periodStatuses }).notNull().default('pendiente'),
  issuedCfeId: integer(),
  total: numeric(),
  rating: jsonb().$type<RatingResult>(),
  versionId: integer(),
  error: text(),
  /** Corrections completed; the next one's notes carry seq = correctionSeq + 1 in their Idempotency-Key. */
  correctionSeq: integer().notNull().default(0),
  closedAt: timestamp({ withTimezone: true, mode: 'date' }),
  /**
   * Until when an issue job is known to be working on this `pendiente` row (set when queued, renewed
   * while the job runs). A row past it is re-queued by the recovery sweep (issue 40 point 4), so a
   * job left locked by a killed process does not hold its periods for graphile-worker's 4 hours.
   */
  leaseUntil: timestamp({ withTimezone: true, mode: 'date' }),
  /** Last time an event was accepted for this period after it closed (issue 40 point 6). */
  lateUsageAt: timestamp({ withTimezone: true, mode: 'date' }),
  /** Last correction that took the late usage into account. */
  lateCorrectedAt: timestamp({ withTimezone: true, mode: 'date' }),
  ...timestamps,
}, (t) => [primaryKey({ columns: [t.contractId, t.periodStart] }), index('contract_periods_pending_idx').on(t.leaseUntil).where(sql`${t.status} = 'pendiente'`)]);

/** Credit and debit notes issued for late corrections of a closed period, in order (`seq` feeds their Idempotency-Key). */
export const contractPeriodNotes = pgTable('contract_period_notes', {
  contractId: integer().notNull(),
  /** The contract's company: the distribution column of a sharded database (docs/DEPLOYMENT.md). */
  companyId: integer().notNull(),
  periodStart: date({ mode: 'string' }).notNull(),
  seq: integer().notNull(),
  kind: text({ enum: ['credito', 'debito'] }).notNull(),
  issuedCfeId: integer().notNull(),
  amount: numeric().notNull(),
  createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.contractId, t.periodStart, t.seq, t.kind] })]);

/**
 * "This contract's usage rules need an evaluation" (issue 45: evaluation-queue.ts), written by the
 * ingesting process BEFORE the batch's events are stored and deleted once an evaluation that began
 * after they committed has run. One row per (contract, process): `owner` is the evaluation queue's
 * random id, so a process only ever deletes its own marks (or, after `STALE_MS`, any process a dead
 * one's). `generation` takes a new value of one sequence at every write, so a delete that names the
 * generation it saw leaves a mark written again since. `markedAt`: the last write; a mark older than
 * STALE_MS is taken over by the sweep of any live process. No index beyond the key: the table holds
 * the contracts touched in the last seconds, and an index on `markedAt` would make every rewrite a
 * non-HOT update.
 */
export const ruleEvaluationMarks = pgTable('rule_evaluation_marks', {
  contractId: integer().notNull(),
  owner: uuid().notNull(),
  /** The contract's company (the sharding key, docs/DEPLOYMENT.md), copied from its terms. */
  companyId: integer().notNull(),
  generation: bigserial({ mode: 'number' }).notNull(),
  markedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.contractId, t.owner] })]);
