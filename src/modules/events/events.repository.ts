import { and, asc, count, eq, gt, ne, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { outboxEvents } from './events.tables.js';

export type OutboxEventRow = typeof outboxEvents.$inferSelect;

/**
 * Channel the delivery engine LISTENs on. Every INSERT into outbox_events NOTIFYs it (statement
 * trigger, migration 0015), delivered only when the transaction commits.
 */
export const EVENTS_CHANNEL = 'cfe_outbox_events';

export async function insertEvents(db: DbOrTx, rows: Array<{ companyId: number; type: string; data: unknown; fannedOutAt?: Date }>): Promise<OutboxEventRow[]> {
  return db.insert(outboxEvents).values(rows).returning();
}

/** Many events in ONE statement, passed as one JSON parameter (an emission batch). */
export async function insertEventsJson(db: DbOrTx, rows: Array<{ companyId: number; type: string; data: unknown }>): Promise<void> {
  await db.execute(sql`
    insert into outbox_events (company_id, type, data)
    select (e->>'companyId')::integer, e->>'type', e->'data' from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) e`);
}

/** The INSERT of the events `select` yields (columns company_id, type, data), for a CTE of a caller's statement. */
export function insertEventsFrom(select: SQL): SQL {
  return sql`insert into outbox_events (company_id, type, data) ${select}`;
}

export async function listCompanyEvents(db: DbOrTx, companyId: number, after: number, paging: Paging, testType: string) {
  const where = and(eq(outboxEvents.companyId, companyId), gt(outboxEvents.id, after), ne(outboxEvents.type, testType));
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(outboxEvents).where(where).orderBy(asc(outboxEvents.id)).offset(paging.start).limit(paging.length),
    db.select({ total: count() }).from(outboxEvents).where(where),
  ]);
  return { rows, total };
}
