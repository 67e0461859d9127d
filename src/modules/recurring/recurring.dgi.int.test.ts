/**
 * A plan's CFE that DGI later rejects marks its run (through the DGI submission's state changes,
 * wired in modules/index.ts), and reintentar issues a new CFE under a new key. Real job runner and
 * the in-process DGI simulator.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import type { JobRunner } from '../../platform/jobs/runner.js';
import type { DgiSimulator } from '../dgi/dgi.simulator.js';
import { enqueueSubmitPending } from '../dgi-submission/dgi-submission.jobs.js';
import { setUpDgiIssuer, simulatorOf, startRunner, today, waitFor } from '../dgi-submission/dgi-submission.test-helpers.js';
import { cfesOf, createPlan, planBody, runsOf } from './recurring.test-helpers.js';

let t: TestApp;
let admin: string;
let sim: DgiSimulator;
let runner: JobRunner | undefined;

before(async () => {
  t = await createTestApp({ DGI_RETRY_BASE_MS: '50', DGI_RETRY_MAX_MS: '200', DGI_WAKE_DEBOUNCE_MS: '0' });
  admin = await t.adminToken();
  sim = await simulatorOf(t);
  runner = await startRunner(t);
});
after(async () => {
  await runner?.stop();
  await t.close();
});

test('DGI rejects the CFE of a run (BE E05): the run becomes rechazado_dgi with the code, an event; reintentar issues a new CFE', async () => {
  const issuer = await setUpDgiIssuer(t, admin);
  const companyId = issuer.company.id;
  const id = await createPlan(t, admin, planBody(companyId, { fechaInicio: today, anclaje: {} }));
  const first = await t.call(admin, 'POST', `/api/v1/facturacionrecurrente/emitirAhora/${id}`);
  assert.equal(first.body.ejecucion.resultado, 'emitido', JSON.stringify(first.body));
  const { serie, numero, periodoDesde } = first.body.ejecucion;
  sim.control.rejectNext({ tipoCFE: 101, serie, nro: numero }, ['E05']);
  await enqueueSubmitPending(t.db);

  const run = await waitFor('the run marked rejected', async () => (await runsOf(t, id)).find((r) => r.resultado === 'rechazado_dgi'));
  assert.equal(run.codigo, 'E05');
  const h = await t.call(admin, 'GET', `/api/v1/facturacionrecurrente/reporte-historial?idEmpresa=${companyId}&idPlan=${id}`);
  assert.deepEqual([h.body.data[0].resultado, h.body.data[0].estadoDgi, h.body.data[0].codigo], ['rechazado_dgi', 'rechazado', 'E05']);
  // Polled: the feed holds back events while older transactions (also other tests' on this server) run.
  await waitFor('the run-failed event', async () => {
    const events = (await t.call(admin, 'GET', `/api/v1/eventos?idEmpresa=${companyId}&length=500`)).body.data as Array<{ type: string; data: any }>;
    return events.some((e) => e.type === 'PlanRecurrente.EjecucionFallida' && e.data.resultado === 'rechazado_dgi' && e.data.idPlan === id);
  });

  const retry = await t.call(admin, 'POST', `/api/v1/facturacionrecurrente/reintentar/${id}`, { periodoDesde });
  assert.equal(retry.status, 200, JSON.stringify(retry.body));
  assert.equal(retry.body.ejecucion.resultado, 'emitido');
  assert.notEqual(retry.body.ejecucion.idCfeEmitido, first.body.ejecucion.idCfeEmitido);
  // The period's CFEs only: the job runner of this test may also issue today's scheduled run meanwhile
  // (an activation queues a pass; a starting worker fills missed ticks).
  const keys = (await cfesOf(t, companyId, id)).map((c) => c.key).filter((k) => k?.startsWith(`recurrente-${id}-${periodoDesde}`));
  assert.deepEqual(keys, [`recurrente-${id}-${periodoDesde}`, `recurrente-${id}-${periodoDesde}-reemision-1`]);
});
