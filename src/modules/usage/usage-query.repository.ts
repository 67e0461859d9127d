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
}
export interface UsageRow { inicio: Date; fin: Date; grupo: Record<string, string | null>; cantidad: string }

const unit: Record<UsageWindow, string> = { hora: 'hour', dia: 'day', mes: 'month' };

function aggregate(a: Aggregation): SQL {
  switch (a) {
    case 'count': return sql`sum(event_count)`;
    case 'sum': return sql`sum(value_sum)`;
    case 'max': return sql`max(value_max)`;
    case 'latest': return sql`(array_agg(latest_value order by latest_at desc, latest_transaction_id desc))[1]`;
    case 'unique_count': return sql`count(distinct value)`;
  }
}

export async function queryUsage(db: Db, q: UsageQuery): Promise<UsageRow[]> {
  const table = q.metric.aggregation === 'unique_count' ? sql`usage_rollup_values` : sql`usage_rollups`;
  // Window start as a local timestamp in the zone (null: one window over the whole range).
  const local = q.window ? sql`date_trunc(${unit[q.window]}, bucket at time zone ${q.zone})` : sql`null::timestamp`;
  const step = q.window ? sql`${`1 ${unit[q.window]}`}::interval` : sql`null::interval`;
  const group = q.groupBy.length
    ? sql`jsonb_build_object(${sql.join(q.groupBy.map((k) => sql`${k}::text, groups->>${k}::text`), sql`, `)})`
    : sql`'{}'::jsonb`;
  const res = await executePrepared<{ w: string | null; inicio: Date | null; fin: Date | null; grupo: Record<string, string | null>; cantidad: string | null }>(db, sql`
    select w::text as w, (w at time zone ${q.zone}) as inicio, ((w + ${step}) at time zone ${q.zone}) as fin, grupo, cantidad::text as cantidad from (
      select ${local} as w, ${group} as grupo, ${aggregate(q.metric.aggregation)} as cantidad
      from ${table}
      where contract_id = ${q.contractId} and metric_id = ${q.metric.id} and bucket >= ${q.start.toISOString()}::timestamptz and bucket < ${q.end.toISOString()}::timestamptz
      group by 1, 2
    ) s order by w, grupo::text`);
  return res.rows.map((r) => ({
    inicio: r.inicio && new Date(r.inicio) > q.start ? new Date(r.inicio) : q.start,
    fin: r.fin && new Date(r.fin) < q.end ? new Date(r.fin) : q.end,
    grupo: r.grupo,
    cantidad: r.cantidad ?? '0',
  }));
}
