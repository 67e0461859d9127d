import assert from 'node:assert/strict';
import { test } from 'node:test';
import { currentPeriod, nextPeriod, periodAt, periodBetween, periodFrom, periodOfDate } from './periods.js';

test('anchor 1: calendar months, local midnight is 03:00 UTC', () => {
  const p = periodOfDate('2026-03-15', 1);
  assert.deepEqual([p.desde, p.hasta, p.start.toISOString(), p.end.toISOString()], ['2026-03-01', '2026-03-31', '2026-03-01T03:00:00.000Z', '2026-04-01T03:00:00.000Z']);
  // 02:30 UTC on April 1st is still March 31st in Montevideo.
  assert.equal(periodAt(new Date('2026-04-01T02:30:00Z'), 1).desde, '2026-03-01');
  assert.equal(periodAt(new Date('2026-04-01T03:00:00Z'), 1).desde, '2026-04-01');
});

test('anchor 15: a day before the anchor belongs to the previous month\'s period, across the year', () => {
  assert.deepEqual([periodOfDate('2026-01-14', 15).desde, periodOfDate('2026-01-14', 15).hasta], ['2025-12-15', '2026-01-14']);
  assert.deepEqual([periodOfDate('2026-01-15', 15).desde, periodOfDate('2026-01-15', 15).hasta], ['2026-01-15', '2026-02-14']);
});

test('anchor 31: shorter months start on their last day and the anchor comes back after February', () => {
  const feb = periodOfDate('2026-03-01', 31);
  assert.deepEqual([feb.desde, feb.hasta], ['2026-02-28', '2026-03-30']);
  assert.equal(nextPeriod('2026-02-28', 31).desde, '2026-03-31');
  assert.equal(nextPeriod('2026-03-31', 31).desde, '2026-04-30');
  assert.equal(nextPeriod('2026-04-30', 31).desde, '2026-05-31');
  assert.equal(periodOfDate('2028-02-29', 30).desde, '2028-02-29'); // leap year
});

test('nextPeriod of anchor 1 walks months and years', () => {
  assert.equal(nextPeriod('2026-12-01', 1).desde, '2027-01-01');
  assert.equal(nextPeriod('2026-12-01', 1).hasta, '2027-01-31');
});

test('periodFrom: on an anchor date the anchored period; elsewhere a short one up to the next anchor date (issue 40 point 2)', () => {
  const aligned = periodFrom('2026-11-01', 1);
  assert.deepEqual([aligned.desde, aligned.hasta], ['2026-11-01', '2026-11-30']);
  // diaAncla 1 → 28 while 2026-11-01 is open: the open period closes short on 11-27, then 28th to 27th.
  const short = periodFrom('2026-11-01', 28);
  assert.deepEqual([short.desde, short.hasta, short.start.toISOString(), short.end.toISOString()], ['2026-11-01', '2026-11-27', '2026-11-01T03:00:00.000Z', '2026-11-28T03:00:00.000Z']);
  assert.equal(nextPeriod(short.desde, 28).desde, '2026-11-28');
  // Across the year end and February.
  assert.deepEqual([periodFrom('2026-12-20', 31).hasta, periodFrom('2027-02-01', 31).hasta], ['2026-12-30', '2027-02-27']);
});

test('currentPeriod: the open (possibly short) period while now is in it, else the anchored period', () => {
  assert.equal(currentPeriod('2026-11-01', 28, new Date('2026-11-10T12:00:00Z')).desde, '2026-11-01');
  assert.equal(currentPeriod('2026-11-01', 28, new Date('2026-11-28T12:00:00Z')).desde, '2026-11-28');
  const b = periodBetween('2026-11-01', '2026-11-15');
  assert.deepEqual([b.start.toISOString(), b.end.toISOString()], ['2026-11-01T03:00:00.000Z', '2026-11-16T03:00:00.000Z']);
});
