/**
 * Contract billing through the HTTP app on a real database (issue 34 points 2-5): rule crossings in
 * both directions with history and event 8, manual actions, the period close issuing one CFE whose
 * XML validates, a repeated/crashed close, a late correction producing a note, access.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';
import { ok, send, usageCompany } from '../usage/usage.test-helpers.js';
import { periodAt } from './periods.js';

let t: TestApp;
let admin: string;
let co: Awaited<ReturnType<typeof usageCompany>>;
let bookId: number;
const ctx = { logger: { info() {}, warn() {}, error() {} }, attempt: 1, maxAttempts: 5 } as never;
const job = (name: string) => t.modules.jobs.find((j) => j.job.name === name)!;
const evaluate = (contractId: number) => job('contract_rules_evaluate').handle({ contractId }, ctx);
const terms = (extra: Record<string, unknown> = {}) => ({
  idVersionListaPrecios: bookId, tipoCfe: 111, codComercio: 'C1', codTerminal: 'T1',
  reglas: [
    { id: 'aviso80', objetivo: 'unidades', metrica: 'api_calls', umbral: '8', accion: 'advertir' },
    { id: 'corte100', objetivo: 'unidades', metrica: 'api_calls', umbral: '10', accion: 'suspender' },
  ], ...extra,
});
let seq = 0;
const calls = (contractId: number, n: number, at = new Date().toISOString()) =>
  Array.from({ length: n }, () => ({ idTransaccion: `tx-${++seq}`, idContrato: contractId, metrica: 'api_calls', fechaHora: at }));

/** Starts with the current month: a contract started earlier bills every period since (see lifecycle tests). */
async function newContract(ext: string) {
  const c = await co.contract(ext, ['api_calls'], { inicio: periodAt(new Date(), 1).start.toISOString() });
  await ok(t.call(admin, 'PUT', `/api/v1/contracts/${c.id}/terms`, terms()), 200);
  return c.id as number;
}

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  co = await usageCompany(t, admin, [{ codigo: 'api_calls', nombre: 'Llamadas', unidad: 'llamada', agregacion: 'count' }]);
  const [company] = (await t.db.execute(sql`select id, rut from companies where id = ${co.companyId}`)).rows as Array<{ id: number; rut: string }>;
  await setUpIssuer(t.db, t.call, admin, company!);
  await t.db.execute(sql`update customers set direccion = 'Calle 1', ciudad = 'Montevideo' where id = ${co.customerId}`);
  const book = await ok(t.call(admin, 'POST', `/api/v1/price-books?idEmpresa=${co.companyId}`, {
    codigo: 'API', nombre: 'API por uso', moneda: 'UYU', vigenteDesde: '2025-01-01',
    precios: [{ metrica: 'api_calls', modelo: 'estandar', precioUnitario: '2.5', indicadorFacturacion: 3, nombreItem: 'Llamadas API' }],
  }));
  bookId = book.id;
});
after(async () => t?.close());

