import { and, asc, count, desc, eq, lte, ne, sql, type SQL } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../platform/db/client.js';
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

/** Position in the feed: (writing transaction, id). The beginning is ('0', 0). */
export interface FeedPosition {
  xid: string;
  id: number;
}

const horizon = sql`pg_snapshot_xmin(pg_current_snapshot())`;

/**
 * Events of the company after `after` in (xid, id) order, limited to transactions older than every
 * transaction still running (pg_snapshot_xmin): any event not shown yet will sort after the last
 * one shown, so a cursor never skips one. The statements read one snapshot, so the total matches.
 * `heldXid`: the newest transaction among committed events held back by a transaction still running.
 */
export async function listCompanyEvents(db: Db, companyId: number, after: FeedPosition, paging: Paging, testType: string) {
  const mine = and(
    eq(outboxEvents.companyId, companyId),
    ne(outboxEvents.type, testType),
    sql`(${outboxEvents.xid}, ${outboxEvents.id}) > (${after.xid}::xid8, ${after.id}::bigint)`,
  );
  const shown = and(mine, sql`${outboxEvents.xid} < ${horizon}`);
  // One connection runs one query at a time: awaited in turn (pg deprecates queueing on a busy client).
  return db.transaction(async (tx) => {
    const rows = await tx.select().from(outboxEvents).where(shown).orderBy(asc(outboxEvents.xid), asc(outboxEvents.id)).offset(paging.start).limit(paging.length);
    const [{ total }] = await tx.select({ total: count() }).from(outboxEvents).where(shown);
    const [held] = await tx.select({ xid: outboxEvents.xid }).from(outboxEvents).where(and(mine, sql`${outboxEvents.xid} >= ${horizon}`)).orderBy(desc(outboxEvents.xid)).limit(1);
    return { rows, total, heldXid: held?.xid ?? null };
  }, { isolationLevel: 'repeatable read', accessMode: 'read only' });
}

/** The oldest transaction still running (the feed's horizon), as decimal text. */
export async function feedHorizon(db: DbOrTx): Promise<string> {
  const res = await db.execute(sql`select ${horizon}::text as xmin`);
  return (res.rows[0] as { xmin: string }).xmin;
}

/**
 * The feed position of an id-only cursor (before the (xid, id) cursor): the company's event with
 * the greatest id up to `id`. Events of transactions that committed after it may come once more
 * (at-least-once), none is skipped.
 */
export async function positionOfId(db: DbOrTx, companyId: number, id: number): Promise<FeedPosition> {
  const [row] = await db.select({ xid: outboxEvents.xid, id: outboxEvents.id }).from(outboxEvents)
    .where(and(eq(outboxEvents.companyId, companyId), lte(outboxEvents.id, id))).orderBy(desc(outboxEvents.id)).limit(1);
  return row ?? { xid: '0', id: 0 };
}
