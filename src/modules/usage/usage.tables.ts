import { bigint, date, index, integer, jsonb, numeric, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { timestamps } from '../../platform/db/columns.js';
import { companies } from '../companies/companies.tables.js';
import { customers } from '../customers/customers.tables.js';

export const aggregations = ['count', 'sum', 'max', 'unique_count', 'latest'] as const;
export type Aggregation = (typeof aggregations)[number];

/**
 * Contract states. Part 1 moves contracts between borrador, activo, cancelado and finalizado by hand;
 * part 2 (issue 34) adds the usage-rule transitions into en_advertencia and suspendido.
 */
// The one list of contract states, with the machine that moves them (contract-rules/contract-states.ts).
export { contractStates, type ContractState } from '../contract-rules/contract-states.js';
import { contractStates } from '../contract-rules/contract-states.js';

/** A billable metric (issue 33 point 1). Code, aggregation, property and group keys are frozen once usage exists. */
export const usageMetrics = pgTable(
  'usage_metrics',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id, { onDelete: 'cascade' }),
    /** Referred to by events and by price books (part 2) as a string. */
    code: text().notNull(),
    name: text().notNull(),
    unit: text().notNull(),
    aggregation: text({ enum: aggregations }).notNull(),
    /** The event property aggregated; null only for `count`. */
    property: text(),
    groupKeys: text().array().notNull().default([]),
    ...timestamps,
  },
  (t) => [uniqueIndex('usage_metrics_company_code_uq').on(t.companyId, t.code)],
);

/** A usage contract: who is metered, on what, from when. Part 2 adds price book, period and rules. */
export const usageContracts = pgTable(
  'usage_contracts',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id, { onDelete: 'cascade' }),
    customerId: integer().notNull().references(() => customers.id),
    /** The integrator's own id (unique per company); events may name the contract by it. */
    externalId: text().notNull(),
    state: text({ enum: contractStates }).notNull().default('activo'),
    startsAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    endsAt: timestamp({ withTimezone: true, mode: 'date' }),
    metricIds: integer().array().notNull(),
    stateSince: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /**
     * Written by contract billing (through the billing port) so ingestion needs no other read
     * (issue 40 point 6): the day its periods start on (grace follows the contract's own period; null:
     * no terms, calendar months) and the first day not yet closed (an event before it falls in a
     * closed period: accepted, and said so in its outcome; null: nothing closed).
     */
    periodAnchorDay: integer(),
    billedUntil: date({ mode: 'string' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('usage_contracts_company_external_uq').on(t.companyId, t.externalId),
    index('usage_contracts_customer_idx').on(t.customerId),
  ],
);

/** Per-company usage settings; a company without a row uses the defaults from the configuration. */
export const usageSettings = pgTable('usage_settings', {
  companyId: integer().primaryKey().references(() => companies.id, { onDelete: 'cascade' }),
  graceHours: integer().notNull(),
  /**
   * Usage that arrives for a closed period (issue 40 point 6): `marcar` flags the period only (a person
   * calls correct); `automatica` also corrects it (debit/credit note) at the contract's next close.
   */
  lateUsagePolicy: text({ enum: ['marcar', 'automatica'] }).notNull().default('marcar'),
  ...timestamps,
});

/**
 * Dedup keys (issue 33 point 2): one row per accepted idTransaccion of a company, with the hash of
 * the event's content (duplicate vs conflict). Pruned by the daily `usage_maintenance` job after
 * USAGE_DEDUP_DAYS (≥ 35) days; a plain table because a unique key of a partitioned table must
 * contain the partition key.
 */
export const usageEventKeys = pgTable(
  'usage_event_keys',
  {
    companyId: integer().notNull(),
    transactionId: text().notNull(),
    contentHash: text().notNull(),
    receivedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.transactionId] }), index('usage_event_keys_received_idx').on(t.receivedAt)],
);

/**
 * Raw accepted events. PARTITIONED BY RANGE (occurred_at), one partition per month: the migration
 * declares that by hand (drizzle cannot) and `usage_events_ensure_partitions` creates them ahead.
 * No foreign keys (partition drops must stay cheap); rollups are what queries read.
 * No index either: nothing reads raw events on a request path, and the (contract_id, occurred_at)
 * b-tree this table had took random inserts costing ~6 µs of PostgreSQL CPU per event, a fifth of
 * ingestion's database work (migration 0034). A read of raw events (audit, rebuilding rollups)
 * scans the month partitions of its range; an index can be built on a closed month when needed.
 */
export const usageEvents = pgTable(
  'usage_events',
  {
    companyId: integer().notNull(),
    contractId: integer().notNull(),
    metricId: integer().notNull(),
    transactionId: text().notNull(),
    occurredAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    receivedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    properties: jsonb().$type<Record<string, unknown>>().notNull(),
    value: numeric(),
  },
);

/**
 * Hourly rollups (UTC hour buckets) per contract, metric and set of group-key values. Count, sum,
 * max and latest compose across buckets, so day and month windows in any whole-hour time zone are
 * sums of these rows. `groupKey` is the canonical JSON of `groups` (part of the key).
 * `slot`: concurrent ingestion batches write to different slots (1..16, one per batch in flight in
 * the process), so they never wait on each other's row locks for a hot contract-hour; the
 * `usage_compact` job folds the slots of past hours into slot 0, so a query reads about one row per
 * hour and group set. Every aggregate composes across slots the same way it does across hours.
 */
export const usageRollups = pgTable(
  'usage_rollups',
  {
    contractId: integer().notNull(),
    metricId: integer().notNull(),
    bucket: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    groupKey: text().notNull(),
    slot: integer().notNull().default(0),
    companyId: integer().notNull(),
    groups: jsonb().$type<Record<string, string>>().notNull(),
    eventCount: bigint({ mode: 'number' }).notNull(),
    valueSum: numeric(),
    valueMax: numeric(),
    latestAt: timestamp({ withTimezone: true, mode: 'date' }),
    latestTransactionId: text(),
    latestValue: numeric(),
  },
  (t) => [
    primaryKey({ columns: [t.contractId, t.metricId, t.bucket, t.groupKey, t.slot] }),
    index('usage_rollups_unfolded_idx').on(t.bucket).where(sql`${t.slot} <> 0`),
  ],
);

/**
 * unique_count: the distinct values seen per hourly bucket and group set. A distinct count does not
 * compose from per-bucket counts, so the query counts distinct values over these rows: its cost grows
 * with distinct values per hour, not with events (exact; an HLL sketch would be smaller but approximate).
 */
export const usageRollupValues = pgTable(
  'usage_rollup_values',
  {
    contractId: integer().notNull(),
    /** The contract's company: the distribution column of a sharded database (docs/DEPLOYMENT.md). */
    companyId: integer().notNull(),
    metricId: integer().notNull(),
    bucket: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    groupKey: text().notNull(),
    value: text().notNull(),
    groups: jsonb().$type<Record<string, string>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.contractId, t.metricId, t.bucket, t.groupKey, t.value] })],
);
