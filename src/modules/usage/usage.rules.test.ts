import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admissibleFrom, base36, canonical, contentHash, decimalOf, eventItem, isPlainValidItem, zonedMonthStart } from './usage.rules.js';

const HOUR_MS = 3_600_000;

describe('decimalOf', () => {
  test('plain decimal strings and exact JSON numbers pass; floats that lost digits and non-numbers do not', () => {
    assert.equal(decimalOf('12.50'), '12.50');
    assert.equal(decimalOf('-3'), '-3');
    assert.equal(decimalOf(2.5), '2.5');
    assert.equal(decimalOf(123456789012345), '123456789012345');
    assert.equal(decimalOf(1234567890123456), null);
    assert.equal(decimalOf(1e20), null);
    assert.equal(decimalOf(0.1 + 0.2), null);
    for (const bad of ['1e3', '12,5', '', ' 1', 'diez', true, null, Number.NaN]) assert.equal(decimalOf(bad), null, String(bad));
  });
});

describe('periods in Montevideo (UTC−3)', () => {
  test('a month starts at 03:00 UTC of its first day', () => {
    assert.equal(zonedMonthStart(new Date('2026-03-01T02:59:59Z')).toISOString(), '2026-02-01T03:00:00.000Z');
    assert.equal(zonedMonthStart(new Date('2026-03-01T03:00:00Z')).toISOString(), '2026-03-01T03:00:00.000Z');
    assert.equal(zonedMonthStart(new Date('2026-12-31T23:00:00Z')).toISOString(), '2026-12-01T03:00:00.000Z');
  });

  test('the month kept between calls never answers for another month (also in a zone with DST)', () => {
    const local = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Madrid', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    const text = (d: Date) => local.format(d).replace(',', '');
    const base = Date.parse('2025-01-01T00:00:00Z');
    // In order, backwards and at random, with instants on both sides of month starts.
    const instants = Array.from({ length: 800 }, (_, i) => base + i * 22 * HOUR_MS);
    for (const t of [...instants, ...instants.reverse(), ...instants.map(() => base + Math.floor(Math.random() * 800 * 22 * HOUR_MS))]) {
      const start = zonedMonthStart(new Date(t), 'Europe/Madrid');
      assert.ok(start.getTime() <= t);
      assert.match(text(start), /^\d{4}-\d{2}-01 00:00$/);
      assert.equal(text(start).slice(0, 7), text(new Date(t)).slice(0, 7), new Date(t).toISOString());
    }
  });

  test('the last period stays open for the grace after its end, then closes', () => {
    const grace = 72;
    assert.equal(admissibleFrom(new Date('2026-03-04T02:59:00Z'), grace).toISOString(), '2026-02-01T03:00:00.000Z');
    assert.equal(admissibleFrom(new Date('2026-03-04T03:00:00Z'), grace).toISOString(), '2026-03-01T03:00:00.000Z');
    assert.equal(admissibleFrom(new Date('2026-03-01T03:00:00Z'), 0).toISOString(), '2026-03-01T03:00:00.000Z');
  });
});

describe('keys', () => {
  test('base36 writes what toString(36) writes, for every integer below 2^53', () => {
    const samples = [0, 1, 35, 36, 37, 1295, 1296, 2 ** 32, 2 ** 53 - 1, 2 ** 53 - 36, 36 ** 10, 36 ** 10 - 1];
    for (let i = 0; i < 20_000; i++) samples.push(Math.floor(Math.random() * 2 ** 53), Math.floor(Math.random() * 2 ** (1 + (i % 53))));
    for (const n of samples) assert.equal(base36(n), n.toString(36), String(n));
  });
  test('content hash and group keys ignore property order, and see every change', () => {
    const at = new Date('2026-03-01T00:00:00Z');
    assert.equal(canonical({ b: '1', a: '2' }), '{"a":"2","b":"1"}');
    assert.equal(canonical({ '10': 1, b: true, '2': 'ñ', a: 'x' }), '{"2":"ñ","10":1,"a":"x","b":true}');
    // Stored in the dedup table: a retry after an upgrade must still hash the same (values of the first version).
    const pinned = new Date('2026-03-01T12:00:00.123Z');
    assert.equal(contentHash(7, 'calls', pinned, { region: 'sur', bytes: '12.5' }), '1sbqj4xjyhs.un3f97bxtg');
    assert.equal(contentHash(1, 'm', pinned, {}), '149tk2wch5x.ah6o20xgra');
    assert.equal(contentHash(2147483647, 'x', pinned, { '10': 1, b: true, '2': 'ñ', a: null }), '1g1ae9muh4.6t490bhbyc');
    assert.equal(contentHash(1, 'm', at, { a: 1, b: '2' }), contentHash(1, 'm', at, { b: '2', a: 1 }));
    assert.notEqual(contentHash(1, 'm', at, { a: 1 }), contentHash(1, 'm', at, { a: '1' }));
    assert.notEqual(contentHash(1, 'm', at, {}), contentHash(2, 'm', at, {}));
    assert.notEqual(contentHash(1, 'm', at, {}), contentHash(1, 'm', new Date(at.getTime() + 1), {}));
  });
});