describe('happy path', () => {
  test('rules cross upwards (warning, suspension) and back at the period change, with history and event 8', async () => {
    const id = await newContract('rules-1');
    await ok(send(t, admin, co.companyId, calls(id, 8)), 200);
    // The batch marked the contract; the next flush (every 250 ms, here called at once) evaluates it.
    await t.modules.services.contractRulesQueue.flush();
    let st = await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/state`), 200);
    assert.equal(st.estado, 'en_advertencia');
    assert.deepEqual(st.motivo, { tipo: 'regla', regla: 'aviso80', accion: 'advertir', objetivo: 'unidades', metrica: 'api_calls', umbral: '8', valorObservado: '8' });
    assert.equal(st.montoHastaAhora, '20.00');
    assert.deepEqual(st.reglas.map((r: any) => [r.id, r.alcanzada, r.estado]), [['aviso80', true, 'alcanzada'], ['corte100', false, 'libre']]);
    await ok(send(t, admin, co.companyId, calls(id, 2)), 200);
    await t.modules.services.contractRulesQueue.flush();
    st = await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/state`), 200);
    assert.equal(st.estado, 'suspendido');
    assert.ok(st.acciones.includes('levantar'));
    // The period changes: reinicioPeriodo rules are lifted and the contract is active again.
    const next = periodAt(new Date(), 1).end;
    await t.modules.services.contractBilling.evaluate(id, new Date(next.getTime() + 3_600_000));
    const h = await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/status-history`), 200);
    assert.deepEqual(h.data.map((x: any) => [x.estadoAnterior, x.estadoNuevo, x.motivo.tipo]), [['activo', 'en_advertencia', 'regla'], ['en_advertencia', 'suspendido', 'regla'], ['suspendido', 'activo', 'periodo']]);
    assert.equal(h.data[1].motivo.regla, 'corte100');
    assert.equal(h.data[1].motivo.valorObservado, '10');
    const ev = await t.db.execute(sql`select data from outbox_events where type = 'Contrato.EstadoCambiado' and (data->>'idContrato')::int = ${id} order by id`);
    assert.deepEqual(ev.rows.map((r: any) => [r.data.estadoNuevo, r.data.motivo.tipo]), [['en_advertencia', 'regla'], ['suspendido', 'regla'], ['activo', 'periodo']]);
    // Paging and date filter.
    const page = await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/status-history?offset=1&length=1`), 200);
    assert.deepEqual([page.total, page.data.length, page.data[0].estadoNuevo], [3, 1, 'suspendido']);
    const none = await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/status-history?start=2000-01-01&end=2000-01-31`), 200);
    assert.equal(none.total, 0);
  });

  test('manual actions: suspender holds the state, reanudar releases it, levantar lifts reached rules, cancelar is final', async () => {
    const id = await newContract('manual-1');
    let st = await ok(t.call(admin, 'POST', `/api/v1/contracts/${id}/suspender`, {}), 200);
    assert.deepEqual([st.estado, st.suspensionManual, st.acciones], ['suspendido', true, ['reanudar', 'cancelar']]);
    st = await ok(t.call(admin, 'POST', `/api/v1/contracts/${id}/reanudar`, {}), 200);
    assert.equal(st.estado, 'activo');
    await ok(send(t, admin, co.companyId, calls(id, 9)), 200);
    await evaluate(id);
    st = await ok(t.call(admin, 'POST', `/api/v1/contracts/${id}/levantar`, { reglas: ['aviso80'] }), 200);
    assert.equal(st.estado, 'activo');
    assert.equal(st.reglas[0].estado, 'levantada');
    st = await ok(t.call(admin, 'POST', `/api/v1/contracts/${id}/cancelar`, {}), 200);
    assert.equal(st.estado, 'cancelado');
    const h = await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/status-history`), 200);
    assert.deepEqual(h.data.map((x: any) => [x.estadoNuevo, x.motivo.tipo, x.motivo.accion ?? null]),
      [['suspendido', 'manual', 'suspender'], ['activo', 'manual', 'reanudar'], ['en_advertencia', 'regla', 'advertir'], ['activo', 'manual', 'levantar'], ['cancelado', 'manual', 'cancelar']]);
    assert.equal(h.data[0].motivo.usuario, 'admin@test.uy');
  });

  test('a state set through usage\'s PATCH /contracts/{id} is recorded in the history with event 8, in the same transaction', async () => {
    const id = await newContract('patch-1');
    await ok(t.call(admin, 'PATCH', `/api/v1/contracts/${id}`, { estado: 'cancelado' }), 200);
    const h = await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/status-history`), 200);
    assert.deepEqual(h.data.map((x: any) => [x.estadoAnterior, x.estadoNuevo, x.motivo.tipo, x.motivo.accion]), [['activo', 'cancelado', 'manual', 'patch']]);
    assert.ok(h.data[0].motivo.usuario);
    const ev = await t.db.execute(sql`select data from outbox_events where type = 'Contrato.EstadoCambiado' and (data->>'idContrato')::int = ${id}`);
    assert.deepEqual(ev.rows.map((r: any) => [r.data.estadoAnterior, r.data.estadoNuevo]), [['activo', 'cancelado']]);
    const st = await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/state`), 200);
    assert.equal(st.estado, 'cancelado');
  });

  test('period close: one CFE whose XML validates, twice/crashed close issues nothing more, late usage gives a debit note referencing it', async () => {
    const id = await newContract('close-1');
    await ok(send(t, admin, co.companyId, calls(id, 4)), 200);
    const p = periodAt(new Date(), 1);
    const later = new Date(p.end.getTime() + 100 * 3_600_000);
    const close = t.modules.services.contractPeriods;
    assert.ok(await close.closeDue(later) >= 1);
    assert.equal(await close.closeDue(later), 0, 'a second claim finds nothing');
    // Two workers at once, then a crash after emission before marking (row back to pendiente) and a retry.
    const [a, b] = await Promise.all([close.issue(id, p.desde), close.issue(id, p.desde)]);
    assert.equal(a!.status, 'emitido');
    assert.equal(a!.issuedCfeId, b!.issuedCfeId);
    await t.db.execute(sql`update contract_periods set status = 'pendiente', issued_cfe_id = null where contract_id = ${id}`);
    const c = await close.issue(id, p.desde);
    assert.equal(c!.issuedCfeId, a!.issuedCfeId);
    const n = await t.db.execute(sql`select count(*)::int as n from issued_cfes where idempotency_key like ${`contrato-${id}-periodo-%`}`);
    assert.equal((n.rows[0] as { n: number }).n, 1);
    const cfe = await ok(t.call(admin, 'GET', `/api/v1/cfeemitido/${a!.issuedCfeId}`), 200);
    assert.equal(cfe.tipoCfe, 111);
    const xml = (await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/${a!.issuedCfeId}/xml`, headers: { authorization: `Bearer ${admin}` } })).body;
    assert.deepEqual(validateXml('CFE', xml), { ok: true });
    assert.match(xml, /<MntPagar>12\.20<\/MntPagar>|<MntTotal>12\.20<\/MntTotal>/); // 4 × 2.50 = 10.00 + IVA 22 %
    const st = await ok(t.call(admin, 'GET', `/api/v1/contracts/${id}/state`), 200);
    assert.equal(st.ultimoPeriodo.idCfeEmitido, a!.issuedCfeId);
    // Late events for the closed period, then the correction: a debit note (113) referencing the CFE.
    await ok(send(t, admin, co.companyId, calls(id, 2)), 200);
    const fixed = await ok(t.call(admin, 'POST', `/api/v1/contracts/${id}/periods/${p.desde}/correct`), 200);
    assert.equal(fixed.notas.length, 1);
    assert.deepEqual([fixed.notas[0].tipo, fixed.notas[0].monto, fixed.total], ['debito', '5.00', '15.00']);
    const note = await ok(t.call(admin, 'GET', `/api/v1/cfeemitido/${fixed.notas[0].idCfeEmitido}`), 200);
    assert.equal(note.tipoCfe, 113);
    const noteXml = (await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/${note.id}/xml`, headers: { authorization: `Bearer ${admin}` } })).body;
    assert.deepEqual(validateXml('CFE', noteXml), { ok: true });
    assert.match(noteXml, new RegExp(`<NroCFERef>${cfe.numero}</NroCFERef>`));
    // Nothing more to correct: no new note.
    const again = await ok(t.call(admin, 'POST', `/api/v1/contracts/${id}/periods/${p.desde}/correct`), 200);
    assert.equal(again.notas.length, 1);
  });

  test('the close of the period holding a contract\'s end date finishes it (cause fin); a contract ended before a period gets no row for it', async () => {
    const p = periodAt(new Date(), 1);
    const ending = await newContract('end-1');
    const fin = new Date((Date.now() + p.end.getTime()) / 2).toISOString();
    await ok(t.call(admin, 'PATCH', `/api/v1/contracts/${ending}`, { fin }), 200);
    const cancelled = await newContract('end-2');
    await ok(t.call(admin, 'PATCH', `/api/v1/contracts/${cancelled}`, { estado: 'cancelado' }), 200);
    const close = t.modules.services.contractPeriods;
    await close.closeDue(new Date(p.end.getTime() + 100 * 3_600_000));
    const st = await ok(t.call(admin, 'GET', `/api/v1/contracts/${ending}/state`), 200);
    assert.equal(st.estado, 'finalizado');
    const h = await ok(t.call(admin, 'GET', `/api/v1/contracts/${ending}/status-history`), 200);
    assert.deepEqual(h.data.map((x: any) => [x.estadoAnterior, x.estadoNuevo, x.motivo.tipo, x.motivo.fin]), [['activo', 'finalizado', 'fin', fin]]);
    // The next period: both contracts had ended before it began, so neither gets a row (each keeps the one of the period it ended in).
    const next = periodAt(new Date(p.end.getTime() + 3_600_000), 1);
    await close.closeDue(new Date(next.end.getTime() + 100 * 3_600_000));
    const rows = await t.db.execute(sql`select contract_id, to_char(period_start, 'YYYY-MM-DD') as s from contract_periods where contract_id in (${ending}, ${cancelled}) order by contract_id`);
    assert.deepEqual(rows.rows.map((r: any) => [r.contract_id, r.s]), [[ending, p.desde], [cancelled, p.desde]]);
    const terms = await ok(t.call(admin, 'GET', `/api/v1/contracts/${cancelled}/terms`), 200);
    assert.equal(terms.periodoAbierto, periodAt(new Date(next.end.getTime() + 3_600_000), 1).desde, 'the open period moved on without a row');
  });
});

