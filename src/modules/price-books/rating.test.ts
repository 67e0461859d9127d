/**
 * The rating engine against amounts computed by hand (issue 34 point 5): each model, tier
 * boundaries, volume jumps, started packages, minimums, dimension matches and the fallback.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Price, PriceBookVersion } from './price-books.model.js';
import { pricedKeys, ratePeriod } from './rating.js';

const fiscal = { indicadorFacturacion: 3, nombreItem: 'Llamadas API' };
const tiers = [
  { desde: '0', hasta: '1000', precioUnitario: '1.00' },
  { desde: '1000', hasta: '10000', precioUnitario: '0.80' },
  { desde: '10000', hasta: null, precioUnitario: '0.50' },
];
const book = (precios: Price[], extra: Partial<PriceBookVersion> = {}) => ({ moneda: 'UYU', precios, ...extra });
const one = (price: Omit<Price, 'metrica' | 'indicadorFacturacion' | 'nombreItem'>, cantidad: string) =>
  ratePeriod(book([{ metrica: 'api', ...fiscal, ...price }]), [{ metrica: 'api', cantidad }]);

describe('estandar', () => {
  test('quantity × unit price, rounded half-up to 2 decimals once', () => {
    const r = one({ modelo: 'estandar', precioUnitario: '0.125' }, '3');
    assert.equal(r.lineas[0]!.monto, '0.38'); // 0.375 → 0.38
    assert.equal(r.lineas[0]!.precioUnitario, '0.125');
    assert.equal(r.total, '0.38');
  });
  test('the measured quantity is billed at 3 decimals (DGI Cantidad), and that is what is priced', () => {
    const r = one({ modelo: 'estandar', precioUnitario: '2.5' }, '10.00049');
    assert.equal(r.lineas[0]!.cantidadMedida, '10.00049');
    assert.equal(r.lineas[0]!.cantidad, '10'); // 10.00049 → 10.000
    assert.equal(r.lineas[0]!.monto, '25.00');
    assert.equal(one({ modelo: 'estandar', precioUnitario: '2.5' }, '10.0005').lineas[0]!.cantidad, '10.001');
  });
  test('a negative or non-decimal quantity is refused, not billed as a credit', () => {
    assert.throws(() => one({ modelo: 'estandar', precioUnitario: '1' }, '-1'), RangeError);
    assert.throws(() => one({ modelo: 'estandar', precioUnitario: '1' }, 'mucho'));
  });
  test('large quantities keep every digit (no float): 123456789012.345 × 0.000001', () => {
    assert.equal(one({ modelo: 'estandar', precioUnitario: '0.000001' }, '123456789012.345').lineas[0]!.monto, '123456.79');
  });
});

describe('escalonado (graduated)', () => {
  const rate = (q: string) => one({ modelo: 'escalonado', tramos: tiers }, q);
  test('exactly at a boundary stays in the lower tier: 1000 → 1000 × 1.00', () => {
    const r = rate('1000');
    assert.equal(r.lineas[0]!.monto, '1000.00');
    assert.equal(r.lineas[0]!.detalle.length, 1);
  });
  test('one unit past the boundary: 1001 → 1000 × 1.00 + 1 × 0.80 = 1000.80', () => {
    const r = rate('1001');
    assert.equal(r.lineas[0]!.monto, '1000.80');
    assert.deepEqual(r.lineas[0]!.detalle.map((d) => [d.cantidad, d.precioUnitario, d.monto]), [['1000', '1.00', '1000.00'], ['1', '0.80', '0.80']]);
    assert.equal(r.lineas[0]!.precioUnitario, null);
  });
  test('three tiers: 12500 → 1000 + 9000 × 0.80 + 2500 × 0.50 = 9450.00', () => {
    assert.equal(rate('12500').lineas[0]!.monto, '9450.00');
  });
  test('a fraction inside the second tier: 1000.5 → 1000 + 0.5 × 0.80 = 1000.40', () => {
    assert.equal(rate('1000.5').lineas[0]!.monto, '1000.40');
  });
  test('each tier is rounded on its own: 1.005 × 0.5 (0.5025 → 0.50) + nothing else', () => {
    assert.equal(one({ modelo: 'escalonado', tramos: [{ desde: '0', hasta: null, precioUnitario: '0.5' }] }, '1.005').lineas[0]!.monto, '0.50');
  });
});

describe('volumen', () => {
  const rate = (q: string) => one({ modelo: 'volumen', tramos: tiers }, q);
  test('at the boundary all units at the lower tier: 1000 → 1000.00', () => {
    assert.equal(rate('1000').lineas[0]!.monto, '1000.00');
    assert.equal(rate('1000').lineas[0]!.precioUnitario, '1.00');
  });
  test('past the boundary every unit jumps to the next price: 1001 → 1001 × 0.80 = 800.80 (less than 1000)', () => {
    const r = rate('1001');
    assert.equal(r.lineas[0]!.monto, '800.80');
    assert.equal(r.lineas[0]!.precioUnitario, '0.80');
  });
  test('the open last tier: 20000 → 20000 × 0.50 = 10000.00', () => {
    assert.equal(rate('20000').lineas[0]!.monto, '10000.00');
  });
});

describe('paquete', () => {
  const rate = (q: string) => one({ modelo: 'paquete', paquete: { tamano: '1000', precio: '150.00' } }, q);
  test('a started package is billed whole: 1 unit → 1 package, 1000 → 1, 1001 → 2, 2000.001 → 3', () => {
    assert.deepEqual(['1', '1000', '1001', '2000.001'].map((q) => [rate(q).lineas[0]!.paquetes, rate(q).lineas[0]!.monto]), [['1', '150.00'], ['1', '150.00'], ['2', '300.00'], ['3', '450.00']]);
  });
  test('zero usage is zero packages', () => {
    assert.equal(rate('0').lineas[0]!.monto, '0.00');
  });
  test('a fractional package size: 2.5 units in packages of 0.75 → 4 packages', () => {
    assert.equal(one({ modelo: 'paquete', paquete: { tamano: '0.75', precio: '10' } }, '2.5').lineas[0]!.paquetes, '4');
  });
});

describe('minimums', () => {
  test('a price minimum bills its shortfall on its own line; above it, nothing', () => {
    const low = one({ modelo: 'estandar', precioUnitario: '2', minimo: '500.00' }, '100');
    assert.equal(low.lineas[0]!.monto, '200.00');
    assert.deepEqual(low.minimos.map((m) => [m.alcance, m.facturado, m.monto]), [['precio', '200.00', '300.00']]);
    assert.equal(low.total, '500.00');
    assert.equal(one({ modelo: 'estandar', precioUnitario: '2', minimo: '500.00' }, '300').minimos.length, 0);
  });
  test('a price with a minimum and no usage at all still bills the minimum', () => {
    const r = ratePeriod(book([{ metrica: 'api', ...fiscal, modelo: 'estandar', precioUnitario: '2', minimo: '99.99' }]), []);
    assert.equal(r.lineas.length, 0);
    assert.equal(r.minimos[0]!.monto, '99.99');
    assert.equal(r.total, '99.99');
  });
  test('the book minimum tops up the whole period (price minimums included) to its amount', () => {
    const r = ratePeriod(book([
      { metrica: 'api', ...fiscal, modelo: 'estandar', precioUnitario: '1' },
      { metrica: 'sms', ...fiscal, nombreItem: 'SMS', modelo: 'estandar', precioUnitario: '3', minimo: '50' },
    ], { minimoPeriodo: { monto: '1000.00', indicadorFacturacion: 3, nombreItem: 'Compromiso mínimo' } }), [{ metrica: 'api', cantidad: '120.5' }, { metrica: 'sms', cantidad: '10' }]);
    // 120.50 + 30.00 + (50 − 30 = 20.00) = 170.50 → 1000 − 170.50 = 829.50
    assert.deepEqual(r.minimos.map((m) => [m.alcance, m.monto]), [['precio', '20.00'], ['periodo', '829.50']]);
    assert.equal(r.total, '1000.00');
  });
  test('reaching the book minimum exactly adds no line', () => {
    const r = ratePeriod(book([{ metrica: 'api', ...fiscal, modelo: 'estandar', precioUnitario: '1' }], { minimoPeriodo: { monto: '100', ...fiscal } }), [{ metrica: 'api', cantidad: '100' }]);
    assert.equal(r.minimos.length, 0);
  });
});

describe('dimensions', () => {
  const prices: Price[] = [
    { metrica: 'kwh', ...fiscal, nombreItem: 'Energía norte', dimensiones: { region: 'norte' }, modelo: 'estandar', precioUnitario: '2' },
    { metrica: 'kwh', ...fiscal, nombreItem: 'Energía', modelo: 'estandar', precioUnitario: '3' },
  ];
  test('an exact match takes the dimension price; other values fall back to the undimensioned price, summed', () => {
    const r = ratePeriod(book(prices), [
      { metrica: 'kwh', dimensiones: { region: 'norte', planta: 'a' }, cantidad: '10' },
      { metrica: 'kwh', dimensiones: { region: 'norte', planta: 'b' }, cantidad: '5' },
      { metrica: 'kwh', dimensiones: { region: 'sur' }, cantidad: '1' },
      { metrica: 'kwh', cantidad: '2' },
    ]);
    assert.deepEqual(r.lineas.map((l) => [l.nombreItem, l.cantidad, l.monto]), [['Energía norte', '15', '30.00'], ['Energía', '3', '9.00']]);
    assert.equal(r.total, '39.00');
  });
  test('matching is exact: a different case is not a match', () => {
    const r = ratePeriod(book(prices), [{ metrica: 'kwh', dimensiones: { region: 'Norte' }, cantidad: '1' }]);
    assert.equal(r.lineas[0]!.nombreItem, 'Energía');
  });
  test('without a fallback, unmatched usage and unknown metrics are reported in sinPrecio, not billed', () => {
    const r = ratePeriod(book([prices[0]!]), [{ metrica: 'kwh', dimensiones: { region: 'sur' }, cantidad: '7' }, { metrica: 'otra', cantidad: '1' }]);
    assert.equal(r.lineas.length, 0);
    assert.equal(r.sinPrecio.length, 2);
    assert.equal(r.total, '0.00');
  });
});

describe('pricedKeys (issue 40 point 1)', () => {
  test('the union of the dimension keys of one metric\'s prices, sorted; none without dimensioned prices', () => {
    const p = (metrica: string, dimensiones?: Record<string, string>) => ({ metrica, ...(dimensiones ? { dimensiones } : {}), modelo: 'estandar', precioUnitario: '1', indicadorFacturacion: 3, nombreItem: 'x' }) as Price;
    const prices = [p('a', { region: 'n', plan: 'x' }), p('a', { region: 's', plan: 'y' }), p('a'), p('b')];
    assert.deepEqual(pricedKeys(prices, 'a'), ['plan', 'region']);
    assert.deepEqual(pricedKeys(prices, 'b'), []);
    assert.deepEqual(pricedKeys(prices, 'c'), []);
  });
});
