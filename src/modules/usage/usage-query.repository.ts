/**
 * The usage query (issue 33 point 3) reads the hourly rollups, never the raw events: its cost grows
 * with hours × group sets in the range, not with the number of events. Day and month windows are
 * formed from UTC hour buckets in the company's zone (exact for whole-hour offsets such as Uruguay's).
 */
import { sql, type SQL } from 'drizzle-orm';
import { executePrepared, type Db } from '../../platform/db/client.js';
import type { Aggregation } from './usage.tables.js';

export const windows = ['hora', 'dia', 'mes'] as const;
export type UsageWindow = (typeof windows)[number];

export interface UsageQuery {
  contractId: number;
  metric: { id: number; aggregation: Aggregation };
  start: Date;
  end: Date;
  groupBy: string[];
  window: UsageWindow | null;
  zone: string;
  /**
   * Only events of these groups (values of the keys named, null: the event did not carry the key),
   * e.g. the groups one price bills. Passed as one jsonb parameter, so the statement stays the same.
   */
  only?: { keys: string[]; groups: Array<Record<string, string | null>> };
}
export interface UsageRow { inicio: Date; fin: Date; grupo: Record<string, string | null>; cantidad: string }

const unit: Record<UsageWindow, string> = { hora: 'hour', dia: 'day', mes: 'month' };

/**
 * Per aggregation: how hourly rows (all slots) become one value per hour (`inner`, over the rollup
 * columns), and how hourly values become one per window (`outer`, over `v`, with `bucket`). Two
 * levels so the time-zone arithmetic runs once per hour and group, not once per rollup row.
 */
const LEVELS: Record<Exclude<Aggregation, 'unique_count'>, { inner: SQL; outer: SQL }> = {
  count: { inner: sql`sum(event_count)`, outer: sql`sum(v)` },
  sum: { inner: sql`sum(value_sum)`, outer: sql`sum(v)` },
  max: { inner: sql`max(value_max)`, outer: sql`max(v)` },
  // Hours are disjoint: the newest event of the window is the newest of its latest hour.
  latest: { inner: sql`(array_agg(latest_value order by latest_at desc, latest_transaction_id desc))[1]`, outer: sql`(array_agg(v order by bucket desc))[1]` },
};

export async function queryUsage(db: Db, q: UsageQuery): Promise<UsageRow[]> {
  // Window start as a local timestamp in the zone (null: one window over the whole range).
  const local = q.window ? sql`date_trunc(${unit[q.window]}, bucket at time zone ${q.zone})` : sql`null::timestamp`;
  const step = q.window ? sql`${`1 ${unit[q.window]}`}::interval` : sql`null::interval`;
  // Group values are read once per row (g0, g1, …) and the JSON object built once per output row.
  const keys = q.groupBy.map((_, i) => sql.raw(`g${i}`));
  const picked = q.groupBy.map((k, i) => sql`, groups->>${k}::text as ${keys[i]}`);
  const groupedBy = keys.map((g) => sql`, ${g}`);
  const grupo = q.groupBy.length ? sql`jsonb_build_object(${sql.join(q.groupBy.map((k, i) => sql`${k}::text, ${keys[i]}`), sql`, `)})` : sql`'{}'::jsonb`;
  const only = q.only
    ? sql` and exists (select 1 from jsonb_array_elements(${JSON.stringify(q.only.groups)}::jsonb) f where ${sql.join([sql`true`, ...q.only.keys.map((k) => sql`(groups->>${k}::text) is not distinct from (f->>${k}::text)`)], sql` and `)})`
    : sql``;
  const where = sql`contract_id = ${q.contractId} and metric_id = ${q.metric.id} and bucket >= ${q.start.toISOString()}::timestamptz and bucket < ${q.end.toISOString()}::timestamptz${only}`;
  const windowed = q.metric.aggregation === 'unique_count'
    // Distinct values do not compose from hourly counts: counted over the window's value rows.
    ? sql`select ${local} as w, ${grupo} as grupo, count(distinct value) as cantidad from (
        select bucket, value${sql.join(picked, sql``)} from usage_rollup_values where ${where}
      ) h group by 1${sql.join(groupedBy, sql``)}`
    : sql`select ${local} as w, ${grupo} as grupo, ${LEVELS[q.metric.aggregation].outer} as cantidad from (
        select bucket${sql.join(picked, sql``)}, ${LEVELS[q.metric.aggregation].inner} as v from usage_rollups where ${where} group by bucket${sql.join(groupedBy, sql``)}
      ) h group by 1${sql.join(groupedBy, sql``)}`;
  const res = await executePrepared<{ inicio: Date | null; fin: Date | null; grupo: Record<string, string | null>; cantidad: string | null }>(db, sql`
    select (w at time zone ${q.zone}) as inicio, ((w + ${step}) at time zone ${q.zone}) as fin, grupo, cantidad::text as cantidad
    from (${windowed}) s order by w, grupo::text`);
  return res.rows.map((r) => ({
    inicio: r.inicio && new Date(r.inicio) > q.start ? new Date(r.inicio) : q.start,
    fin: r.fin && new Date(r.fin) < q.end ? new Date(r.fin) : q.end,
    grupo: r.grupo,
    cantidad: r.cantidad ?? '0',
  }));
}