describe('errors', () => {
  test('bad terms and actions answer 4xx with stable codes', async () => {
    const c = await co.contract('err-1', ['api_calls']);
    const noTerms = await t.call(admin, 'GET', `/api/v1/contracts/${c.id}/state`);
    assert.deepEqual([noTerms.status, noTerms.body.code], [409, 'CONTRATO_SIN_CONDICIONES']);
    const both = await t.call(admin, 'PUT', `/api/v1/contracts/${c.id}/terms`, terms({ codigoListaPrecios: 'API' }));
    assert.deepEqual([both.status, both.body.code], [400, 'CONDICIONES_INVALIDAS']);
    const badMetric = await t.call(admin, 'PUT', `/api/v1/contracts/${c.id}/terms`, terms({ reglas: [{ id: 'x', objetivo: 'unidades', metrica: 'nada', umbral: '1', accion: 'advertir' }] }));
    assert.deepEqual([badMetric.status, badMetric.body.code], [400, 'CONDICIONES_INVALIDAS']);
    const unknown = await t.call(admin, 'PUT', `/api/v1/contracts/${c.id}/terms`, { ...terms(), extra: 1 });
    assert.deepEqual([unknown.status, unknown.body.code], [400, 'CAMPO_DESCONOCIDO']);
    await ok(t.call(admin, 'PUT', `/api/v1/contracts/${c.id}/terms`, terms()), 200);
    const lift = await t.call(admin, 'POST', `/api/v1/contracts/${c.id}/levantar`, {});
    assert.deepEqual([lift.status, lift.body.code], [409, 'CONTRATO_ACCION_INVALIDA']);
    const hist = await t.call(admin, 'GET', `/api/v1/contracts/${c.id}/status-history?start=2026-02-30`);
    assert.equal(hist.status, 400);
    const notClosed = await t.call(admin, 'POST', `/api/v1/contracts/${c.id}/periods/2026-01-01/correct`);
    assert.deepEqual([notClosed.status, notClosed.body.code], [404, 'PERIODO_NO_ENCONTRADO']);
  });
});

