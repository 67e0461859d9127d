import { and, asc, count, eq, gt, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { outboxEvents } from './events.tables.js';

export type OutboxEventRow = typeof outboxEvents.$inferSelect;

/** Channel the delivery engine LISTENs on; NOTIFY is delivered only when the transaction commits. */
export const EVENTS_CHANNEL = 'cfe_outbox_events';

export async function insertEvents(db: DbOrTx, rows: Array<{ companyId: number; type: string; data: unknown; fannedOutAt?: Date }>): Promise<OutboxEventRow[]> {
  const inserted = await db.insert(outboxEvents).values(rows).returning();
  await db.execute(sql`select pg_notify(${EVENTS_CHANNEL}, '')`);
  return inserted;
}

/**
 * Many events and the NOTIFY in ONE statement (the emission batch's critical section pays one
 * round trip for it instead of two).
 */
export async function insertEventsAndNotify(db: DbOrTx, rows: Array<{ companyId: number; type: string; data: unknown }>): Promise<void> {
  await db.execute(sql`
    with ins as (
      insert into outbox_events (company_id, type, data)
      select (e->>'companyId')::integer, e->>'type', e->'data' from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) e
      returning 1
    )
    select pg_notify(${EVENTS_CHANNEL}, '') from (select count(*) from ins) c`);
}

export async function listCompanyEvents(db: DbOrTx, companyId: number, after: number, paging: Paging, testType: string) {
  const where = and(eq(outboxEvents.companyId, companyId), gt(outboxEvents.id, after), ne(outboxEvents.type, testType));
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(outboxEvents).where(where).orderBy(asc(outboxEvents.id)).offset(paging.start).limit(paging.length),
    db.select({ total: count() }).from(outboxEvents).where(where),
  ]);
  return { rows, total };
}
