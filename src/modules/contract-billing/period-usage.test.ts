/**
 * How a period's usage is grouped for rating (issue 40 point 1), against a fake usage port that
 * aggregates in-memory events the way the rollup query does: the grouping keys asked for, the
 * re-measure of several groups billed by one price for max/unique_count/latest, the units per metric.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Price } from '../price-books/price-books.model.js';
import type { PeriodMetric } from '../usage/usage.billing-port.js';
import { periodUsage } from './period-usage.js';

type Ev = { metric: number; groups: Record<string, string>; value: string; at: number };
const metric = (id: number, code: string, aggregation: PeriodMetric['aggregation']): PeriodMetric => ({ id, code, aggregation, groupKeys: ['region', 'plan'] });

function fakePort(metrics: PeriodMetric[], events: Ev[]) {
  const calls: Array<{ code: string; groupBy: string[]; only?: number }> = [];
  const agg = (m: PeriodMetric, evs: Ev[]): string => {
    const vs = evs.map((e) => Number(e.value));
    switch (m.aggregation) {
      case 'count': return String(evs.length);
      case 'sum': return String(vs.reduce((a, b) => a + b, 0));
      case 'max': return String(Math.max(...vs));
      case 'unique_count': return String(new Set(evs.map((e) => e.value)).size);
      case 'latest': return [...evs].sort((a, b) => b.at - a.at)[0]!.value;
    }
  };
  return {
    calls,
    metrics: async () => metrics,
    metricUsage: async (_c: number, m: PeriodMetric, _s: Date, _e: Date, groupBy: string[], only?: { keys: string[]; groups: Array<Record<string, string | null>> }) => {
      calls.push({ code: m.code, groupBy, ...(only ? { only: only.groups.length } : {}) });
      let evs = events.filter((e) => e.metric === m.id);
      if (only) evs = evs.filter((e) => only.groups.some((g) => only.keys.every((k) => (e.groups[k] ?? null) === g[k])));
      const byGroup = new Map<string, Ev[]>();
      for (const e of evs) {
        const key = JSON.stringify(groupBy.map((k) => e.groups[k] ?? null));
        byGroup.set(key, [...(byGroup.get(key) ?? []), e]);
      }
      return [...byGroup].map(([key, es]) => ({ grupo: Object.fromEntries(groupBy.map((k, i) => [k, JSON.parse(key)[i]])), cantidad: agg(m, es) }));
    },
  };
}

const price = (metrica: string, dimensiones?: Record<string, string>) => ({ metrica, ...(dimensiones ? { dimensiones } : {}), modelo: 'estandar', precioUnitario: '1', indicadorFacturacion: 3, nombreItem: metrica }) as Price;
const ev = (metric: number, region: string, plan: string, value: string, at: number): Ev => ({ metric, groups: { region, plan }, value, at });
const EVENTS = [
  ev(1, 'norte', 'a', '5', 1), ev(1, 'norte', 'b', '2', 2), ev(1, 'sur', 'a', '7', 3), ev(1, 'este', 'a', '4', 4), ev(1, 'oeste', 'b', '6', 5),
  ev(2, 'norte', 'a', 'u1', 1), ev(2, 'este', 'a', 'u2', 2), ev(2, 'oeste', 'b', 'u2', 3),
  ev(3, 'este', 'a', '9', 1), ev(3, 'oeste', 'b', '3', 2),
  ev(4, 'este', 'a', '1.5', 1), ev(4, 'oeste', 'b', '2', 2),
];
const METRICS = [metric(1, 'pico', 'max'), metric(2, 'usuarios', 'unique_count'), metric(3, 'puestos', 'latest'), metric(4, 'gb', 'sum')];

describe('periodUsage', () => {
  test('without dimensioned prices: one aggregate row per metric, never grouped', async () => {
    const port = fakePort(METRICS, EVENTS);
    const r = await periodUsage(port, { id: 1, metricIds: [] }, new Date(0), new Date(1), [price('pico'), price('usuarios'), price('puestos'), price('gb')]);
    assert.deepEqual(r.usage, [{ metrica: 'pico', cantidad: '7' }, { metrica: 'usuarios', cantidad: '2' }, { metrica: 'puestos', cantidad: '3' }, { metrica: 'gb', cantidad: '3.5' }]);
    assert.deepEqual(r.unidades, { pico: '7', usuarios: '2', puestos: '3', gb: '3.5' });
    assert.ok(port.calls.every((c) => c.groupBy.length === 0));
  });

  test('with prices by region: grouped by region only; the fallback\'s groups measured together for max, unique_count and latest, left apart for sum', async () => {
    const port = fakePort(METRICS, EVENTS);
    const prices = ['pico', 'usuarios', 'puestos', 'gb'].flatMap((m) => [price(m, { region: 'norte' }), price(m)]);
    const r = await periodUsage(port, { id: 1, metricIds: [] }, new Date(0), new Date(1), prices);
    assert.deepEqual(r.usage, [
      { metrica: 'pico', dimensiones: { region: 'norte' }, cantidad: '5' }, { metrica: 'pico', cantidad: '7' }, // max of sur, este, oeste
      { metrica: 'usuarios', dimensiones: { region: 'norte' }, cantidad: '1' }, { metrica: 'usuarios', cantidad: '1' }, // u2 in este and oeste
      { metrica: 'puestos', cantidad: '3' }, // newest of este, oeste
      { metrica: 'gb', dimensiones: { region: 'este' }, cantidad: '1.5' }, { metrica: 'gb', dimensiones: { region: 'oeste' }, cantidad: '2' },
    ]);
    assert.deepEqual(r.unidades, { pico: '7', usuarios: '2', puestos: '3', gb: '3.5' });
    assert.deepEqual(port.calls.filter((c) => c.code === 'pico'), [{ code: 'pico', groupBy: ['region'] }, { code: 'pico', groupBy: [] }, { code: 'pico', groupBy: [], only: 3 }]);
  });

  test('without a price book: aggregates only; a metric without usage has no row and no units', async () => {
    const r = await periodUsage(fakePort([...METRICS, metric(9, 'nada', 'max')], EVENTS), { id: 1, metricIds: [] }, new Date(0), new Date(1), undefined);
    assert.equal(r.usage.length, 4);
    assert.equal(r.unidades.nada, undefined);
  });
});
