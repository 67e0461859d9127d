/**
 * Chart series of issued CFEs (issue 7 point 6): per Uruguay day (UTC−3, no DST since 2015) or per
 * month, count and amount per currency and per CFE type. The aggregation is one SQL GROUP BY
 * GROUPING SETS over the per-day summary (chartGroups; 2.1 s over a million CFEs when it grouped the
 * CFEs themselves, issue 29 point 4); JS only lays the groups out on a zero-filled axis. Amounts are
 * SQL numeric sums returned as decimal strings.
 * Rules: CFEs rejected by DGI (estado `rechazado`, their number is voided) are left out; credit
 * notes subtract; only sales types carry an amount (remitos, resguardos, e-Boletas count with 0).
 * SALES_CODES and NC_CODES are also written in migration 0025's SQL function issued_cfe_chart_signed.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { CFE_TYPE_CODES, getCfeType } from '../emission/index.js';
import { isJournalised } from './issued-cfe.accounting.js';
import { uyDayStart } from './issued-cfe.search.js';

export type Granularity = 'dia' | 'mes';

const allCodes = CFE_TYPE_CODES.flatMap((c) => [c, c + 100]);
export const NC_CODES = allCodes.filter((c) => getCfeType(c).note === 'NC');
export const SALES_CODES = allCodes.filter((c) => isJournalised(c));

/** Labels from `from` to `to` inclusive: YYYY-MM-DD days or YYYY-MM months. */
export function axis(g: Granularity, from: string, to: string): string[] {
  const out: string[] = [];
  if (g === 'dia') {
    for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  } else {
    let [y, m] = from.split('-').map(Number);
    const [ty, tm] = to.split('-').map(Number);
    while (y < ty || (y === ty && m <= tm)) {
      out.push(`${y}-${String(m).padStart(2, '0')}`);
      if (++m > 12) { m = 1; y += 1; }
    }
  }
  return out;
}

export interface GroupRow { etiqueta: string; moneda: string | null; tipo_cfe: number | null; gm: number; gt: number; cantidad: number; monto: string; monto_uyu: string }

/** The UTC bounds of a chart's range: [from 00:00 UY, day after `to` 00:00 UY) for days; whole months for months. */
export function chartRange(g: Granularity, from: string, to: string): { startDay: string; endExclusive: string } {
  const startDay = g === 'dia' ? from : `${from}-01`;
  const endExclusive = g === 'dia'
    ? new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)
    : (() => { const [y, m] = to.split('-').map(Number); return m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`; })();
  return { startDay, endExclusive };
}

/**
 * The groups of the chart: per label, in all, per currency and per type. Read from the summary
 * `issued_cfe_chart_days` (every CFE stored, kept by triggers, migration 0025; ~days × types ×
 * currencies rows) minus the rejected CFEs of the range, aggregated from issued_cfes index-only
 * (partial covering index issued_cfes_rejected_chart_idx): the same figures as grouping the range's CFEs that are not
 * rejected (issued-cfe.charts.int.test.ts compares both), without reading them. A group is
 * reported only if some CFE of it is not rejected, as that query did.
 */
export async function chartGroups(db: DbOrTx, companyId: number, g: Granularity, from: string, to: string): Promise<GroupRow[]> {
  const { startDay, endExclusive } = chartRange(g, from, to);
  const label = g === 'dia' ? sql.raw(`to_char(dia, 'YYYY-MM-DD')`) : sql.raw(`to_char(dia, 'YYYY-MM')`);
  const res = await db.execute(sql`
    with d as (
      select dia, tipo_cfe, moneda, cantidad, monto, monto_uyu from issued_cfe_chart_days
      where company_id = ${companyId} and dia >= ${startDay}::date and dia < ${endExclusive}::date
      union all
      select issued_cfe_chart_day(firmado_en), tipo_cfe, moneda, -count(*),
        -sum(issued_cfe_chart_signed(tipo_cfe, mnt_total)),
        -sum(issued_cfe_chart_signed(tipo_cfe, mnt_total) * issued_cfe_chart_rate(moneda, tipo_cambio))
      from issued_cfes
      where company_id = ${companyId} and estado = 'rechazado' and firmado_en >= ${uyDayStart(startDay).toISOString()}::timestamptz
        and firmado_en < ${uyDayStart(endExclusive).toISOString()}::timestamptz
      group by 1, 2, 3
    )
    select ${label} as etiqueta, moneda, tipo_cfe, grouping(moneda) as gm, grouping(tipo_cfe) as gt,
      sum(cantidad)::int as cantidad, round(sum(monto), 2)::text as monto, round(sum(monto_uyu), 2)::text as monto_uyu
    from d
    group by grouping sets ((1), (1, moneda), (1, tipo_cfe))
    having sum(cantidad) > 0`);
  return res.rows as unknown as GroupRow[];
}

export async function chartSeries(db: DbOrTx, companyId: number, g: Granularity, from: string, to: string) {
  return layOutChart(companyId, g, from, to, await chartGroups(db, companyId, g, from, to));
}

/** The groups on a zero-filled axis, as the graficas answer them. */
export function layOutChart(companyId: number, g: Granularity, from: string, to: string, rows: GroupRow[]) {
  const labels = axis(g, from, to);
  const index = new Map(labels.map((l, i) => [l, i]));
  const zeros = <T>(v: T) => labels.map(() => v);
  const cantidad = zeros(0);
  const montoUYU = zeros('0.00');
  const currencies = new Map<string, { moneda: string; cantidad: number[]; monto: string[] }>();
  const types = new Map<number, { tipoCfe: number; nombreTipoCfe: string; cantidad: number[]; montoUYU: string[] }>();
  for (const r of rows) {
    const i = index.get(r.etiqueta);
    if (i === undefined) continue;
    if (r.gm === 1 && r.gt === 1) {
      cantidad[i] = r.cantidad;
      montoUYU[i] = r.monto_uyu;
    } else if (r.gm === 0) {
      const s = currencies.get(r.moneda!) ?? { moneda: r.moneda!, cantidad: zeros(0), monto: zeros('0.00') };
      s.cantidad[i] = r.cantidad;
      s.monto[i] = r.monto;
      currencies.set(r.moneda!, s);
    } else {
      const code = Number(r.tipo_cfe);
      const s = types.get(code) ?? { tipoCfe: code, nombreTipoCfe: getCfeType(code).name, cantidad: zeros(0), montoUYU: zeros('0.00') };
      s.cantidad[i] = r.cantidad;
      s.montoUYU[i] = r.monto_uyu;
      types.set(code, s);
    }
  }
  return {
    idEmpresa: companyId,
    agrupacion: g,
    desde: from,
    hasta: to,
    zonaHoraria: 'America/Montevideo (UTC-03:00)',
    etiquetas: labels,
    cantidad,
    montoUYU,
    porMoneda: [...currencies.values()].sort((a, b) => a.moneda.localeCompare(b.moneda)),
    porTipo: [...types.values()].sort((a, b) => a.tipoCfe - b.tipoCfe),
  };
}

export type ChartSeries = ReturnType<typeof layOutChart>;
