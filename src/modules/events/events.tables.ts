import { bigserial, customType, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { companies } from '../companies/companies.tables.js';

/** PostgreSQL `xid8` (64-bit transaction id); read as its decimal text. */
const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => 'xid8' });

/**
 * The transactional outbox of business events (spec 6). A row is written in the same transaction
 * as the change that caused it, so an event is never lost and never announced for a rollback.
 * `fannedOutAt` is set once the delivery engine has created the webhook deliveries of the event, or by the INSERT
 * itself (trigger of migration 0045) when no enabled endpoint of the company subscribes to its type.
 * `xid` is the writing transaction: GET /api/v1/eventos orders by (xid, id) and shows only rows
 * whose transaction is older than every transaction of this database still running, so a cursor never passes an
 * event that commits later (ids are taken before commit, and commits come out of order).
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
    xid: xid8().notNull().default(sql`pg_current_xact_id()`),
  },
  (t) => [
    index('outbox_events_pending_idx').on(t.id).where(sql`${t.fannedOutAt} is null`),
    index('outbox_events_company_xid_idx').on(t.companyId, t.xid, t.id),
  ],
);
