import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Decimal } from 'decimal.js';
import type { DayCfeRow } from '../issued-cfe/index.js';
import { buildReportInput, dayBefore, exceedsUiThreshold, reportState } from './daily-report.source.js';

const row = (o: Partial<DayCfeRow>): DayCfeRow => ({
  id: 1, tipoCfe: 101, serie: 'A', numero: 1, fechaEmision: '2026-11-20', moneda: 'UYU', tipoCambio: null,
  totales: { MntNetoIVATasaBasica: '100.00', MntTotal: '122.00' }, estado: 'firmado', cdgDgiSucur: '2', indPagCta3ros: null, codigoRechazo: null, ...o,
});
const opts = { rucEmisor: '211111110014', fechaResumen: '2026-11-20', secEnvio: 1, tmstFirmaEnv: '2026-11-21T01:00:00-03:00', uiThresholdUyu: new Decimal(32000), fiscalRates: new Map([['USD|2026-11-20', '39.5']]) };

test('reportState: DGI rejection voids except E02/E09; observed CFCs are left out; the rest is emitted', () => {
  assert.equal(reportState(row({ estado: 'aceptado' })), 'emitido');
  assert.equal(reportState(row({ estado: 'firmado' })), 'emitido');
  assert.equal(reportState(row({ estado: 'rechazado', codigoRechazo: 'E04' })), 'anulado');
  assert.equal(reportState(row({ estado: 'rechazado', codigoRechazo: 'E02' })), 'emitido');
  assert.equal(reportState(row({ tipoCfe: 201, estado: 'observado' })), null);
  assert.equal(reportState(row({ tipoCfe: 201, estado: 'aceptado' })), 'emitido');
});

test('a rejected CFE also recorded as a voided number is counted once; CFC voids are not reported', () => {
  const input = buildReportInput(
    [row({ numero: 1 }), row({ numero: 2, estado: 'rechazado', codigoRechazo: 'E05' })],
    [{ tipoCfe: 101, serie: 'A', desde: 2, hasta: 4 }, { tipoCfe: 201, serie: 'XA', desde: 1, hasta: 1 }],
    opts,
  );
  assert.equal(input.cfes.length, 2);
  assert.deepEqual(input.anulados.map((a) => a.nro), [3, 4]);
  assert.equal(input.cfes[1].estado, 'anulado');
});

test('foreign currency carries the fiscal rate of its FchEmis; branch code from the XML', () => {
  const [cfe] = buildReportInput([row({ moneda: 'USD', tipoCambio: '40.000' })], [], opts).cfes;
  assert.equal(cfe.fiscalRate, '39.5');
  assert.equal(cfe.tpoCambio, '40.000');
  assert.equal(cfe.cdgDGISucur, 2);
});

test('UI threshold: e-Tickets (and their CFCs) only, net amount in pesos', () => {
  const big = { MntNetoIVATasaBasica: '1000.00' };
  assert.equal(exceedsUiThreshold(row({ totales: big, moneda: 'USD', tipoCambio: '40' }), new Decimal(32000)), true);
  assert.equal(exceedsUiThreshold(row({ totales: big }), new Decimal(32000)), false);
  assert.equal(exceedsUiThreshold(row({ tipoCfe: 111, totales: big, moneda: 'USD', tipoCambio: '40' }), new Decimal(32000)), false);
  assert.equal(exceedsUiThreshold(row({ tipoCfe: 201, totales: big, moneda: 'USD', tipoCambio: '40' }), new Decimal(32000)), true);
  assert.equal(dayBefore('2026-03-01'), '2026-02-28');
});
