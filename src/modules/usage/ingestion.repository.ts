/**
 * The SQL of usage ingestion: one query loads what a batch names (contracts, metrics, the company's
 * grace) when the process does not know them yet (batch-defs.ts), one statement stores the new
 * events (dedup keys, raw events, hourly rollups, distinct values) and answers the stored hashes of
 * ids already taken, and only for ids a concurrent batch took meanwhile, one more reads theirs.
 */
import { sql } from 'drizzle-orm';
import { executePrepared, type Db } from '../../platform/db/client.js';
import { zonedDayStart, type ContractDef, type MetricDef, type PreparedEvent } from './usage.rules.js';

/** How a rollup row absorbs another one for the same key: every aggregate composes (rollups alias r). */
const MERGE_ROLLUP_TEXT = `do update set
  event_count = r.event_count + excluded.event_count,
  value_sum = coalesce(r.value_sum + excluded.value_sum, r.value_sum, excluded.value_sum),
  value_max = greatest(r.value_max, excluded.value_max),
  latest_value = case when (excluded.latest_at, excluded.latest_transaction_id) > (r.latest_at, r.latest_transaction_id) then excluded.latest_value else r.latest_value end,
  latest_transaction_id = case when (excluded.latest_at, excluded.latest_transaction_id) > (r.latest_at, r.latest_transaction_id) then excluded.latest_transaction_id else r.latest_transaction_id end,
  latest_at = greatest(r.latest_at, excluded.latest_at)`;
const MERGE_ROLLUP = sql.raw(MERGE_ROLLUP_TEXT);

export interface BatchDefs { contracts: ContractDef[]; metrics: MetricDef[]; graceHours: number | null }

type DefRow = { kind: 'c' | 'm' | 's'; doc: Record<string, any> };

/** Contracts named by id or external id, metrics named by code, and the company's grace: one round trip. */
export async function loadBatchDefs(db: Db, companyId: number, contractIds: number[], externalIds: string[], metricCodes: string[]): Promise<BatchDefs> {
  const res = await executePrepared<DefRow>(db, sql`
    select 'c' as kind, json_build_object('id', id, 'externalId', external_id, 'state', state, 'startsAt', starts_at, 'endsAt', ends_at, 'metricIds', metric_ids, 'anchorDay', period_anchor_day, 'billedUntil', billed_until) as doc
      from usage_contracts where company_id = ${companyId} and (id = any(${sql.param(contractIds)}::int[]) or external_id = any(${sql.param(externalIds)}::text[]))
    union all
    select 'm', json_build_object('id', id, 'code', code, 'aggregation', aggregation, 'property', property, 'groupKeys', group_keys)
      from usage_metrics where company_id = ${companyId} and code = any(${sql.param(metricCodes)}::text[])
    union all
    select 's', json_build_object('graceHours', grace_hours) from usage_settings where company_id = ${companyId}`);
  const out: BatchDefs = { contracts: [], metrics: [], graceHours: null };
  for (const { kind, doc } of res.rows) {
    if (kind === 'c') out.contracts.push({ ...doc, startsAt: new Date(doc.startsAt), endsAt: doc.endsAt ? new Date(doc.endsAt) : null, billedUntil: doc.billedUntil ? zonedDayStart(doc.billedUntil) : null } as ContractDef);
    else if (kind === 'm') out.metrics.push(doc as MetricDef);
    else out.graceHours = doc.graceHours;
  }
  return out;
}