describe('access', () => {
  test('another company\'s contract is invisible on every endpoint; lectura reads but does not act', async () => {
    const id = await newContract('acc-1');
    const other = await insertCompany(t);
    const stranger = await createUser(t, admin, 'billing-stranger@test.uy', [{ idEmpresa: other.id, rol: 'administrador' }]);
    const reader = await createUser(t, admin, 'billing-reader@test.uy', [{ idEmpresa: co.companyId, rol: 'lectura' }]);
    const st = stranger.token;
    const rd = reader.token;
    const endpoints: Array<[string, string, unknown?]> = [
      ['GET', `/api/v1/contracts/${id}/state`], ['GET', `/api/v1/contracts/${id}/status-history`], ['GET', `/api/v1/contracts/${id}/terms`],
      ['PUT', `/api/v1/contracts/${id}/terms`, terms()], ['POST', `/api/v1/contracts/${id}/suspender`, {}], ['POST', `/api/v1/contracts/${id}/reanudar`, {}],
      ['POST', `/api/v1/contracts/${id}/activar`, {}], ['POST', `/api/v1/contracts/${id}/cancelar`, {}], ['POST', `/api/v1/contracts/${id}/levantar`, {}],
      ['POST', `/api/v1/contracts/${id}/periods/2026-01-01/correct`],
    ];
    // A price-book version of another company answers like a missing one.
    const foreign = await ok(t.call(admin, 'POST', `/api/v1/price-books?idEmpresa=${other.id}`, {
      codigo: 'X', nombre: 'X', moneda: 'UYU', vigenteDesde: '2025-01-01', precios: [{ metrica: 'api_calls', modelo: 'estandar', precioUnitario: '1', indicadorFacturacion: 3, nombreItem: 'X' }],
    }));
    for (const version of [foreign.id, 2_147_483_000]) {
      const r = await t.call(admin, 'PUT', `/api/v1/contracts/${id}/terms`, terms({ idVersionListaPrecios: version }));
      assert.deepEqual([r.status, r.body.code], [404, 'LISTA_PRECIOS_NO_ENCONTRADA']);
    }
    for (const [m, url, body] of endpoints) {
      const r = await t.call(st, m, url, body);
      assert.equal(r.status, 404, `${m} ${url}: ${JSON.stringify(r.body)}`);
      const anon = await t.call(undefined, m, url, body);
      assert.equal(anon.status, 401, `${m} ${url}`);
      const read = await t.call(rd, m, url, body);
      assert.equal(read.status, m === 'GET' ? 200 : 403, `${m} ${url}: ${JSON.stringify(read.body)}`);
    }
  });
});
