import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addDays, uyToday } from './dates.js';

describe('dates in Uruguay', () => {
  it('today is the Uruguayan day (UTC−3): 02:59 UTC is still the day before', () => {
    assert.equal(uyToday(Date.parse('2026-11-22T02:59:59Z')), '2026-11-21');
    assert.equal(uyToday(new Date('2026-11-22T03:00:00Z')), '2026-11-22');
    assert.equal(uyToday(new Date('2026-03-11T02:30:00Z')), '2026-03-10');
  });

  it('adds days across months and years', () => {
    assert.equal(addDays('2026-12-31', 1), '2027-01-01');
    assert.equal(addDays('2028-03-01', -1), '2028-02-29');
    assert.equal(addDays('2026-11-21', 60), '2027-01-20');
  });
});