/**
 * Stores the events whose idTransaccion is new for the company, in one statement (atomic on its
 * own): the dedup key insert decides which events are new, and only those reach the raw table and
 * the rollups. `events` must be sorted by transactionId and rollup rows are written in key order, so
 * concurrent batches take row locks in the same order (no deadlock). `slot`: the rollup slot of this
 * batch (usage.tables.ts), distinct from the other batches in flight. Answers the new ids, and the
 * stored content hashes of the ids already taken that the statement's snapshot sees: all of them
 * but those of batches that committed while it waited on their keys (`storedHashes` reads those).
 * That saved a second statement on nearly every batch with a retry in it.
 *
 * The text is a constant, run as a named prepared statement with the batch as column arrays (unnest):
 * building it with drizzle's sql template on every batch cost ~0.7 µs of the API's CPU per event.
 * (One JSON parameter read by json_to_recordset instead of the arrays saved ~1 µs of API CPU per
 * event but cost PostgreSQL ~3 µs more: not adopted.)
 */
const STORE_NEW_EVENTS = `
  with input as (
    -- bucket: the event's UTC hour (the rollups' unit), computed here rather than sent as one more array.
    select t.*, date_bin('1 hour', t.at, timestamptz '1970-01-01 00:00:00+00') as bucket
    from unnest($3::text[], $4::int[], $5::int[], $6::timestamptz[], $7::text[], $8::numeric[], $9::text[], $10::text[], $11::text[])
      as t(tx, contract_id, metric_id, at, props, val, dval, gkey, hash)
  ), keys as (
    insert into usage_event_keys (company_id, transaction_id, content_hash)
    select $1, tx, hash from input order by tx
    on conflict do nothing
    returning transaction_id
  ), fresh as (
    select i.* from input i join keys k on k.transaction_id = i.tx
  ), raw as (
    insert into usage_events (company_id, contract_id, metric_id, transaction_id, occurred_at, properties, value)
    select $1, contract_id, metric_id, tx, at, props::jsonb, val from fresh
  ), roll as (
    insert into usage_rollups as r (contract_id, metric_id, bucket, group_key, slot, company_id, groups, event_count, value_sum, value_max, latest_at, latest_transaction_id, latest_value)
    select contract_id, metric_id, bucket, gkey, $2, $1, gkey::jsonb, count(*), sum(val), max(val),
      max(at), (array_agg(tx order by at desc, tx desc))[1], (array_agg(val order by at desc, tx desc))[1]
    from fresh group by contract_id, metric_id, bucket, gkey
    order by 1, 2, 3, 4
    on conflict (contract_id, metric_id, bucket, group_key, slot) ${MERGE_ROLLUP_TEXT}
  ), dist as (
    insert into usage_rollup_values (contract_id, company_id, metric_id, bucket, group_key, value, groups)
    select distinct contract_id, $1::integer, metric_id, bucket, gkey, dval, gkey::jsonb from fresh where dval is not null
    order by 1, 2, 3, 4, 5
    on conflict do nothing
  )
  select transaction_id, null::text as content_hash from keys
  union all
  -- The stored hashes of the ids already taken, as far as this statement's snapshot sees them.
  select transaction_id, content_hash from usage_event_keys
  where company_id = $1 and transaction_id = any(array(select tx from input except select transaction_id from keys))`;

export interface Stored { fresh: Set<string>; seen: Map<string, string> }

export async function storeNewEvents(db: Db, companyId: number, slot: number, events: PreparedEvent[]): Promise<Stored> {
  if (events.length === 0) return { fresh: new Set(), seen: new Map() };
  const n = events.length;
  const cols = Array.from({ length: 9 }, () => new Array<unknown>(n));
  for (let i = 0; i < n; i++) {
    const e = events[i];
    cols[0][i] = e.transactionId; cols[1][i] = e.contractId; cols[2][i] = e.metricId; cols[3][i] = e.at.toISOString();
    cols[4][i] = e.propertiesJson; cols[5][i] = e.value; cols[6][i] = e.distinct; cols[7][i] = e.groupKey; cols[8][i] = e.hash;
  }
  const res = await db.$client.query<{ transaction_id: string; content_hash: string | null }>({ name: 'usage_store_new_events', text: STORE_NEW_EVENTS, values: [companyId, slot, ...cols] });
  const out: Stored = { fresh: new Set(), seen: new Map() };
  for (const r of res.rows) {
    if (r.content_hash === null) out.fresh.add(r.transaction_id);
    else out.seen.set(r.transaction_id, r.content_hash);
  }
  return out;
}

