import { bigint, bigserial, boolean, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { timestamps } from '../../platform/db/columns.js';
import { companies } from '../companies/companies.tables.js';
import { outboxEvents } from '../events/events.tables.js';

/** Webhook endpoints (spec 2.5). */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id, { onDelete: 'cascade' }),
    name: text(),
    url: text().notNull(),
    events: text().array().notNull(),
    enabled: boolean().notNull().default(true),
    /**
     * Legacy: the HMAC key in clear, as stored before issue 28. Always written null now; rows left
     * from before are sealed into `secretSealed` at startup (`sealLegacySecrets`) and read until then.
     */
    secret: text(),
    /** HMAC key of the Standard Webhooks signature, sealed under MASTER_KEY (AES-256-GCM); null: deliveries are not signed. */
    secretSealed: text(),
    headers: jsonb().$type<Record<string, string>>().notNull().default({}),
    /** Spec 8.1: 8 for endpoints created through the API. */
    maxAttempts: integer().notNull().default(8),
    ...timestamps,
  },
  (t) => [index('webhook_endpoints_company_idx').on(t.companyId)],
);

export const deliveryStatuses = ['pendiente', 'entregado', 'fallido', 'agotado'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/** One row per (event, endpoint): the unit that is retried (spec 3). */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    eventId: bigint({ mode: 'number' }).notNull().references(() => outboxEvents.id, { onDelete: 'cascade' }),
    endpointId: integer().notNull().references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    companyId: integer().notNull(),
    status: text({ enum: deliveryStatuses }).notNull().default('pendiente'),
    /** Attempts of the current cycle (a manual re-delivery starts a new cycle). */
    attempts: integer().notNull().default(0),
    totalAttempts: integer().notNull().default(0),
    /** When pending: the next attempt time, or the lease end while a worker holds the row. */
    nextAttemptAt: timestamp({ withTimezone: true, mode: 'date' }),
    /** Set when a worker claims the row; only that worker may record the attempt. */
    leaseToken: uuid(),
    /** Sent as Idempotency-Key on every attempt of this delivery. */
    idempotencyKey: uuid().notNull().default(sql`gen_random_uuid()`),
    lastStatusCode: integer(),
    lastError: text(),
    deliveredAt: timestamp({ withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('webhook_deliveries_event_endpoint_uq').on(t.eventId, t.endpointId),
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pendiente'`),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.id),
  ],
);

/** The attempt log: what the receiver answered, when and how fast. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    deliveryId: bigint({ mode: 'number' }).notNull().references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    /** The delivery's company: the distribution column of a sharded database (issue 45, docs/DEPLOYMENT.md). */
    companyId: integer().notNull().references(() => companies.id, { onDelete: 'cascade' }),
    number: integer().notNull(),
    startedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    durationMs: integer().notNull(),
    statusCode: integer(),
    error: text(),
    responseExcerpt: text(),
    outcome: text({ enum: ['entregado', 'reintento', 'fallido', 'agotado'] }).notNull(),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId, t.number)],
);
