import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPlanBody } from './recurring.schemas.js';
import { period } from './recurring.schedule.js';
import { emissionRequest, runKey, scheduleOf } from './recurring.view.js';

const plan = createPlanBody.parse({
  idEmpresa: 3, codComercio: 'C1', codTerminal: 'T1', fechaInicio: '2027-01-31', frecuencia: { unidad: 'mes' },
  plantilla: { idDoc: { tipoCfe: 101 }, adenda: 'Contrato 12', detalles: [{ indicadorFacturacion: 3, nombreItem: 'Alquiler', cantidad: '1.5', precioUnitario: '1000', montoItem: '1500', descuentoMonto: '10' }] },
});
const { idEmpresa: _id, ...def } = plan;

test('defaults: 06:00 Montevideo, nunca, adelantado, emitir_todos, no mail', () => {
  assert.deepEqual([def.horaEmision, def.zonaHoraria, def.fin, def.periodo.modo, def.politicaAtrasos, def.envioEmail.activo], ['06:00', 'America/Montevideo', { tipo: 'nunca' }, 'adelantado', 'emitir_todos', false]);
});

test('one period: the template as is, the run\'s date, the billed period first in the adenda', () => {
  const r = emissionRequest(3, def, [period(scheduleOf(def), 1)], '2027-02-28');
  assert.equal(r.cfe.idDoc.fechaEmision, '2027-02-28');
  assert.equal(r.cfe.adenda, 'Período facturado: 28/02/2027 al 30/03/2027.\nContrato 12');
  assert.equal(r.cfe.detalles[0].cantidad, '1.5');
  assert.deepEqual([r.idEmpresa, r.codComercio, r.codTerminal], [3, 'C1', 'T1']);
});

test('emitir_uno over three periods: quantities and line amounts × 3, the whole span in the adenda', () => {
  const s = scheduleOf(def);
  const r = emissionRequest(3, def, [period(s, 0), period(s, 1), period(s, 2)], '2027-03-31');
  const l = r.cfe.detalles[0];
  assert.deepEqual([l.cantidad, l.montoItem, l.descuentoMonto, l.precioUnitario], ['4.5', '4500', '30', '1000']);
  assert.match(r.cfe.adenda!, /^Período facturado: 31\/01\/2027 al 29\/04\/2027 \(3 períodos\)\./);
});

test('run keys: the Idempotency-Key of a period, and of a re-issue after a DGI rejection', () => {
  assert.equal(runKey(7, '2027-01-31'), 'recurrente-7-2027-01-31');
  assert.equal(runKey(7, '2027-01-31', 2), 'recurrente-7-2027-01-31-reemision-2');
});
