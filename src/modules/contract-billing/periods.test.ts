import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextPeriod, periodAt, periodOfDate } from './periods.js';

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
