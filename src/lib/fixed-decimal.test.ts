import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal as DecimalJs } from 'decimal.js';
import { FixedDecimal } from './fixed-decimal.ts';

// The reference: decimal.js as totals used it (precision 50, ROUND_HALF_UP).
const D = DecimalJs.clone({ precision: 50, rounding: DecimalJs.ROUND_HALF_UP });

// Deterministic operands like the ones totals sees: up to 17 digits, 0-6 decimals, signs, zeros,
// ties at the rounding digit (…5) and the IVA factors.
let seed = 12345;
const rnd = (n: number) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
};
function operand(): string {
  const special = ['0', '-0', '0.00', '1', '-1', '1.22', '1.1', '100', '0.005', '-0.005', '0.0049', '2.675', '12345678901234.56', '-99999999999999999', '22.000', '10.000'];
  if (rnd(5) === 0) return special[rnd(special.length)];
  const whole = String(rnd(10) < 3 ? 0 : rnd(10 ** (1 + rnd(9))));
  const places = rnd(7);
  const frac = places ? `.${String(rnd(10 ** places)).padStart(places, '0')}` : '';
  return `${rnd(4) === 0 ? '-' : ''}${whole}${frac}`;
}

describe('FixedDecimal: the same results as decimal.js at precision 50, half-up', () => {
  it('sums, differences, products, negations and roundings of 20,000 operand pairs', () => {
    for (let i = 0; i < 20_000; i++) {
      const a = operand();
      const b = operand();
      const fa = FixedDecimal.from(a);
      const da = new D(a);
      const cases: Array<[string, FixedDecimal, DecimalJs]> = [
        ['plus', fa.plus(b), da.plus(b)],
        ['minus', fa.minus(b), da.minus(b)],
        ['times', fa.times(b), da.times(b)],
        ['neg', fa.neg(), da.neg()],
      ];
      for (const [op, f, d] of cases) {
        for (const places of [0, 2, 3]) assert.equal(f.toFixed(places), d.toFixed(places), `${a} ${op} ${b} toFixed(${places})`);
        assert.equal(f.round(2).toFixed(2), d.toDecimalPlaces(2, DecimalJs.ROUND_HALF_UP).toFixed(2), `${a} ${op} ${b} round(2)`);
      }
    }
  });

  it('quotients rounded to 50 significant digits, then to 2 decimals (double rounding included)', () => {
    const divisors = ['1.22', '1.1', '100', '3', '-7', '0.3', '1.10', '12345.678', '0.000001'];
    for (let i = 0; i < 20_000; i++) {
      const a = operand();
      const b = i % 3 === 0 ? operand() : divisors[rnd(divisors.length)];
      if (new D(b).isZero()) continue;
      const f = FixedDecimal.from(a).div(b);
      const d = new D(a).div(b);
      assert.equal(f.toFixed(60), d.toFixed(60), `${a} / ${b}`);
      assert.equal(f.round(2).toFixed(2), d.toDecimalPlaces(2, DecimalJs.ROUND_HALF_UP).toFixed(2), `${a} / ${b} round(2)`);
    }
  });

  it('prints a minus sign for a negative value rounding to zero, not for zero itself', () => {
    assert.equal(FixedDecimal.from('-0.004').toFixed(2), '-0.00');
    assert.equal(FixedDecimal.from('-0.004').round(2).toFixed(2), '0.00');
    assert.equal(FixedDecimal.from('-0').toFixed(2), '0.00');
    assert.equal(FixedDecimal.from('2.675').toFixed(2), '2.68');
    assert.equal(FixedDecimal.from('-2.675').toFixed(2), '-2.68');
    assert.equal(FixedDecimal.from('1e3').toFixed(0), '1000');
    assert.equal(FixedDecimal.from(1e-7).toFixed(8), '0.00000010');
  });

  it('refuses what is not a decimal, and division by zero', () => {
    for (const bad of ['', '-', '.', 'abc', '1.2.3', '1,5', ' 1']) assert.throws(() => FixedDecimal.from(bad), /Invalid argument/, bad);
    assert.throws(() => FixedDecimal.from('1').div('0.00'), /Division by zero/);
  });
});