/** Stored content hashes of ids already taken (to tell a retry from a conflict). */
export async function storedHashes(db: Db, companyId: number, transactionIds: string[]): Promise<Map<string, string>> {
  const res = await executePrepared<{ transaction_id: string; content_hash: string }>(db, sql`
    select transaction_id, content_hash from usage_event_keys where company_id = ${companyId} and transaction_id = any(${sql.param(transactionIds)}::text[])`);
  return new Map(res.rows.map((r) => [r.transaction_id, r.content_hash]));
}

/**
 * Folds the rollup slots of hours before `before` into slot 0, in one statement: the slot rows are
 * locked in key order and deleted, and their aggregates added to slot 0 (the same merge ingestion
 * does). A batch writing a late event into a folded hour simply creates a new slot row.
 */
export async function foldSlots(db: Db, before: Date): Promise<number> {
  const res = await db.execute(sql`
    with picked as (
      select contract_id, metric_id, bucket, group_key, slot from usage_rollups
      where slot <> 0 and bucket < ${before.toISOString()}::timestamptz
      order by contract_id, metric_id, bucket, group_key, slot limit 50000 for update
    ), moved as (
      delete from usage_rollups r using picked p
      where (r.contract_id, r.metric_id, r.bucket, r.group_key, r.slot) = (p.contract_id, p.metric_id, p.bucket, p.group_key, p.slot)
      returning r.*
    )
    insert into usage_rollups as r (contract_id, metric_id, bucket, group_key, slot, company_id, groups, event_count, value_sum, value_max, latest_at, latest_transaction_id, latest_value)
    select contract_id, metric_id, bucket, group_key, 0, min(company_id), min(groups::text)::jsonb, sum(event_count), sum(value_sum), max(value_max),
      max(latest_at), (array_agg(latest_transaction_id order by latest_at desc, latest_transaction_id desc))[1], (array_agg(latest_value order by latest_at desc, latest_transaction_id desc))[1]
    from moved group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict (contract_id, metric_id, bucket, group_key, slot) ${MERGE_ROLLUP}`);
  return res.rowCount ?? 0;
}

/** Daily maintenance: partitions ahead, raw partitions past retention dropped, dedup keys past their window deleted. */
export async function maintain(db: Db, settings: { dedupDays: number; rawRetentionDays: number }) {
  const created = await db.execute(sql`select usage_events_ensure_partitions(now() - interval '2 months', now() + interval '2 months') as n`);
  const parts = await db.execute(sql`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'usage_events'::regclass and c.relname ~ '^usage_events_p[0-9]{6}$'`);
  const cutoff = new Date(Date.now() - settings.rawRetentionDays * 86_400_000);
  const dropped: string[] = [];
  for (const { name } of parts.rows as Array<{ name: string }>) {
    const y = Number(name.slice(-6, -2));
    const m = Number(name.slice(-2));
    // A partition goes only when all of its month is older than the retention.
    if (Date.UTC(y, m, 1) <= cutoff.getTime()) {
      await db.execute(sql.raw(`drop table if exists "${name}"`));
      dropped.push(name);
    }
  }
  let prunedKeys = 0;
  // In slices, so a large prune never holds long locks or one huge transaction.
  for (;;) {
    const r = await db.execute(sql`
      delete from usage_event_keys where ctid = any(array(
        select ctid from usage_event_keys where received_at < now() - make_interval(days => ${settings.dedupDays}) limit 10000))`);
    prunedKeys += r.rowCount ?? 0;
    if ((r.rowCount ?? 0) < 10000) break;
  }
  return { partitionsCreated: Number((created.rows[0] as { n: number }).n), dropped, prunedKeys };
}
