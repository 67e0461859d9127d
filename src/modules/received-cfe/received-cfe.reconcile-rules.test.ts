import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DatosCfeRecibido } from '../dgi/dgi.recibidos-client.js';
import { reconcile, splitPeriod, type LocalReceived } from './received-cfe.reconcile-rules.js';

const R = '210000000011';
const local = (numero: number, over: Partial<LocalReceived> = {}): LocalReceived => ({
  id: numero, rutEmisor: R, tipoCfe: 111, serie: 'A', numero, estado: 'pendiente', fechaEmision: '2026-03-01', moneda: 'UYU', mntTotal: '122.00',
  totales: { MntIVATasaBasica: '22.00', MntTotal: '122.00' }, ...over,
});
const dgi = (Nro: number, over: Partial<DatosCfeRecibido> = {}): DatosCfeRecibido => ({
  TipoCFE: 111, Serie: 'A', Nro, Estado: 'AE', FechaHora: null, RUCEmisor: R, Moneda: 'UYU', TotalNeto: '100.00', TotalIVA: '22', MontoTotal: '122', TotalRetenido: '0.00', ...over,
});

describe('reconcile', () => {
  test('the same CFE on both sides, amounts written differently: nothing to report', () => {
    const r = reconcile([local(1)], [dgi(1)]);
    assert.deepEqual(r.items, []);
    assert.deepEqual(r.conteos, { faltante_en_buzon: 0, no_registrado_en_dgi: 0, diferencia_estado: 0, diferencia_monto: 0 });
  });

  test('each category from a scripted case', () => {
    const r = reconcile(
      [local(1), local(2), local(3, { estado: 'anulado_emisor' }), local(4, { mntTotal: '150.00' })],
      [dgi(1), dgi(3), dgi(4), dgi(5), dgi(6, { Estado: 'BE' }), dgi(2, { Serie: 'B' })],
    );
    const got = r.items.map((i) => `${i.categoria}:${i.serie}${i.numero}`).sort();
    assert.deepEqual(got, ['diferencia_estado:A3', 'diferencia_monto:A4', 'faltante_en_buzon:A5', 'faltante_en_buzon:B2', 'no_registrado_en_dgi:A2']);
    assert.deepEqual(r.items.find((i) => i.categoria === 'diferencia_monto')!.diferencias, [{ campo: 'montoTotal', local: '150.00', dgi: '122.00' }]);
    assert.equal(r.conteos.faltante_en_buzon, 2);
  });

  test('DGI rejected a CFE we hold as valid: a state difference; currency differences are listed', () => {
    const r = reconcile([local(1, { moneda: 'USD' })], [dgi(1, { Estado: 'BE' })]);
    assert.deepEqual(r.items.map((i) => i.categoria), ['diferencia_estado', 'diferencia_monto']);
    assert.deepEqual(r.items[1].diferencias[0], { campo: 'moneda', local: 'USD', dgi: 'UYU' });
  });
});

describe('splitPeriod', () => {
  test('31-day windows covering the period exactly', () => {
    assert.deepEqual(splitPeriod('2026-01-01', '2026-01-31', 31), [{ desde: '2026-01-01', hasta: '2026-01-31' }]);
    assert.deepEqual(splitPeriod('2026-01-01', '2026-03-05', 31), [
      { desde: '2026-01-01', hasta: '2026-01-31' }, { desde: '2026-02-01', hasta: '2026-03-03' }, { desde: '2026-03-04', hasta: '2026-03-05' },
    ]);
  });
});
