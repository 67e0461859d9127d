/** Recurring plans through the real HTTP app: create, preview, actions, versions, history, events; errors; access. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { caeRanges } from '../cae/cae.tables.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';
import { planActions, planStates, allowedActions } from './recurring.states.js';
import { createPlan, planBody, runsOf, testClock } from './recurring.test-helpers.js';

const clock = testClock('2026-01-10T12:00:00Z');
const base = '/api/v1/facturacionrecurrente';
let t: TestApp;
let admin: string;
let company: { id: number; rut: string };
let other: { id: number; rut: string };

const act = (id: number, accion: string, body?: unknown, token = admin) => t.call(token, 'POST', `${base}/${accion}/${id}`, body);
type Ev = { type: string; data: any };
/** The company's events once `done` holds (the feed holds back events while older transactions, also other tests' on this server, run). */
async function eventsUntil(idEmpresa: number, done: (events: Ev[]) => boolean) {
  for (let i = 0; ; i++) {
    const events = (await t.call(admin, 'GET', `/api/v1/eventos?idEmpresa=${idEmpresa}&length=500`)).body.data as Ev[];
    if (done(events) || i >= 100) return events;
    await new Promise((r) => setTimeout(r, 100));
  }
}

before(async () => {
  t = await createTestApp({}, { now: clock.now });
  admin = await t.adminToken();
  company = await insertCompany(t);
  other = await insertCompany(t);
  await setUpIssuer(t.db, t.call, admin, company);
  await setUpIssuer(t.db, t.call, admin, other);
});
after(async () => t.close());

