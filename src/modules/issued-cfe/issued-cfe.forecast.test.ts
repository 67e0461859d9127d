import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forecastNumbers, sameNumbers } from './issued-cfe.forecast.js';
import type { ReservedNumber } from './issued-cfe.ports.js';

const last: ReservedNumber = { caeRangeId: 7, serie: 'A', numero: 10, cae: { NA: '90110000001', DNro: 1, HNro: 13, FVD: '2027-12-31' } };

describe('number forecast', () => {
  it('continues the same range after the last number', () => {
    const f = forecastNumbers(last, 3)!;
    assert.deepEqual(f.map((n) => n.numero), [11, 12, 13]);
    assert.ok(f.every((n) => n.caeRangeId === 7 && n.serie === 'A' && n.cae.NA === '90110000001'));
  });

  it('gives up when the range cannot hold the whole batch (the transaction decides)', () => {
    assert.equal(forecastNumbers(last, 4), undefined);
    assert.equal(forecastNumbers(last, 0), undefined);
  });

  it('matches only identical numbers and CAE data', () => {
    const f = forecastNumbers(last, 2)!;
    assert.ok(sameNumbers(f, forecastNumbers(last, 2)!));
    assert.ok(!sameNumbers(f, forecastNumbers({ ...last, numero: 11 }, 2)!), 'shifted numbers');
    assert.ok(!sameNumbers(f, f.slice(0, 1)), 'different length');
    assert.ok(!sameNumbers(f, f.map((n) => ({ ...n, caeRangeId: 8 }))), 'other range');
    assert.ok(!sameNumbers(f, f.map((n) => ({ ...n, cae: { ...n.cae, FVD: '2028-01-01' } }))), 'other expiry');
    assert.ok(!sameNumbers(f, f.map((n) => ({ ...n, cae: { ...n.cae, CAEEspecial: 2 } }))), 'special CAE');
  });
});
