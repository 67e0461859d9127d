import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatCantidad, formatFecha, formatFechaHora, formatMonto, formatNumber, formatPrecio, formatTasa } from './format.ts';

describe('formatMonto', () => {
  it('uses thousands "." and decimals "," with the currency symbol', () => {
    assert.equal(formatMonto('1234.5', 'UYU'), '$ 1.234,50');
    assert.equal(formatMonto('10', 'USD'), 'U$S 10,00');
    assert.equal(formatMonto('168816', 'UYU'), '$ 168.816,00');
    assert.equal(formatMonto('1234567.891'), '$ 1.234.567,89');
    assert.equal(formatMonto('0'), '$ 0,00');
    assert.equal(formatMonto(999.999, 'EUR'), '€ 1.000,00');
  });

  it('rounds half-up on the decimal string, not in binary floating point', () => {
    assert.equal(formatMonto('1.005'), '$ 1,01');
    assert.equal(formatMonto('2.675'), '$ 2,68');
    assert.equal(formatMonto('-0.004'), '$ 0,00');
  });

  it('keeps the sign in front of the digits', () => {
    assert.equal(formatMonto('-1234.5'), '$ -1.234,50');
    assert.equal(formatMonto('-10', 'USD'), 'U$S -10,00');
  });

  it('prints UI/UR for indexed units and the ISO code for other currencies', () => {
    assert.equal(formatMonto('100', 'UYI'), 'UI 100,00');
    assert.equal(formatMonto('100', 'UYR'), 'UR 100,00');
    assert.equal(formatMonto('100', 'CHF'), 'CHF 100,00');
  });
});

describe('other formats', () => {
  it('quantities, prices and rates', () => {
    assert.equal(formatCantidad('2'), '2');
    assert.equal(formatCantidad('8.500'), '8,5');
    assert.equal(formatCantidad('1234.125'), '1.234,125');
    assert.equal(formatPrecio('45.5'), '45,50');
    assert.equal(formatPrecio('0.123456'), '0,123456');
    assert.equal(formatPrecio('1500'), '1.500,00');
    assert.equal(formatTasa('22.000'), '22%');
    assert.equal(formatTasa('10'), '10%');
    assert.equal(formatNumber('100', 0), '100');
  });

  it('dates', () => {
    assert.equal(formatFecha('2026-07-08'), '08/07/2026');
    assert.equal(formatFecha('2026-07-08T18:06:51-03:00'), '08/07/2026');
    assert.equal(formatFechaHora('2026-07-08T18:06:51-03:00'), '08/07/2026 18:06');
    assert.throws(() => formatFecha('08/07/2026'));
  });
});