describe('happy path', () => {
  test('catalogos: states with their actions, policies with the default, CFE types', async () => {
    const r = await t.call(admin, 'GET', `${base}/catalogos`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.estados.map((e: any) => e.estado), [...planStates]);
    assert.deepEqual(r.body.estados.find((e: any) => e.estado === 'pausado').accionesPermitidas, ['reanudar', 'cancelar', 'omitirProxima', 'reintentar']);
    assert.equal(r.body.politicasAtrasos.find((p: any) => p.predeterminada).valor, 'emitir_todos');
    assert.deepEqual(r.body.tiposCfe.map((x: any) => x.tipoCfe), [101, 111, 121, 131, 141]);
  });

  test('crear → borrador; preview; activar; emitirAhora; omitirProxima; editar (version 2); history; events; cancelar', async () => {
    clock.set('2026-01-10T12:00:00Z');
    const c = await t.call(admin, 'POST', `${base}/crear`, planBody(company.id));
    assert.equal(c.status, 201, JSON.stringify(c.body));
    assert.deepEqual([c.body.estado, c.body.version, c.body.accionesPermitidas, c.body.zonaHoraria, c.body.politicaAtrasos], ['borrador', 1, ['activar', 'cancelar'], 'America/Montevideo', 'emitir_todos']);
    const id = c.body.id;

    const p = await t.call(admin, 'GET', `${base}/previsualizar/${id}?cantidad=3`);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.deepEqual(p.body.ejecuciones.map((e: any) => e.periodoDesde), ['2026-01-31', '2026-02-28', '2026-03-31']);
    assert.equal(p.body.ejecuciones[0].programadaPara, '2026-01-31T09:00:00.000Z');
    assert.equal(p.body.proximoCfe.Totales.MntPagar, '1220.00');
    assert.equal(p.body.proximoCfe.IdDoc.FchEmis, '2026-01-31');

    const a = await act(id, 'activar');
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.deepEqual([a.body.estado, a.body.proximaEjecucion], ['activo', '2026-01-31T09:00:00.000Z']);

    const now = await act(id, 'emitirAhora');
    assert.equal(now.status, 200, JSON.stringify(now.body));
    assert.equal(now.body.ejecucion.resultado, 'emitido');
    assert.equal(now.body.ejecucion.periodoDesde, '2026-01-31');
    assert.equal(now.body.ejecucion.origen, 'manual');
    assert.equal(now.body.ejecucion.estadoDgi, 'firmado');
    assert.equal(now.body.proximaEjecucion, '2026-02-28T09:00:00.000Z', 'emitirAhora does not move the anchor');
    const cfe = await t.call(admin, 'GET', `/api/v1/cfeemitido/${now.body.ejecucion.idCfeEmitido}`);
    assert.equal(cfe.body.fechaEmision, '2026-01-10');
    assert.equal(cfe.body.idempotencyKey, `recurrente-${id}-2026-01-31`);

    const skip = await act(id, 'omitirProxima');
    assert.equal(skip.status, 200);
    assert.deepEqual(skip.body.proximoPeriodo, { desde: '2026-03-31', hasta: '2026-04-29' });

    const e = await t.call(admin, 'POST', `${base}/editar`, { id, plantilla: { idDoc: { tipoCfe: 101 }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Alquiler', cantidad: 1, precioUnitario: '1100' }] } });
    assert.equal(e.status, 200, JSON.stringify(e.body));
    assert.equal(e.body.version, 2);
    const now2 = await act(id, 'emitirAhora');
    assert.equal(now2.body.ejecucion.version, 2);

    const h = await t.call(admin, 'GET', `${base}/reporte-historial?idEmpresa=${company.id}&idPlan=${id}`);
    assert.equal(h.status, 200);
    assert.deepEqual(h.body.data.map((r: any) => [r.periodoDesde, r.resultado, r.version]), [['2026-03-31', 'emitido', 2], ['2026-02-28', 'omitido', 1], ['2026-01-31', 'emitido', 1]]);
    assert.equal(h.body.data[2].claveEjecucion, `${id}:2026-01-31`);
    assert.equal(typeof h.body.data[0].numero, 'number');

    const detail = await t.call(admin, 'GET', `${base}/${id}`);
    assert.deepEqual(detail.body.versiones.map((v: any) => v.version), [1, 2]);
    const found = await t.call(admin, 'GET', `${base}/buscar?idEmpresa=${company.id}&estado=activo`);
    assert.ok(found.body.data.some((x: any) => x.id === id && x.ultimaEjecucion.periodoDesde === '2026-03-31'));

    const cancel = await act(id, 'cancelar', { motivo: 'Fin del contrato' });
    assert.deepEqual([cancel.body.estado, cancel.body.motivoCancelacion, cancel.body.accionesPermitidas], ['cancelado', 'Fin del contrato', []]);
    const ofPlan = (all: Ev[]) => all.filter((x) => x.type.startsWith('PlanRecurrente.') && x.data.idPlan === id);
    const events = ofPlan(await eventsUntil(company.id, (all) => ofPlan(all).length >= 4));
    assert.deepEqual(events.map((x) => x.type), ['PlanRecurrente.EstadoCambiado', 'PlanRecurrente.EjecucionEmitida', 'PlanRecurrente.EjecucionEmitida', 'PlanRecurrente.EstadoCambiado']);
  });

  test('envioEmail: the issued CFE is queued for e-mail to the plan\'s recipients', async () => {
    const id = await createPlan(t, admin, planBody(company.id, { envioEmail: { activo: true, destinatarios: ['cliente@example.com'] } }));
    const r = await act(id, 'emitirAhora');
    assert.equal(r.body.ejecucion.resultado, 'emitido', JSON.stringify(r.body));
    const sends = await t.call(admin, 'GET', `/api/v1/cfeemitido/emailenvios?idCfe=${r.body.ejecucion.idCfeEmitido}`);
    assert.equal(sends.status, 200, JSON.stringify(sends.body));
    assert.deepEqual(sends.body.data.map((x: any) => x.destinatarios), [['cliente@example.com']]);
  });

  test('a failed run (no CAE numbers) is recorded with its reason and retried with reintentar once fixed', async () => {
    const noCae = await insertCompany(t);
    await setUpIssuer(t.db, t.call, admin, noCae);
    const [range] = await t.db.select().from(caeRanges).where(and(eq(caeRanges.companyId, noCae.id), eq(caeRanges.tipoCfe, 101)));
    await t.db.update(caeRanges).set({ nextNumber: range.hNro + 1 }).where(eq(caeRanges.id, range.id));
    const id = await createPlan(t, admin, planBody(noCae.id));
    const r = await act(id, 'emitirAhora');
    assert.equal(r.body.ejecucion.resultado, 'fallido');
    assert.equal(r.body.ejecucion.codigo, 'CAE_SIN_NUMEROS');
    assert.equal(r.body.ejecucion.intento, 1);
    assert.equal(r.body.ejecucion.proximoIntento, '2026-01-10T12:15:00.000Z');
    const failed = (all: Ev[]) => all.some((x) => x.type === 'PlanRecurrente.EjecucionFallida' && x.data.codigo === 'CAE_SIN_NUMEROS');
    assert.ok(failed(await eventsUntil(noCae.id, failed)));
    await t.db.update(caeRanges).set({ nextNumber: 1 }).where(eq(caeRanges.id, range.id));
    const retry = await act(id, 'reintentar', { periodoDesde: '2026-01-31' });
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.deepEqual([retry.body.ejecucion.resultado, retry.body.ejecucion.intento], ['emitido', 2]);
  });
});

describe('preview', () => {
  test('proximoCfe is the whole next CFE: the signed part and its Adenda (billed period, then the template\'s text)', async () => {
    clock.set('2026-01-10T12:00:00Z');
    const c = await t.call(admin, 'POST', `${base}/crear`, planBody(company.id, { plantilla: { ...planBody(company.id).plantilla, adenda: 'Gracias por su preferencia.' } }));
    assert.equal(c.status, 201, JSON.stringify(c.body));
    const p = await t.call(admin, 'GET', `${base}/previsualizar/${c.body.id}?cantidad=1`);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.deepEqual(Object.keys(p.body.proximoCfe).filter((k) => ['IdDoc', 'Emisor', 'Detalle', 'Totales', 'Adenda'].includes(k)), ['IdDoc', 'Emisor', 'Detalle', 'Totales', 'Adenda']);
    assert.equal(p.body.proximoCfe.Adenda, 'Período facturado: 31/01/2026 al 27/02/2026.\nGracias por su preferencia.');
    // What the run issues carries the same adenda.
    await act(c.body.id, 'activar');
    const issued = await act(c.body.id, 'emitirAhora');
    const cfe = await t.call(admin, 'GET', `/api/v1/cfeemitido/${issued.body.ejecucion.idCfeEmitido}`);
    assert.equal(cfe.body.adenda, p.body.proximoCfe.Adenda);
  });
});

describe('search by the receiver actually billed', () => {
  test('documento finds the plans naming the customer by idCliente too, and idCliente those giving its document', async () => {
    const doc = '214844360018';
    const cust = await t.call(admin, 'POST', '/api/v1/cliente/crear', { idEmpresa: company.id, tipoDocumento: 2, documento: doc, razonSocial: 'Cliente Buscado SA', ciudad: 'Montevideo' });
    assert.equal(cust.status, 201, JSON.stringify(cust.body));
    const plantilla = (receptor: unknown) => ({ idDoc: { tipoCfe: 111 }, receptor, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Soporte', cantidad: 1, precioUnitario: '500' }] });
    const byId = await createPlan(t, admin, planBody(company.id, { plantilla: plantilla({ idCliente: cust.body.id }) }), false);
    const byDoc = await createPlan(t, admin, planBody(company.id, { plantilla: plantilla({ documento: doc, tipoDocumento: 2, razonSocial: 'Cliente Buscado SA', ciudad: 'Montevideo' }) }), false);
    await createPlan(t, admin, planBody(company.id), false);
    const ids = async (q: string) => (await t.call(admin, 'GET', `${base}/buscar?idEmpresa=${company.id}&${q}`)).body.data.map((p: any) => p.id).sort();
    assert.deepEqual(await ids(`documento=${doc}`), [byId, byDoc].sort());
    assert.deepEqual(await ids(`idCliente=${cust.body.id}`), [byId, byDoc].sort());
    assert.deepEqual(await ids(`idCliente=${cust.body.id}&documento=${doc}`), [byId, byDoc].sort());
    assert.deepEqual(await ids('documento=219999830019'), []);
    // Another company's customer id finds nothing here.
    assert.deepEqual((await t.call(admin, 'GET', `${base}/buscar?idEmpresa=${other.id}&idCliente=${cust.body.id}`)).body.data, []);
  });
});

describe('activation with a run already due', () => {
  const tickJobs = async () => (await t.db.execute<{ run_at: Date }>(sql`select j.run_at from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'recurring_tick' and j.key = 'recurring_tick'`)).rows;

  test('activar queues a scheduler pass in its transaction (not the minute tick); that pass issues the due run', async () => {
    clock.set('2026-02-01T12:00:00Z');
    await t.db.execute(sql`delete from graphile_worker._private_jobs where key = 'recurring_tick'`);
    const ahead = await createPlan(t, admin, planBody(company.id, { fechaInicio: '2026-02-20', anclaje: { diaDelMes: 20 } }));
    assert.equal((await tickJobs()).length, 0, 'nothing due: no pass queued');
    const due = await createPlan(t, admin, planBody(company.id, { fechaInicio: '2026-01-31' }));
    const [job] = await tickJobs();
    assert.ok(job && new Date(job.run_at).getTime() <= Date.now() + 1000, 'a pass queued to run now');
    const handler = t.modules.jobs.find((j) => j.job.name === 'recurring_tick')!;
    await handler.handle({}, { logger: t.app.log as never, attempt: 1, maxAttempts: 1 });
    assert.deepEqual((await runsOf(t, due)).map((r) => [r.periodoDesde, r.resultado]), [['2026-01-31', 'emitido']]);
    assert.deepEqual(await runsOf(t, ahead), []);
  });

  test('reanudar with recuperar over a past run queues a pass too', async () => {
    clock.set('2026-03-01T12:00:00Z');
    const id = await createPlan(t, admin, planBody(company.id, { fechaInicio: '2026-03-10', anclaje: { diaDelMes: 10 } }));
    await act(id, 'pausar', {});
    clock.set('2026-03-11T12:00:00Z');
    await t.db.execute(sql`delete from graphile_worker._private_jobs where key = 'recurring_tick'`);
    const r = await act(id, 'reanudar', { politicaReanudacion: 'recuperar' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((await tickJobs()).length, 1);
  });
});

describe('errors', () => {
  test('every action not allowed in each state is 409 with estadoActual and accionesPermitidas', async () => {
    const inState: Record<string, number> = {};
    inState.borrador = await createPlan(t, admin, planBody(company.id), false);
    inState.activo = await createPlan(t, admin, planBody(company.id));
    inState.pausado = await createPlan(t, admin, planBody(company.id));
    await act(inState.pausado, 'pausar', {});
    inState.cancelado = await createPlan(t, admin, planBody(company.id));
    await act(inState.cancelado, 'cancelar', {});
    inState.finalizado = await createPlan(t, admin, planBody(company.id, { fin: { tipo: 'ciclos', ciclos: 1 } }));
    await act(inState.finalizado, 'omitirProxima');
    let checked = 0;
    for (const estado of planStates) {
      assert.equal((await t.call(admin, 'GET', `${base}/${inState[estado]}`)).body.estado, estado);
      for (const accion of planActions.filter((a) => !allowedActions(estado).includes(a))) {
        const r = await act(inState[estado], accion, accion === 'reintentar' ? { periodoDesde: '2026-01-31' } : {});
        assert.equal(r.status, 409, `${estado} ${accion}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, 'TRANSICION_NO_PERMITIDA');
        assert.deepEqual([r.body.estadoActual, r.body.accionesPermitidas], [estado, allowedActions(estado)]);
        checked++;
      }
    }
    assert.equal(checked, 23);
    const edit = await t.call(admin, 'POST', `${base}/editar`, { id: inState.cancelado, nombre: 'x' });
    assert.deepEqual([edit.status, edit.body.code, edit.body.estadoActual], [409, 'PLAN_NO_EDITABLE', 'cancelado']);
  });

  test('unknown action 404; reintentar of a run that did not fail 409, of no run 404; pause until the past 422', async () => {
    const id = await createPlan(t, admin, planBody(company.id));
    assert.deepEqual([(await act(id, 'borrar')).status, (await act(id, 'borrar')).body.code], [404, 'ACCION_DESCONOCIDA']);
    await act(id, 'omitirProxima');
    assert.equal((await act(id, 'reintentar', { periodoDesde: '2026-01-31' })).body.code, 'EJECUCION_NO_REINTENTABLE');
    assert.equal((await act(id, 'reintentar', { periodoDesde: '2026-01-01' })).status, 404);
    assert.equal((await act(id, 'pausar', { hasta: '2026-01-01T00:00:00Z' })).body.code, 'PAUSA_HASTA_PASADA');
  });

  test('a plan that could never emit is refused when saved, with emission\'s own code', async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ plantilla: { idDoc: { tipoCfe: 111 }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'X', cantidad: 1, precioUnitario: '1' }] } }, 422, 'RECEPTOR_RUC_REQUERIDO'],
      [{ plantilla: { idDoc: { tipoCfe: 102 }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'X', cantidad: 1, precioUnitario: '1' }] } }, 422, 'PLAN_TIPO_CFE_NO_PERMITIDO'],
      [{ codTerminal: 'NOPE' }, 404, 'PUNTO_EMISION_NO_ENCONTRADO'],
      [{ frecuencia: { unidad: 'semana' }, anclaje: { diaDelMes: 3 } }, 422, 'PLAN_ANCLAJE_INVALIDO'],
      [{ fin: { tipo: 'fecha', fecha: '2025-01-01' } }, 422, 'PLAN_FIN_INVALIDO'],
      [{ zonaHoraria: 'Mars/Olympus' }, 400, 'VALIDACION'],
      [{ frecuencia: { unidad: 'mes', cada: 2 } }, 400, 'CAMPO_DESCONOCIDO'],
    ];
    for (const [over, status, code] of cases) {
      const r = await t.call(admin, 'POST', `${base}/crear`, planBody(company.id, over));
      assert.deepEqual([r.status, r.body.code], [status, code], JSON.stringify(over));
    }
    const plans = await t.call(admin, 'GET', `${base}/buscar?idEmpresa=${company.id}&length=500`);
    assert.ok(!plans.body.data.some((p: any) => p.codTerminal === 'NOPE'));
  });
});

describe('access', () => {
  test("another company's plans are invisible: get, actions, edit, preview 404; search and history of another company refused; lectura cannot act", async () => {
    const id = await createPlan(t, admin, planBody(other.id));
    await createUser(t, admin, 'rec-a@test.uy', [{ idEmpresa: company.id, rol: 'emisor' }]);
    await createUser(t, admin, 'rec-r@test.uy', [{ idEmpresa: company.id, rol: 'lectura' }]);
    const a = await t.login('rec-a@test.uy', 'password-123');
    const ro = await t.login('rec-r@test.uy', 'password-123');
    assert.equal((await t.call(a, 'GET', `${base}/${id}`)).body.code, 'PLAN_NO_ENCONTRADO');
    assert.equal((await t.call(a, 'GET', `${base}/previsualizar/${id}`)).status, 404);
    assert.equal((await act(id, 'pausar', {}, a)).body.code, 'PLAN_NO_ENCONTRADO');
    assert.equal((await t.call(a, 'POST', `${base}/editar`, { id, nombre: 'x' })).body.code, 'PLAN_NO_ENCONTRADO');
    assert.equal((await t.call(a, 'GET', `${base}/buscar?idEmpresa=${other.id}`)).status, 404);
    assert.equal((await t.call(a, 'GET', `${base}/reporte-historial?idEmpresa=${other.id}`)).status, 404);
    const mine = await t.call(a, 'GET', `${base}/reporte-historial?start=0&length=10`); // the spec's query: the only company is implied
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.ok(mine.body.data.every((r: any) => r.idPlan !== id));
    assert.equal((await t.call(admin, 'GET', `${base}/reporte-historial`)).body.code, 'PLAN_EMPRESA_REQUERIDA');
    assert.equal((await t.call(admin, 'GET', `${base}/${id}`)).body.estado, 'activo');
    const own = await createPlan(t, admin, planBody(company.id), false);
    assert.equal((await act(own, 'activar', undefined, ro)).status, 403);
    assert.equal((await t.call(ro, 'POST', `${base}/crear`, planBody(company.id))).status, 403);
    assert.equal((await t.call(ro, 'GET', `${base}/${own}`)).status, 200);
    assert.equal((await runsOf(t, id)).length, 0);
  });

  test('sandbox test clock: an operator moves the recurring clock and runs a pass; others 403', async () => {
    clock.set('2026-02-01T12:00:00Z');
    const id = await createPlan(t, admin, planBody(company.id, { fechaInicio: '2026-02-28' }));
    await createUser(t, admin, 'rec-adm@test.uy', [{ idEmpresa: company.id, rol: 'administrador' }]);
    const companyAdmin = await t.login('rec-adm@test.uy', 'password-123');
    const refused = await t.call(companyAdmin, 'POST', '/api/v1/sandbox/facturacionrecurrente/reloj', { ahora: '2026-02-28T10:00:00Z' });
    assert.deepEqual([refused.status, refused.body.code], [403, 'SIN_PERMISO'], 'a company administrator does not move the clock of every company');
    const r = await t.call(admin, 'POST', '/api/v1/sandbox/facturacionrecurrente/reloj', { ahora: '2026-02-28T10:00:00Z' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.ahora, '2026-02-28T10:00:00.000Z');
    assert.ok(r.body.ejecuciones >= 1);
    assert.deepEqual((await runsOf(t, id)).map((x) => [x.periodoDesde, x.resultado]), [['2026-02-28', 'emitido']]);
    const back = await t.call(admin, 'POST', '/api/v1/sandbox/facturacionrecurrente/reloj', { ahora: null });
    assert.equal(back.body.ahora, '2026-02-01T12:00:00.000Z');
  });
});
