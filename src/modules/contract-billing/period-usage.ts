/**
 * The usage a period is rated on (issue 40 point 1). Each metric is measured with its own
 * aggregation, as GET /contracts/{id}/usage measures it:
 * - on the period's aggregate (one row) unless the price book prices the metric by dimension;
 * - else grouped by the dimension keys its prices are written with, and only those: a metric
 *   declaring keys `region, user` priced by `region` is measured per region, never per user.
 * `count` and `sum` add across groups, so rows billed by one price (a fallback covering several
 * groups) may be summed by the rating. `max`, `unique_count` and `latest` do not: the rows one price
 * bills are measured again as one aggregate over their groups' events (max of the lot, distinct
 * values of the lot, newest of the lot), as Lago measures a charge's default bucket.
 */
import { Decimal } from 'decimal.js';
import type { Price } from '../price-books/price-books.model.js';
import { priceFor, pricedKeys, type UsageRow } from '../price-books/rating.js';
import type { PeriodMetric, UsageBillingPort } from '../usage/usage.billing-port.js';

const ADDITIVE: ReadonlySet<string> = new Set(['count', 'sum']);

export interface PeriodUsage {
  /** Rows to rate: per metric, one per priced group (or one aggregate). */
  usage: UsageRow[];
  /** Each metric's aggregate over the whole period (what rules on units observe); absent: no usage. */
  unidades: Record<string, string>;
}

const dimsOf = (grupo: Record<string, string | null>) => Object.fromEntries(Object.entries(grupo).filter((e): e is [string, string] => e[1] !== null));

function row(metrica: string, dims: Record<string, string>, cantidad: string): UsageRow {
  return { metrica, ...(Object.keys(dims).length ? { dimensiones: dims } : {}), cantidad };
}

/** Usage of [start, end) of the contract's metrics, grouped as `precios` price them (none: no price book). */
export async function periodUsage(port: Pick<UsageBillingPort, 'metrics' | 'metricUsage'>, contract: { id: number; metricIds: number[] }, start: Date, end: Date, precios: readonly Price[] | undefined): Promise<PeriodUsage> {
  const usage: UsageRow[] = [];
  const unidades: Record<string, string> = {};
  for (const m of await port.metrics(contract)) {
    const keys = precios ? pricedKeys(precios, m.code).filter((k) => m.groupKeys.includes(k)) : [];
    const rows = await port.metricUsage(contract.id, m, start, end, keys);
    if (!rows.length) continue;
    const total = await metricTotal(port, contract.id, m, start, end, keys, rows);
    unidades[m.code] = total;
    if (!keys.length || ADDITIVE.has(m.aggregation)) {
      for (const r of rows) usage.push(row(m.code, dimsOf(r.grupo), r.cantidad));
      continue;
    }
    // Non-additive: the rows each price bills, measured as one aggregate when there are several.
    const byPrice = new Map<Price | undefined, typeof rows>();
    for (const r of rows) {
      const p = priceFor(precios!, { metrica: m.code, dimensiones: dimsOf(r.grupo), cantidad: r.cantidad });
      byPrice.set(p, [...(byPrice.get(p) ?? []), r]);
    }
    for (const [price, rs] of byPrice) {
      // Unpriced rows are reported one by one (sinPrecio), never billed.
      if (!price || rs.length === 1) {
        for (const r of rs) usage.push(row(m.code, dimsOf(r.grupo), r.cantidad));
        continue;
      }
      const [lot] = await port.metricUsage(contract.id, m, start, end, [], { keys, groups: rs.map((r) => r.grupo) });
      usage.push(row(m.code, price.dimensiones ?? {}, lot?.cantidad ?? '0'));
    }
  }
  return { usage, unidades };
}

async function metricTotal(port: Pick<UsageBillingPort, 'metricUsage'>, contractId: number, m: PeriodMetric, start: Date, end: Date, keys: string[], rows: Array<{ cantidad: string }>): Promise<string> {
  if (!keys.length) return rows[0]!.cantidad;
  if (ADDITIVE.has(m.aggregation)) return rows.reduce((acc, r) => acc.plus(r.cantidad), new Decimal(0)).toFixed();
  return (await port.metricUsage(contractId, m, start, end, []))[0]?.cantidad ?? '0';
}
