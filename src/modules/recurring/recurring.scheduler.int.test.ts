/**
 * The scheduler through the real app and database with a controllable clock: a year of a plan
 * anchored on the 31st with the service down for two months, the missed-run policies, pause and
 * resume, two schedulers racing, a crash between numbering and marking the run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { cfesByIdempotencyKeys } from '../issued-cfe/issued-cfe.handoff.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';
import { createScheduler } from './recurring.scheduler.js';
import { recurringRuns } from './recurring.tables.js';
import { cfesOf, countPlanCfes, createPlan, planBody, runsOf, testClock } from './recurring.test-helpers.js';

const clock = testClock('2026-01-02T12:00:00Z');
let t: TestApp;
let admin: string;
let company: { id: number; rut: string };

const tick = async () => {
  await t.modules.services.recurring.resumeDue(clock.now());
  return t.modules.services.recurringScheduler.tick(clock.now());
};

before(async () => {
  t = await createTestApp({}, { now: clock.now });
  admin = await t.adminToken();
  company = await insertCompany(t);
  await setUpIssuer(t.db, t.call, admin, company);
});
after(async () => t.close());

describe('a simulated year', () => {
  test('anchored on the 31st, ticking every day except April and May (service down): one CFE per month end, no ratchet', async () => {
    clock.set('2026-01-02T12:00:00Z');
    const id = await createPlan(t, admin, planBody(company.id));
    for (let day = new Date('2026-01-02T12:00:00Z'); day < new Date('2027-01-01T12:00:00Z'); day = new Date(day.getTime() + 86_400_000)) {
      const iso = day.toISOString();
      if (iso >= '2026-04-01' && iso < '2026-06-01') continue; // the service is stopped
      clock.set(iso);
      await tick();
    }
    const runs = await runsOf(t, id);
    assert.deepEqual(runs.map((r) => r.periodoDesde), ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30', '2026-07-31', '2026-08-31', '2026-09-30', '2026-10-31', '2026-11-30', '2026-12-31']);
    assert.ok(runs.every((r) => r.resultado === 'emitido'), JSON.stringify(runs.map((r) => [r.resultado, r.codigo, r.motivo])));
    assert.equal(runs[1].periodoHasta, '2026-03-30');
    const cfes = await cfesOf(t, company.id, id);
    assert.equal(cfes.length, 12);
    assert.deepEqual(new Set(cfes.map((c) => c.id)), new Set(runs.map((r) => r.cfeId)));
    // The two missed runs were issued the day the service came back, dated that day, with their own period.
    const april = cfes.find((c) => c.id === runs[3].cfeId)!;
    assert.equal(april.fechaEmision, '2026-06-01');
    assert.match(april.adenda ?? '', /^Período facturado: 30\/04\/2026 al 30\/05\/2026\./);
    assert.equal(cfes.find((c) => c.id === runs[2].cfeId)!.fechaEmision, '2026-03-31');
  });
});

describe('service down for three periods, per missed-run policy', () => {
  const downtime = async (politicaAtrasos: string) => {
    clock.set('2026-01-05T12:00:00Z');
    const id = await createPlan(t, admin, planBody(company.id, { politicaAtrasos }));
    clock.set('2026-04-30T10:00:00Z'); // 07:00 in Montevideo: January, February and March missed, April due
    await tick();
    return { id, runs: await runsOf(t, id), cfes: await cfesOf(t, company.id, id) };
  };

  test('emitir_todos: four CFEs, one per period', async () => {
    const { runs, cfes } = await downtime('emitir_todos');
    assert.deepEqual(runs.map((r) => r.resultado), ['emitido', 'emitido', 'emitido', 'emitido']);
    assert.equal(cfes.length, 4);
  });

  test('emitir_uno: one CFE for the four periods (quantity × 4), the others marked acumulado in it', async () => {
    const { runs, cfes } = await downtime('emitir_uno');
    assert.deepEqual(runs.map((r) => r.resultado), ['emitido', 'acumulado', 'acumulado', 'acumulado']);
    assert.equal(cfes.length, 1);
    assert.equal(runs[0].periodos, 4);
    assert.equal(runs[0].periodoHasta, '2026-05-30');
    assert.ok(runs.slice(1).every((r) => r.acumuladaEn === runs[0].id && r.cfeId === runs[0].cfeId));
    const cfe = await t.call(admin, 'GET', `/api/v1/cfeemitido/${cfes[0].id}`);
    assert.equal(cfe.body.detalles[0].Cantidad ?? cfe.body.detalles[0].cantidad, '4');
    assert.match(cfe.body.adenda, /31\/01\/2026 al 30\/05\/2026 \(4 períodos\)/);
  });

  test('omitir: the three missed periods omitido, only April issued', async () => {
    const { runs, cfes } = await downtime('omitir');
    assert.deepEqual(runs.map((r) => r.resultado), ['omitido', 'omitido', 'omitido', 'emitido']);
    assert.equal(cfes.length, 1);
  });
});

describe('pause and resume', () => {
  test('paused over two month ends: resumed with omitir (default) they are omitido, the next one is issued', async () => {
    clock.set('2026-01-31T12:00:00Z');
    const id = await createPlan(t, admin, planBody(company.id));
    await tick();
    clock.set('2026-02-10T12:00:00Z');
    assert.equal((await t.call(admin, 'POST', `/api/v1/facturacionrecurrente/pausar/${id}`, {})).status, 200);
    clock.set('2026-03-31T12:00:00Z');
    await tick();
    clock.set('2026-04-15T12:00:00Z');
    const r = await t.call(admin, 'POST', `/api/v1/facturacionrecurrente/reanudar/${id}`, {});
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.proximaEjecucion, '2026-04-30T09:00:00.000Z');
    clock.set('2026-04-30T12:00:00Z');
    await tick();
    const runs = await runsOf(t, id);
    assert.deepEqual(runs.map((x) => [x.periodoDesde, x.resultado, x.origen]), [
      ['2026-01-31', 'emitido', 'programada'], ['2026-02-28', 'omitido', 'pausa'], ['2026-03-31', 'omitido', 'pausa'], ['2026-04-30', 'emitido', 'programada'],
    ]);
  });

  test('pause with hasta resumes by itself; resume with recuperar issues what fell inside the pause', async () => {
    clock.set('2026-01-20T12:00:00Z');
    const id = await createPlan(t, admin, planBody(company.id));
    await t.call(admin, 'POST', `/api/v1/facturacionrecurrente/pausar/${id}`, { hasta: '2026-02-15T00:00:00-03:00' });
    clock.set('2026-02-16T12:00:00Z');
    await tick();
    const plan = await t.call(admin, 'GET', `/api/v1/facturacionrecurrente/${id}`);
    assert.equal(plan.body.estado, 'activo');
    assert.deepEqual((await runsOf(t, id)).map((x) => [x.periodoDesde, x.resultado]), [['2026-01-31', 'omitido']]);

    const id2 = await createPlan(t, admin, planBody(company.id, { fechaInicio: '2026-02-28' }));
    await t.call(admin, 'POST', `/api/v1/facturacionrecurrente/pausar/${id2}`, {});
    clock.set('2026-03-01T12:00:00Z');
    await t.call(admin, 'POST', `/api/v1/facturacionrecurrente/reanudar/${id2}`, { politicaReanudacion: 'recuperar' });
    await tick();
    assert.deepEqual((await runsOf(t, id2)).map((x) => [x.periodoDesde, x.resultado]), [['2026-02-28', 'emitido']]);
  });
});

describe('a pause with hasta ends at hasta, however late the pass that notices it', () => {
  const daily = (over: Record<string, unknown> = {}) => planBody(company.id, { frecuencia: { unidad: 'dia' }, anclaje: {}, fechaInicio: '2026-11-29', ...over });
  const pause = async (id: number, body: Record<string, unknown>) => {
    const r = await t.call(admin, 'POST', `/api/v1/facturacionrecurrente/pausar/${id}`, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const ledger = async (id: number) => (await runsOf(t, id)).map((x) => [x.periodoDesde, x.resultado, x.origen, x.motivo]);
  const PAUSED = 'Plan pausado en la fecha de la ejecución.';

  test('no pass until two days after hasta: runs inside the pause omitido (pause policy), runs after it issued (emitir_todos)', async () => {
    clock.set('2026-11-28T12:00:00Z');
    const id = await createPlan(t, admin, daily());
    await pause(id, { hasta: '2026-12-01T12:00:00Z' });
    clock.set('2026-12-03T12:00:00Z'); // daily runs at 09:00Z; nothing ran between the pause and now
    await tick();
    assert.deepEqual(await ledger(id), [
      ['2026-11-29', 'omitido', 'pausa', PAUSED], ['2026-11-30', 'omitido', 'pausa', PAUSED], ['2026-12-01', 'omitido', 'pausa', PAUSED],
      ['2026-12-02', 'emitido', 'programada', null], ['2026-12-03', 'emitido', 'programada', null],
    ]);
    const plan = (await t.call(admin, 'GET', `/api/v1/facturacionrecurrente/${id}`)).body;
    assert.deepEqual([plan.estado, plan.pausadoHasta, plan.proximaEjecucion], ['activo', null, '2026-12-04T09:00:00.000Z']);
    assert.equal((await cfesOf(t, company.id, id)).length, 2);
  });

  test('the runs after hasta follow politicaAtrasos: omitir keeps only the current one, with the missed-run reason', async () => {
    clock.set('2026-11-28T12:00:00Z');
    const id = await createPlan(t, admin, daily({ politicaAtrasos: 'omitir' }));
    await pause(id, { hasta: '2026-12-01T12:00:00Z' });
    clock.set('2026-12-03T12:00:00Z');
    await tick();
    assert.deepEqual((await ledger(id)).slice(3), [
      ['2026-12-02', 'omitido', 'programada', 'Período atrasado omitido (politicaAtrasos omitir).'], ['2026-12-03', 'emitido', 'programada', null],
    ]);
  });

  test('a pause ending exactly at a run time: that run is issued (the plan is active at hasta); the plan shows it as next while paused', async () => {
    clock.set('2026-11-28T12:00:00Z');
    const id = await createPlan(t, admin, daily());
    const paused = await pause(id, { hasta: '2026-12-01T09:00:00Z' });
    assert.deepEqual([paused.estado, paused.pausadoHasta, paused.proximaEjecucion], ['pausado', '2026-12-01T09:00:00.000Z', '2026-12-01T09:00:00.000Z']);
    clock.set('2026-12-01T09:00:30Z');
    await tick();
    assert.deepEqual((await ledger(id)).map((r) => r.slice(0, 3)), [
      ['2026-11-29', 'omitido', 'pausa'], ['2026-11-30', 'omitido', 'pausa'], ['2026-12-01', 'emitido', 'programada'],
    ]);
  });

  test('pausar with politicaReanudacion recuperar: the runs inside the pause are handled by politicaAtrasos too (emitir_uno: one CFE)', async () => {
    clock.set('2026-11-28T12:00:00Z');
    const id = await createPlan(t, admin, daily({ politicaAtrasos: 'emitir_uno' }));
    await pause(id, { hasta: '2026-12-01T12:00:00Z', politicaReanudacion: 'recuperar' });
    clock.set('2026-12-02T12:00:00Z');
    await tick();
    const runs = await runsOf(t, id);
    assert.deepEqual(runs.map((r) => r.resultado), ['emitido', 'acumulado', 'acumulado', 'acumulado']);
    assert.equal(runs[0].periodos, 4);
    assert.equal((await cfesOf(t, company.id, id)).length, 1);
  });
});

describe('versions', () => {
  test('an edit of the anchor of an active plan applies from the next period ahead; each run keeps the version that produced it', async () => {
    clock.set('2026-01-31T12:00:00Z');
    const id = await createPlan(t, admin, planBody(company.id));
    await tick();
    clock.set('2026-02-02T12:00:00Z');
    const e = await t.call(admin, 'POST', '/api/v1/facturacionrecurrente/editar', { id, anclaje: { diaDelMes: 15 } });
    assert.equal(e.status, 200, JSON.stringify(e.body));
    assert.deepEqual([e.body.version, e.body.proximaEjecucion, e.body.proximoPeriodo], [2, '2026-02-15T09:00:00.000Z', { desde: '2026-02-15', hasta: '2026-03-14' }]);
    clock.set('2026-02-15T12:00:00Z');
    await tick();
    assert.deepEqual((await runsOf(t, id)).map((r) => [r.periodoDesde, r.resultado, r.version]), [['2026-01-31', 'emitido', 1], ['2026-02-15', 'emitido', 2]]);
  });
});

describe('exactly one CFE per period', () => {
  test('two schedulers (three passes) racing on the same 20 due plans: one CFE per plan', async () => {
    const other = await insertCompany(t);
    await setUpIssuer(t.db, t.call, admin, other);
    clock.set('2026-03-01T12:00:00Z');
    const ids = [];
    for (let i = 0; i < 20; i++) ids.push(await createPlan(t, admin, planBody(other.id, { fechaInicio: '2026-03-01', anclaje: { diaDelMes: 1 } })));
    const second = createScheduler({ db: t.db, ports: portsOf(t), settings: { concurrency: 3 } });
    const now = clock.now();
    await Promise.all([t.modules.services.recurringScheduler.tick(now), second.tick(now), t.modules.services.recurringScheduler.tick(now)]);
    await second.tick(now); // a last pass finds nothing left
    assert.deepEqual(await countPlanCfes(t, [other.id]), { cfes: 20, keys: 20 });
    for (const id of ids) assert.deepEqual((await runsOf(t, id)).map((r) => r.resultado), ['emitido']);
  });

  test('killed after DGI numbering, before the run was marked: the restart replays the key, still one CFE', async () => {
    clock.set('2026-05-31T12:00:00Z');
    const id = await createPlan(t, admin, planBody(company.id, { fechaInicio: '2026-05-31' }));
    const sched = t.modules.services.recurringScheduler;
    await sched.claimDue(clock.now());
    const [run] = await runsOf(t, id);
    // What the killed worker did: lease the run (its heartbeat kept the lease until it died), issue its frozen request with its key, then die.
    await t.db.execute(sql`update recurring_runs set lease_until = clock_timestamp() + interval '1 hour' where id = ${run.id}`);
    const issued = await t.modules.services.issuedCfe.emit(run.request as never, run.idempotencyKey!);
    assert.equal((await runsOf(t, id))[0].resultado, 'pendiente');
    // The history shows what exists: the run's CFE, though the run row is not marked yet.
    const h = await t.call(admin, 'GET', `/api/v1/facturacionrecurrente/reporte-historial?idEmpresa=${company.id}&idPlan=${id}`);
    assert.deepEqual([h.body.data[0].resultado, h.body.data[0].idCfeEmitido], ['emitido', issued.view.id]);
    const pending = await t.call(admin, 'GET', `/api/v1/facturacionrecurrente/reporte-historial?idEmpresa=${company.id}&idPlan=${id}&resultado=pendiente`);
    assert.deepEqual([pending.body.data, pending.body.total], [[], 0]);
    await sched.tick(clock.now()); // still leased by the dead worker: left alone
    assert.equal((await runsOf(t, id))[0].resultado, 'pendiente');
    // The dead worker renews nothing: its lease runs out (database time; the plans' clock does not move leases).
    await t.db.execute(sql`update recurring_runs set lease_until = clock_timestamp() - interval '1 millisecond' where id = ${run.id}`);
    await sched.tick(clock.now());
    const [after] = await runsOf(t, id);
    assert.equal(after.resultado, 'emitido');
    assert.equal(after.cfeId, issued.view.id);
    assert.equal((await cfesOf(t, company.id, id)).length, 1);
  });
});

describe('leases', () => {
  test('a pass leases in database time and queues the retake pass just after the lease expires; outcomes leave no lease behind', async () => {
    clock.set('2026-06-30T12:00:00Z');
    const id = await createPlan(t, admin, planBody(company.id, { fechaInicio: '2026-06-30' }));
    const sched = t.modules.services.recurringScheduler;
    await sched.claimDue(clock.now());
    const before = Date.now();
    await sched.issueLeased(clock.now());
    const [run] = await runsOf(t, id);
    assert.deepEqual([run.resultado, run.leaseUntil], ['emitido', null]);
    const [job] = (await t.db.execute<{ run_at: Date }>(sql`select j.run_at from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'recurring_tick' and j.key = 'recurring_tick_retake'`)).rows;
    assert.ok(job, 'retake pass queued');
    const lead = new Date(job.run_at).getTime() - before;
    assert.ok(lead > 15_000 && lead < 600_000, `retake ${lead} ms after the lease was taken (lease 20 s)`);
  });

  test('a run held by the request that wrote it (emitirAhora, reintentar) is not taken by a pass running beside it', async () => {
    // The race CI met: an activation's pass leased the run emitirAhora had just written, and the answer said pendiente.
    clock.set('2026-08-31T12:00:00Z');
    const id = await createPlan(t, admin, planBody(company.id, { fechaInicio: '2026-08-31' }));
    const sched = t.modules.services.recurringScheduler;
    await sched.claimDue(clock.now());
    const [written] = await runsOf(t, id);
    await t.db.transaction(async (tx) => sched.hold(tx, written.id));
    await sched.issueLeased(clock.now()); // other plans' runs of this file are due too
    assert.equal((await runsOf(t, id))[0].resultado, 'pendiente', 'the pass beside it left the held run alone');
    await sched.issueHeld(clock.now(), written.id);
    const [run] = await runsOf(t, id);
    assert.deepEqual([run.resultado, run.leaseUntil], ['emitido', null]);
  });
});

/** The app's own ports, for a second scheduler in the same database (a second worker process). */
function portsOf(t: TestApp) {
  const s = t.modules.services;
  return {
    prepare: (b: never) => s.issuedCfe.prepare(b),
    emit: (b: never, k: string) => s.issuedCfe.emit(b, k),
    dgiStates: async () => new Map<number, string>(),
    cfesByKeys: (companyId: number, keys: string[]) => cfesByIdempotencyKeys(t.db, companyId, keys),
    customerIdsByDocument: async () => [],
    documentOfCustomer: async () => undefined,
    recordEvents: (tx: never, inputs: never[]) => s.events.recordMany(tx, inputs),
  };
}
