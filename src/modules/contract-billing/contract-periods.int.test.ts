/**
 * The period lifecycle of issue 40 through the HTTP app on a real database: a diaAncla change closes
 * the open period short and billing goes on (point 2), the check reports a contract whose open period
 * no close would take, the one sandbox clock runs due closes (point 5), ending a contract with
 * facturar bills the partial period once, GET /periods, late usage flagged and corrected at the next
 * close (point 6), and a start in the past billed period by period (point 7).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { uyToday } from '../../lib/dates.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';
import { HOUR, ok, send, usageCompany } from '../usage/usage.test-helpers.js';
import { nextPeriod, periodAt, periodFrom } from './periods.js';

let t: TestApp;
let admin: string;
let co: Awaited<ReturnType<typeof usageCompany>>;
let bookId: number;
let minBookId: number;

const terms = (extra: Record<string, unknown> = {}) => ({ idVersionListaPrecios: bookId, tipoCfe: 111, codComercio: 'C1', codTerminal: 'T1', ...extra });
let seq = 0;
const calls = (contractId: number, n: number, at: Date | string) =>
  Array.from({ length: n }, () => ({ idTransaccion: `lc-${++seq}`, idContrato: contractId, metrica: 'api_calls', fechaHora: typeof at === 'string' ? at : at.toISOString() }));
const clock = (ahora: Date | null) => ok(t.call(admin, 'POST', '/api/v1/sandbox/reloj', { ahora: ahora?.toISOString() ?? null }), 200);
const settings = (body: Record<string, unknown>) => ok(t.call(admin, 'PUT', `/api/v1/usage-settings${co.q}`, body), 200);
const periods = async (id: number) => (await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/periods`), 200)).data;
const cfeCount = async (id: number) => ((await t.db.execute(sql`select count(*)::int as n from issued_cfes where idempotency_key like ${`contrato-${id}-periodo-%`}`)).rows[0] as { n: number }).n;
const P0 = periodAt(new Date(), 1);

async function contract(ext: string, inicio: Date, extraTerms: Record<string, unknown> = {}, estado?: string) {
  const c = await co.contract(ext, ['api_calls'], { inicio: inicio.toISOString(), ...(estado ? { estado } : {}) });
  await ok(t.call(admin, 'PUT', `/api/v1/contracts/${c.id}/terms`, terms(extraTerms)), 200);
  return c.id as number;
}

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  co = await usageCompany(t, admin, [{ codigo: 'api_calls', nombre: 'Llamadas', unidad: 'llamada', agregacion: 'count' }]);
  const [company] = (await t.db.execute(sql`select id, rut from companies where id = ${co.companyId}`)).rows as Array<{ id: number; rut: string }>;
  await setUpIssuer(t.db, t.call, admin, company!);
  await t.db.execute(sql`update customers set direccion = 'Calle 1', ciudad = 'Montevideo' where id = ${co.customerId}`);
  const price = [{ metrica: 'api_calls', modelo: 'estandar', precioUnitario: '2.5', indicadorFacturacion: 3, nombreItem: 'Llamadas API' }];
  bookId = (await ok(t.call(admin, 'POST', `/api/v1/price-books?idEmpresa=${co.companyId}`, { codigo: 'API', nombre: 'API', moneda: 'UYU', vigenteDesde: '2025-01-01', precios: price }))).id;
  minBookId = (await ok(t.call(admin, 'POST', `/api/v1/price-books?idEmpresa=${co.companyId}`, {
    codigo: 'MIN', nombre: 'Con mínimo', moneda: 'UYU', vigenteDesde: '2025-01-01', precios: price, minimoPeriodo: { monto: '100', indicadorFacturacion: 3, nombreItem: 'Mínimo mensual' },
  }))).id;
});
after(async () => {
  await t?.call(admin, 'POST', '/api/v1/sandbox/reloj', { ahora: null });
  await t?.close();
});

describe('happy path', () => {
  test('diaAncla 1 → 28 on the open period: it closes short on the 27th, the next runs 28th to 27th; late usage is flagged, then corrected automatically at the next close', async () => {
    await settings({ graciaHoras: 24 * 31, usoTardio: 'marcar' });
    const id = await contract('anchor-1', P0.start);
    const changed = await ok(t.call(admin, 'PUT', `/api/v1/contracts/${id}/terms`, terms({ diaAncla: 28 })), 200);
    const short = periodFrom(P0.desde, 28);
    assert.deepEqual([changed.periodoAbierto, changed.periodoAbiertoHasta, changed.alertaCierre], [P0.desde, short.hasta, null]);
    const inShort = new Date(short.start.getTime() + HOUR);
    const sent = await ok(send(t, admin, co.companyId, calls(id, 4, inShort)), 200);
    assert.ok(sent.resultados.every((r: any) => r.estado === 'aceptado' && r.periodoCerrado === undefined));

    // The sandbox clock past the short period's end (grace 0 now): the close takes it at once and issues its CFE.
    await settings({ graciaHoras: 0 });
    const moved = await clock(new Date(short.end.getTime() + HOUR));
    assert.ok(moved.contratos.periodosCerrados >= 1 && moved.contratos.emitidos >= 1, JSON.stringify(moved));
    let list = await periods(id);
    assert.deepEqual(list.map((p: any) => [p.desde, p.hasta, p.estado, p.total, p.moneda]), [[P0.desde, short.hasta, 'emitido', '10.00', 'UYU']]);
    const cfe = await ok(t.call(admin, 'GET', `/api/v1/cfeemitido/${list[0].idCfeEmitido}`), 200);
    assert.equal(cfe.fechaEmision, uyToday(new Date(short.end.getTime() + HOUR)), 'dated at the sandbox clock');
    const next = nextPeriod(short.desde, 28);
    assert.equal((await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/terms`), 200)).periodoAbierto, next.desde);

    // An event for the closed period: accepted, said so, and the period is marked.
    await settings({ graciaHoras: 24 * 31 });
    const late = await ok(send(t, admin, co.companyId, calls(id, 1, new Date(inShort.getTime() + HOUR))), 200);
    assert.deepEqual([late.resultados[0].estado, late.resultados[0].periodoCerrado], ['aceptado', true]);
    assert.match(late.resultados[0].aviso, /período del contrato ya cerrado/);
    list = await periods(id);
    assert.equal(list[0].usoTardio.pendienteDeCorregir, true);
    assert.equal(list[0].notas.length, 0, 'marcar: flagged only');

    // automatica: the close of the next period issues the debit note for it.
    await settings({ graciaHoras: 0, usoTardio: 'automatica' });
    await clock(new Date(next.end.getTime() + HOUR));
    list = await periods(id);
    assert.deepEqual(list.map((p: any) => [p.desde, p.hasta, p.estado]), [[next.desde, next.hasta, 'sin_consumo'], [P0.desde, short.hasta, 'emitido']]);
    assert.deepEqual([list[1].total, list[1].notas.map((n: any) => [n.tipo, n.monto]), list[1].usoTardio.pendienteDeCorregir], ['12.50', [['debito', '2.50']], false]);
    await clock(null);
    await settings({ graciaHoras: 72, usoTardio: 'marcar' });
  });

  test('cancelar with facturar bills the open period up to today: one CFE, the same on a retry; finalizar too; GET /periods pages', async () => {
    const id = await contract('end-now-1', P0.start);
    await ok(send(t, admin, co.companyId, calls(id, 3, new Date(Date.now() - 60_000))), 200);
    const st = await ok(t.call(admin, 'POST', `/api/v1/contracts/${id}/cancelar`, { facturar: true }), 200);
    const today = uyToday(new Date());
    assert.deepEqual([st.estado, st.ultimoPeriodo.desde, st.ultimoPeriodo.hasta, st.ultimoPeriodo.estado, st.ultimoPeriodo.total], ['cancelado', P0.desde, today, 'emitido', '7.50']);
    const again = await ok(t.call(admin, 'POST', `/api/v1/contracts/${id}/cancelar`, { facturar: true }), 200);
    assert.equal(again.ultimoPeriodo.idCfeEmitido, st.ultimoPeriodo.idCfeEmitido);
    assert.equal(await cfeCount(id), 1);
    // Nothing more to bill for it at the period's normal close.
    await ok(t.call(admin, 'POST', '/api/v1/sandbox/reloj', { ahora: new Date(P0.end.getTime() + 100 * HOUR).toISOString() }), 200);
    await clock(null);
    assert.equal(await cfeCount(id), 1);
    assert.equal((await periods(id)).length, 1);

    const fin = await contract('end-now-2', P0.start);
    await ok(send(t, admin, co.companyId, calls(fin, 2, new Date(Date.now() - 60_000))), 200);
    const f = await ok(t.call(admin, 'POST', `/api/v1/contracts/${fin}/finalizar`, { facturar: true }), 200);
    assert.deepEqual([f.estado, f.ultimoPeriodo.estado, f.ultimoPeriodo.total], ['finalizado', 'emitido', '5.00']);
    const h = await ok(t.call(admin, 'GET', `/api/v1/contracts/${fin}/status-history`), 200);
    assert.deepEqual(h.data.map((x: any) => [x.estadoNuevo, x.motivo.tipo, x.motivo.accion]), [['finalizado', 'manual', 'finalizar']]);

    const page = await ok(t.call(admin, 'GET', `/api/v1/contracts/${fin}/periods?start=0&length=1`), 200);
    assert.deepEqual([page.total, page.start, page.length, page.data.length], [1, 0, 1, 1]);
    assert.equal((await ok(t.call(admin, 'GET', `/api/v1/contracts/${fin}/periods?start=1`), 200)).data.length, 0);
  });

  test('a contract started in the past bills every period since its start day, the first one short', async () => {
    const start = periodAt(new Date(P0.start.getTime() - 70 * 24 * HOUR), 1);
    const inicio = new Date(start.start.getTime() + 14 * 24 * HOUR); // the 15th, three periods back
    const id = await contract('past-1', inicio, { idVersionListaPrecios: minBookId });
    assert.equal((await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/terms`), 200)).periodoAbierto, uyToday(inicio));
    const expected: Array<[string, string]> = [];
    for (let p = periodFrom(uyToday(inicio), 1); p.end.getTime() + 72 * HOUR <= Date.now(); p = nextPeriod(p.desde, 1)) expected.push([p.desde, p.hasta]);
    assert.ok(expected.length >= 2);
    await clock(new Date());
    await clock(null);
    const list = await periods(id);
    assert.deepEqual(list.map((p: any) => [p.desde, p.hasta]).reverse(), expected);
    assert.ok(list.every((p: any) => p.estado === 'emitido' && p.total === '100.00'), JSON.stringify(list));
    assert.equal(await cfeCount(id), expected.length);
  });
});

describe('a worker killed after issuing a period\'s CFE, before marking its row', () => {
  test('retried the next day (another fechaEmision, so another body under the same key): the row gets that CFE, no second one, no error', async () => {
    await settings({ graciaHoras: 0, usoTardio: 'marcar' });
    const inicio = periodAt(new Date(P0.start.getTime() - 20 * 24 * HOUR), 1).start; // the previous period, whole
    const id = await contract('crash-next-day', inicio, { idVersionListaPrecios: minBookId });
    const close = t.modules.services.contractPeriods;
    const rows = async () => (await t.db.execute(sql`select period_start::text as desde, status, issued_cfe_id from contract_periods where contract_id = ${id} order by 1`)).rows as Array<{ desde: string; status: string; issued_cfe_id: number | null }>;
    await close.closeDue(new Date(), []);
    const yesterday = new Date(Date.now() - 24 * HOUR);
    await close.issuePending(yesterday);
    const first = await rows();
    assert.ok(first.length >= 1 && first.every((r) => r.status === 'emitido'), JSON.stringify(first));
    // The worker died between emission and the row: the CFE exists under the period's key, the row is pending again.
    await t.db.execute(sql`update contract_periods set status = 'pendiente', issued_cfe_id = null, rating = null, total = null, closed_at = null where contract_id = ${id}`);
    await close.issuePending(new Date());
    const again = await rows();
    assert.deepEqual(again.map((r) => [r.status, r.issued_cfe_id]), first.map((r) => ['emitido', r.issued_cfe_id]));
    assert.equal(await cfeCount(id), first.length);
    const [cfe] = (await t.db.execute(sql`select fecha_emision::text as f from issued_cfes where id = ${first[0]!.issued_cfe_id}`)).rows as Array<{ f: string }>;
    assert.equal(cfe!.f, uyToday(yesterday));
  });
});

describe('errors', () => {
  test('the check reports an open period no close would take (it starts inside a closed one), and the close does not bill those days twice', async () => {
    const id = await contract('stranded-1', P0.start);
    await ok(t.call(admin, 'POST', `/api/v1/contracts/${id}/cancelar`, { facturar: true }), 200);
    const closed = (await periods(id))[0];
    // Corrupt the open period by hand: two days into the period already billed.
    const inside = new Date(new Date(`${closed.desde}T12:00:00Z`).getTime() + 2 * 24 * HOUR).toISOString().slice(0, 10);
    const fixedOpen = (await t.db.execute(sql`select to_char(open_period_start, 'YYYY-MM-DD') as d from contract_terms where contract_id = ${id}`)).rows[0] as { d: string };
    await t.db.execute(sql`update contract_terms set open_period_start = ${inside}, updated_at = now() where contract_id = ${id}`);
    const run = await clock(new Date(P0.end.getTime() + 100 * HOUR));
    await clock(null);
    const alert = run.contratos.alertas.find((a: any) => a.idContrato === id);
    assert.ok(alert, JSON.stringify(run.contratos));
    assert.match(alert.alerta, /dentro de un período ya cerrado/);
    const st = await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/state`), 200);
    assert.match(st.alertaCierre, /dentro de un período ya cerrado/);
    assert.equal((await periods(id)).length, 1, 'no overlapping period was billed');
    // Repaired: the next check clears the alert.
    await t.db.execute(sql`update contract_terms set open_period_start = ${fixedOpen.d}, updated_at = now() where contract_id = ${id}`);
    await clock(null);
    assert.equal((await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/state`), 200)).alertaCierre, null);
  });

  test('facturar only with cancelar/finalizar; finalizar refused on a draft; the clock only for operators', async () => {
    const id = await contract('err-1', P0.start);
    const susp = await t.call(admin, 'POST', `/api/v1/contracts/${id}/suspender`, { facturar: true });
    assert.deepEqual([susp.status, susp.body.code], [409, 'CONTRATO_ACCION_INVALIDA']);
    const draft = await contract('err-2', P0.start, {}, 'borrador');
    const fin = await t.call(admin, 'POST', `/api/v1/contracts/${draft}/finalizar`, { facturar: true });
    assert.deepEqual([fin.status, fin.body.code], [409, 'CONTRATO_ACCION_INVALIDA']);
    const bad = await t.call(admin, 'POST', `/api/v1/contracts/${id}/cancelar`, { facturar: 'si' });
    assert.equal(bad.status, 400);
    const page = await t.call(admin, 'GET', `/api/v1/contracts/${id}/periods?length=0`);
    assert.equal(page.status, 400);
    const companyAdmin = await createUser(t, admin, 'periods-admin@test.uy', [{ idEmpresa: co.companyId, rol: 'administrador' }]);
    for (const path of ['/api/v1/sandbox/reloj', '/api/v1/sandbox/facturacionrecurrente/reloj']) {
      const r = await t.call(companyAdmin.token, 'POST', path, { ahora: null });
      assert.equal(r.status, 403, path);
    }
  });
});

describe('access', () => {
  test('another company\'s contract periods are invisible; lectura reads them but cannot end the contract', async () => {
    const id = await contract('acc-1', P0.start);
    const other = await insertCompany(t);
    const stranger = await createUser(t, admin, 'periods-stranger@test.uy', [{ idEmpresa: other.id, rol: 'administrador' }]);
    const reader = await createUser(t, admin, 'periods-reader@test.uy', [{ idEmpresa: co.companyId, rol: 'lectura' }]);
    for (const [m, url, body] of [['GET', `/api/v1/contracts/${id}/periods`], ['POST', `/api/v1/contracts/${id}/cancelar`, { facturar: true }], ['POST', `/api/v1/contracts/${id}/finalizar`, { facturar: true }]] as Array<[string, string, unknown?]>) {
      assert.equal((await t.call(stranger.token, m, url, body)).status, 404, `${m} ${url}`);
      assert.equal((await t.call(undefined, m, url, body)).status, 401, `${m} ${url}`);
      assert.equal((await t.call(reader.token, m, url, body)).status, m === 'GET' ? 200 : 403, `${m} ${url}`);
    }
    assert.equal(await cfeCount(id), 0);
  });
});
