import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addDays, isCalendarDate, uyToday } from './dates.js';

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

  it('tells calendar days as a Date round trip does, on leap and common years from 0000 to 9999, and refuses other shapes', () => {
    const byDate = (ymd: string) => {
      const d = new Date(`${ymd}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === ymd;
    };
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    for (const year of [0, 4, 100, 400, 1900, 1999, 2000, 2024, 2026, 2100, 2400, 2999, 9999]) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const ymd = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
          assert.equal(isCalendarDate(ymd), byDate(ymd), ymd);
        }
      }
    }
    for (const bad of ['2026-1-01', '2026-01-1', '20260101', '2026/01/01', '2026-01-01T00:00', ' 2026-01-01', '', 'abcd-ef-gh']) assert.equal(isCalendarDate(bad), false, bad);
  });
});
