/**
 * The period CFE builder's lines, pure (issue 34 point 4): one line per price, graduated tiers
 * split so each line is Cantidad × PrecioUnitario, free lines, minimum lines, currency, empty periods.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Decimal } from 'decimal.js';
import { buildPeriodCfe, PeriodCfeError, periodIdempotencyKey, type PeriodCfeInput } from './period-cfe.js';
import type { Price } from './price-books.model.js';
import { ratePeriod } from './rating.js';

const fiscal = { indicadorFacturacion: 3, nombreItem: 'Llamadas API' };
const prices: Price[] = [
  { metrica: 'api', ...fiscal, modelo: 'escalonado', tramos: [{ desde: '0', hasta: '1000', precioUnitario: '0' }, { desde: '1000', hasta: null, precioUnitario: '0.25' }] },
  { metrica: 'sms', ...fiscal, nombreItem: 'SMS', modelo: 'paquete', paquete: { tamano: '500', precio: '100' }, unidadMedida: 'paq' },
  { metrica: 'kwh', ...fiscal, nombreItem: 'Energía', dimensiones: { region: 'norte' }, modelo: 'estandar', precioUnitario: '3.5', minimo: '100' },
];
const version = { codigo: 'PLAN', version: 3, tipoCambio: { modo: 'emision' as const } };
const input: PeriodCfeInput = { idEmpresa: 1, codComercio: 'C1', codTerminal: 'T1', tipoCfe: 111, receptor: { idCliente: 9 }, fechaEmision: '2026-04-01', periodo: { desde: '2026-03-01', hasta: '2026-03-31' }, contrato: 'Contrato 42' };
const rate = (usage: Array<{ metrica: string; cantidad: string; dimensiones?: Record<string, string> }>, extra = {}) => ratePeriod({ moneda: 'UYU', precios: prices, ...extra }, usage);

describe('lines', () => {
  const body = buildPeriodCfe(rate([{ metrica: 'api', cantidad: '1500' }, { metrica: 'sms', cantidad: '501' }, { metrica: 'kwh', dimensiones: { region: 'norte' }, cantidad: '10' }, { metrica: 'fax', cantidad: '3' }]), version, input)!;
  const rows = body.cfe.detalles.map((d) => [d.nombreItem, d.indicadorFacturacion, d.cantidad, d.precioUnitario, d.montoItem]);
  test('graduated: one line per tier reached; the free tier is an entrega gratuita (IndFact 5)', () => {
    assert.deepEqual(rows.slice(0, 2), [['Llamadas API', 5, '1000', '0', '0.00'], ['Llamadas API', 3, '500', '0.25', '125.00']]);
  });
  test('packages: started packages × package price; standard: units × price; the minimum shortfall last, quantity 1', () => {
    assert.deepEqual(rows.slice(2), [['SMS', 3, '2', '100', '200.00'], ['Energía', 3, '10', '3.5', '35.00'], ['Mínimo: Energía', 3, '1', '65.00', '65.00']]);
  });
  test('every line satisfies MontoItem = round2(Cantidad × PrecioUnitario) (B-C24) and is numbered 1..n', () => {
    body.cfe.detalles.forEach((d, i) => {
      assert.equal(d.numeroLineaDetalle, i + 1);
      assert.equal(new Decimal(d.cantidad).times(d.precioUnitario).toFixed(2, Decimal.ROUND_HALF_UP), d.montoItem);
    });
  });
  test('the period goes in PeriodoDesde/Hasta and the adenda, with the book version and unpriced usage', () => {
    assert.deepEqual([body.cfe.idDoc.periodoDesde, body.cfe.idDoc.periodoHasta], ['2026-03-01', '2026-03-31']);
    assert.match(body.cfe.adenda, /Período facturado: 2026-03-01 a 2026-03-31\./);
    assert.match(body.cfe.adenda, /Contrato 42\./);
    assert.match(body.cfe.adenda, /Lista de precios PLAN versión 3\./);
    assert.match(body.cfe.adenda, /sin precio.*fax 3/);
    assert.equal(body.cfe.totales, undefined);
  });
  test('dimensions are named in the description', () => {
    assert.match(body.cfe.detalles[3]!.descripcionItem, /^kwh \(region=norte\)/);
  });
});

describe('period edges', () => {
  test('nothing billable: no CFE', () => {
    assert.equal(buildPeriodCfe(ratePeriod({ moneda: 'UYU', precios: [prices[0]!] }, []), version, input), undefined);
    // A quantity that rounds to 0 at DGI's 3 decimals sells nothing either.
    assert.equal(buildPeriodCfe(ratePeriod({ moneda: 'UYU', precios: [prices[0]!] }, [{ metrica: 'api', cantidad: '0.0004' }]), version, input), undefined);
  });
  test('a minimum alone still bills', () => {
    const b = buildPeriodCfe(ratePeriod({ moneda: 'UYU', precios: [prices[2]!] }, []), version, input)!;
    assert.deepEqual(b.cfe.detalles.map((d) => d.montoItem), ['100.00']);
  });
});

describe('currency', () => {
  const usd = (tipoCambio: typeof version.tipoCambio | { modo: 'fijo'; valor: string } | { modo: 'cierrePeriodo' }, extra: Partial<PeriodCfeInput> = {}) =>
    buildPeriodCfe(rate([{ metrica: 'sms', cantidad: '1' }], { moneda: 'USD' }), { ...version, tipoCambio }, { ...input, ...extra })!.cfe.totales;
  test('emision leaves the rate to emission; fijo sends the book\'s value; cierrePeriodo sends the caller\'s', () => {
    assert.deepEqual(usd({ modo: 'emision' }), { tipoMoneda: 'USD' });
    assert.deepEqual(usd({ modo: 'fijo', valor: '39.5' }), { tipoMoneda: 'USD', tipoCambio: '39.5' });
    assert.deepEqual(usd({ modo: 'cierrePeriodo' }, { tipoCambioCierre: '40.125' }), { tipoMoneda: 'USD', tipoCambio: '40.125' });
  });
  test('cierrePeriodo without the rate is refused, never guessed', () => {
    assert.throws(() => usd({ modo: 'cierrePeriodo' }), PeriodCfeError);
  });
  test('the Idempotency-Key is derived from contract and period', () => {
    assert.equal(periodIdempotencyKey(42, '2026-03-01'), 'contrato-42-periodo-2026-03-01');
  });
});
