import { and, asc, count, desc, eq, lte, ne, sql, type SQL } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { outboxEvents } from './events.tables.js';

export type OutboxEventRow = typeof outboxEvents.$inferSelect;

/**
 * Channel the DGI submission waker LISTENs on. Every INSERT into outbox_events NOTIFYs it (statement
 * trigger, migration 0015), delivered only when the transaction commits. The webhook delivery engine
 * has its own (webhooks/deliveries.repository.ts WEBHOOK_EVENTS_CHANNEL, migration 0047).
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

/**
 * Top-level transaction ids (low 32 bits) running in OTHER databases of the cluster. Transaction ids
 * are cluster-wide, so the snapshot's xmin counts a long write in any database (another tenant's
 * migration, a CREATE DATABASE copying a template): those can never write our outbox and must not
 * hold the feed back. Read BEFORE the snapshot it filters (see databaseHorizon).
 */
async function foreignXids(db: DbOrTx): Promise<string[]> {
  const res = await db.execute(sql`
    select backend_xid::text as xid from pg_stat_activity
     where backend_xid is not null and datid is distinct from (select oid from pg_database where datname = current_database())
    union all
    select transaction::text from pg_prepared_xacts where database <> current_database()`);
  return (res.rows as Array<{ xid: string }>).map((r) => r.xid);
}

/**
 * The feed's horizon in the current snapshot: the oldest transaction still running that may write
 * to this database, or the snapshot's xmax when there is none. A transaction in the snapshot's
 * in-progress list is left out only when `foreign` (read before the snapshot was taken) saw it
 * running in another database; one that took its id since, or finished since, is kept: the
 * horizon can only be too low (an event shown a little later), never too high (an event skipped).
 * As the first statement of a repeatable-read transaction, it fixes that transaction's snapshot.
 */
async function databaseHorizon(db: DbOrTx, foreign: string[]): Promise<string> {
  const res = await db.execute(sql`
    select coalesce(
      (select min(x::text::bigint) from pg_snapshot_xip(pg_current_snapshot()) x
        where (x::text::bigint % 4294967296) <> all(${`{${foreign.join(',')}}`}::bigint[])),
      pg_snapshot_xmax(pg_current_snapshot())::text::bigint)::text as horizon`);
  return (res.rows[0] as { horizon: string }).horizon;
}

/**
 * Events of the company after `after` in (xid, id) order, limited to transactions older than every
 * transaction still running in this database (databaseHorizon): any event not shown yet will sort
 * after the last one shown, so a cursor never skips one. The statements read one snapshot, so the
 * total matches. `heldXid`: the newest transaction among committed events held back by a
 * transaction still running.
 */
export async function listCompanyEvents(db: Db, companyId: number, after: FeedPosition, paging: Paging, testType: string) {
  const mine = and(
    eq(outboxEvents.companyId, companyId),
    ne(outboxEvents.type, testType),
    sql`(${outboxEvents.xid}, ${outboxEvents.id}) > (${after.xid}::xid8, ${after.id}::bigint)`,
  );
  const foreign = await foreignXids(db);
  // One connection runs one query at a time: awaited in turn (pg deprecates queueing on a busy client).
  return db.transaction(async (tx) => {
    const horizon = await databaseHorizon(tx, foreign);
    const shown = and(mine, sql`${outboxEvents.xid} < ${horizon}::xid8`);
    const rows = await tx.select().from(outboxEvents).where(shown).orderBy(asc(outboxEvents.xid), asc(outboxEvents.id)).offset(paging.start).limit(paging.length);
    const [{ total }] = await tx.select({ total: count() }).from(outboxEvents).where(shown);
    const [held] = await tx.select({ xid: outboxEvents.xid }).from(outboxEvents).where(and(mine, sql`${outboxEvents.xid} >= ${horizon}::xid8`)).orderBy(desc(outboxEvents.xid)).limit(1);
    return { rows, total, heldXid: held?.xid ?? null };
  }, { isolationLevel: 'repeatable read', accessMode: 'read only' });
}

/** The feed's horizon now (see databaseHorizon), as decimal text: tells a waiting reader when to look again. */
export async function feedHorizon(db: Db): Promise<string> {
  return databaseHorizon(db, await foreignXids(db));
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
