import { bigserial, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { companies } from '../companies/companies.tables.js';

/**
 * The transactional outbox of business events (spec 6). A row is written in the same transaction
 * as the change that caused it, so an event is never lost and never announced for a rollback.
 * `id` is also the cursor of GET /api/v1/eventos; `fannedOutAt` is set once the delivery engine
 * has created the webhook deliveries of the event.
 */
export const outboxEvents = pgTable(
  'outbox_events',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    companyId: integer().notNull().references(() => companies.id, { onDelete: 'cascade' }),
    type: text().notNull(),
    /** The resource (`data` of the delivered JSON). */
    data: jsonb().notNull(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    fannedOutAt: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('outbox_events_pending_idx').on(t.id).where(sql`${t.fannedOutAt} is null`),
    index('outbox_events_company_idx').on(t.companyId, t.id),
  ],
);