describe('the fast path of event validation', () => {
  test('accepts only what the zod schema accepts', () => {
    const base = { idTransaccion: 't1', idContrato: 7, metrica: 'calls', fechaHora: '2026-03-01T12:00:00-03:00', propiedades: { region: 'norte', n: 2.5, ok: true, vacia: '' } };
    const samples: unknown[] = [
      base, { ...base, propiedades: undefined }, { ...base, idContrato: undefined, idExternoContrato: 'C-1' },
      { ...base, fechaHora: '2026-03-01T15:00:00.123456789Z' }, { ...base, fechaHora: '2026-03-01T15:00Z' }, { ...base, fechaHora: '2026-03-01 15:00:00Z' },
      { ...base, fechaHora: '2026-02-30T15:00:00Z' }, { ...base, fechaHora: '2026-03-01T24:00:00Z' }, { ...base, fechaHora: '2026-03-01T15:00:00+0300' },
      { ...base, idContrato: 0 }, { ...base, idContrato: 1.5 }, { ...base, idContrato: 2_147_483_648 }, { ...base, idContrato: '7' },
      { ...base, idExternoContrato: 'C-1' }, { ...base, idTransaccion: '' }, { ...base, idTransaccion: 'x'.repeat(201) }, { ...base, metrica: 3 },
      { ...base, extra: 1 }, { ...base, propiedades: { a: null } }, { ...base, propiedades: { a: [1] } }, { ...base, propiedades: { a: { b: 1 } } },
      { ...base, propiedades: { '': 'x' } }, { ...base, propiedades: { a: 'x'.repeat(501) } }, { ...base, propiedades: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
      { ...base, propiedades: [] }, null, [], 'evento', { ...base, propiedades: { a: Number.POSITIVE_INFINITY } },
    ];
    for (const s of samples) {
      const fast = isPlainValidItem(s);
      if (fast) assert.equal(eventItem.safeParse(s).success, true, JSON.stringify(s));
    }
    assert.equal(isPlainValidItem(base), true);
    assert.equal(samples.filter((s) => isPlainValidItem(s)).length, 4);
  });
});

test('grace follows the contract\'s own period (issue 40 point 6): anchored period start, month ends and February', async () => {
  const { admissibleFrom, anchoredPeriodStart } = await import('./usage.rules.js');
  // Anchor 15, Montevideo (UTC−3): on 2026-12-03 the open period began 2026-11-15 at 03:00 UTC.
  assert.equal(anchoredPeriodStart(new Date('2026-12-03T12:00:00Z'), 15).toISOString(), '2026-11-15T03:00:00.000Z');
  assert.equal(anchoredPeriodStart(new Date('2026-12-15T03:00:00Z'), 15).toISOString(), '2026-12-15T03:00:00.000Z');
  assert.equal(anchoredPeriodStart(new Date('2026-12-15T02:59:00Z'), 15).toISOString(), '2026-11-15T03:00:00.000Z');
  // Anchor 31 in March before the 31st: the period began on February's last day; across the year end.
  assert.equal(anchoredPeriodStart(new Date('2027-03-10T12:00:00Z'), 31).toISOString(), '2027-02-28T03:00:00.000Z');
  assert.equal(anchoredPeriodStart(new Date('2027-01-05T12:00:00Z'), 28).toISOString(), '2026-12-28T03:00:00.000Z');
  // 48 h of grace on 2026-12-16 with anchor 15: the period open 48 h before (from 11-15) still takes events...
  assert.equal(admissibleFrom(new Date('2026-12-16T12:00:00Z'), 48, 15).toISOString(), '2026-11-15T03:00:00.000Z');
  // ...and once the grace ran out only the new one; anchor 1 / null keep calendar months.
  assert.equal(admissibleFrom(new Date('2026-12-18T12:00:00Z'), 48, 15).toISOString(), '2026-12-15T03:00:00.000Z');
  assert.equal(admissibleFrom(new Date('2026-12-18T12:00:00Z'), 48, null).toISOString(), '2026-12-01T03:00:00.000Z');
});
