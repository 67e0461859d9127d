import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildPeriodCfe } from '../price-books/period-cfe.js';
import type { PriceBookVersion } from '../price-books/price-books.model.js';
import { ratePeriod } from '../price-books/rating.js';
import { correctionNotes } from './period-corrections.js';

const version: PriceBookVersion = {
  codigo: 'API', version: 1, nombre: 'API', moneda: 'UYU', tipoCambio: { modo: 'emision' }, vigenteDesde: '2026-01-01', vigenteHasta: null,
  minimoPeriodo: { monto: '100.00', indicadorFacturacion: 3, nombreItem: 'Mínimo mensual' },
  precios: [
    { metrica: 'calls', modelo: 'estandar', precioUnitario: '2', indicadorFacturacion: 3, nombreItem: 'Llamadas' },
    { metrica: 'sms', modelo: 'estandar', precioUnitario: '1', indicadorFacturacion: 3, nombreItem: 'SMS' },
  ],
} as PriceBookVersion;
const header = (r: ReturnType<typeof ratePeriod>) => buildPeriodCfe(r, version, { idEmpresa: 1, codComercio: 'C1', codTerminal: 'T1', tipoCfe: 111, fechaEmision: '2026-04-02', periodo: { desde: '2026-03-01', hasta: '2026-03-31' } })!;
const ref = { tipoCfe: 111, serie: 'A', numero: 42, fecha: '2026-04-01' };

test('more usage after the close: one debit note (113) for the difference, referencing the original', () => {
  const billed = ratePeriod(version, [{ metrica: 'calls', cantidad: '60' }]); // 120.00, no minimum shortfall
  const now = ratePeriod(version, [{ metrica: 'calls', cantidad: '65' }]); // 130.00
  const [note, ...rest] = correctionNotes(billed, now, header(now), ref);
  assert.equal(rest.length, 0);
  assert.deepEqual([note!.kind, note!.amount, note!.body.cfe.idDoc.tipoCfe], ['debito', '10.00', 113]);
  assert.deepEqual(note!.body.cfe.referencias, [{ tipoCfe: 111, serie: 'A', numero: 42, fecha: '2026-04-01', razon: 'Corrección de consumo del período 2026-03-01 a 2026-03-31' }]);
  assert.deepEqual(note!.body.cfe.detalles.map((d) => [d.nombreItem, d.cantidad, d.precioUnitario, d.montoItem]), [['Llamadas', '1', '10.00', '10.00']]);
});

test('a minimum absorbs part of the change: lines and the minimum shortfall move in opposite directions, debit and credit', () => {
  const billed = ratePeriod(version, [{ metrica: 'calls', cantidad: '10' }]); // 20.00 + shortfall 80.00 = 100.00
  const now = ratePeriod(version, [{ metrica: 'calls', cantidad: '30' }, { metrica: 'sms', cantidad: '5' }]); // 60 + 5 + shortfall 35 = 100.00
  const notes = correctionNotes(billed, now, header(now), ref);
  assert.deepEqual(notes.map((n) => [n.kind, n.amount, n.body.cfe.idDoc.tipoCfe]), [['debito', '45.00', 113], ['credito', '45.00', 112]]);
  assert.deepEqual(notes[1]!.body.cfe.detalles.map((d) => d.nombreItem), ['Mínimo mensual']);
});

test('no change: no note', () => {
  const r = ratePeriod(version, [{ metrica: 'calls', cantidad: '60' }]);
  assert.deepEqual(correctionNotes(r, r, header(r), ref), []);
});
