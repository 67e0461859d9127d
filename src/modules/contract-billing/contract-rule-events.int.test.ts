/**
 * Reached usage rules raise `Contrato.ReglaAlcanzada` (issue 40 point 3) through the HTTP app on a
 * real database: one event per rule and period whatever its action (notificar included), in the
 * feed (GET /api/v1/eventos) and delivered, signed, to a subscribed webhook; never twice. And a
 * suspended contract still meters (issue 40 point 7).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';
import { createDeliveryEngine, type DeliveryEngine } from '../webhooks/delivery-engine.js';
import { silentLogger, startReceiver } from '../webhooks/webhooks.test-helpers.js';
import { ok, send, usageCompany } from '../usage/usage.test-helpers.js';
import { periodAt } from './periods.js';

let t: TestApp;
let admin: string;
let co: Awaited<ReturnType<typeof usageCompany>>;
let engine: DeliveryEngine;
const receiver = await startReceiver();
let seq = 0;
const calls = (contractId: number, n: number) =>
  Array.from({ length: n }, () => ({ idTransaccion: `re-${++seq}`, idContrato: contractId, metrica: 'api_calls', fechaHora: new Date().toISOString() }));
const flush = () => t.modules.services.contractRulesQueue.flush();

async function feed(type: string) {
  const r = await ok(t.call(admin, 'GET', `/api/v1/eventos?idEmpresa=${co.companyId}&length=500`), 200);
  return (r.data as any[]).filter((e) => e.type === type);
}

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  engine = createDeliveryEngine({ database: t.database, logger: silentLogger, secrets: t.modules.services.secretBox, timeoutMs: 2000, allowPrivateUrls: true, now: () => new Date() });
  co = await usageCompany(t, admin, [{ codigo: 'api_calls', nombre: 'Llamadas', unidad: 'llamada', agregacion: 'count' }]);
  const [company] = (await t.db.execute(sql`select id, rut from companies where id = ${co.companyId}`)).rows as Array<{ id: number; rut: string }>;
  await setUpIssuer(t.db, t.call, admin, company!);
  await t.db.execute(sql`update customers set direccion = 'Calle 1', ciudad = 'Montevideo' where id = ${co.customerId}`);
  await ok(t.call(admin, 'POST', `/api/v1/price-books?idEmpresa=${co.companyId}`, {
    codigo: 'API', nombre: 'API', moneda: 'UYU', vigenteDesde: '2025-01-01',
    precios: [{ metrica: 'api_calls', modelo: 'estandar', precioUnitario: '2.5', indicadorFacturacion: 3, nombreItem: 'Llamadas API' }],
  }));
});
after(async () => {
  await engine.close();
  await receiver.close();
  await t?.close();
});

describe('happy path', () => {
  test('each rule reached raises one Contrato.ReglaAlcanzada (notificar on units and on amount, advertir), in the feed and to a webhook, once per period', async () => {
    const hook = await ok(t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${co.companyId}`, { url: receiver.url, events: ['Contrato.ReglaAlcanzada'], secret: 'whsec_' + Buffer.from('a-secret-for-rule-events').toString('base64') }));
    assert.ok(hook.id);
    const c = await co.contract('rule-events', ['api_calls']);
    await ok(t.call(admin, 'PUT', `/api/v1/contracts/${c.id}/terms`, {
      codigoListaPrecios: 'API', diaAncla: 1, tipoCfe: 111, codComercio: 'C1', codTerminal: 'T1', formaPago: 2,
      reglas: [
        { id: 'aviso3', objetivo: 'unidades', metrica: 'api_calls', umbral: '3', accion: 'notificar' },
        { id: 'monto10', objetivo: 'monto', umbral: '10', accion: 'notificar', levantamiento: 'manual' },
        { id: 'adv5', objetivo: 'unidades', metrica: 'api_calls', umbral: '5', accion: 'advertir' },
      ],
    }), 200);
    const p = periodAt(new Date(), 1);
    await ok(send(t, admin, co.companyId, calls(c.id, 3)), 200);
    await flush();
    let events = await feed('Contrato.ReglaAlcanzada');
    assert.equal(events.length, 1);
    const { en, ...data } = events[0].data;
    assert.deepEqual(data, { idContrato: c.id, regla: 'aviso3', accion: 'notificar', objetivo: 'unidades', metrica: 'api_calls', umbral: '3', valorObservado: '3', periodo: { desde: p.desde, hasta: p.hasta } });
    assert.ok(!Number.isNaN(Date.parse(en)));
    // A notificar rule leaves the state alone.
    let st = await ok(t.call(admin, 'GET', `/api/v1/contracts/${c.id}/state`), 200);
    assert.equal(st.estado, 'activo');

    await ok(send(t, admin, co.companyId, calls(c.id, 1)), 200); // 4 calls: 10.00
    await flush();
    await ok(send(t, admin, co.companyId, calls(c.id, 2)), 200); // 6 calls: advertir
    await flush();
    // More usage and more evaluations: nothing is raised again in the period.
    await ok(send(t, admin, co.companyId, calls(c.id, 3)), 200);
    await flush();
    await t.modules.services.contractBilling.evaluate(c.id);
    events = await feed('Contrato.ReglaAlcanzada');
    assert.deepEqual(events.map((e) => [e.data.regla, e.data.accion, e.data.objetivo, e.data.metrica, e.data.valorObservado]),
      [['aviso3', 'notificar', 'unidades', 'api_calls', '3'], ['monto10', 'notificar', 'monto', null, '10.00'], ['adv5', 'advertir', 'unidades', 'api_calls', '6']]);
    st = await ok(t.call(admin, 'GET', `/api/v1/contracts/${c.id}/state`), 200);
    assert.equal(st.estado, 'en_advertencia');
    assert.deepEqual(st.reglas.map((r: any) => [r.id, r.alcanzada, r.estado]), [['aviso3', true, 'alcanzada'], ['monto10', true, 'alcanzada'], ['adv5', true, 'alcanzada']]);
    const changed = await feed('Contrato.EstadoCambiado');
    assert.deepEqual(changed.filter((e) => e.data.idContrato === c.id).map((e) => e.data.estadoNuevo), ['en_advertencia']);

    // Delivered like any other event: one signed POST each to the subscribed endpoint.
    while ((await engine.tick()).attempted) { /* until nothing is left */ }
    const bodies = receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.type === 'Contrato.ReglaAlcanzada');
    assert.deepEqual(bodies.map((b) => [b.id, b.data.regla]).sort(), events.map((e) => [e.id, e.data.regla]).sort());
    assert.ok(receiver.received.every((r) => String(r.headers['webhook-signature']).startsWith('v1,')));

    // The next period: rules that reset with it are free again and, without usage there, nothing is raised.
    await t.modules.services.contractBilling.evaluate(c.id, new Date(p.end.getTime() + 3_600_000));
    assert.equal((await feed('Contrato.ReglaAlcanzada')).length, 3);
  });
});

describe('access', () => {
  test('another company does not see the event in its feed', async () => {
    const other = await insertCompany(t);
    const stranger = await createUser(t, admin, 'rule-events-stranger@test.uy', [{ idEmpresa: other.id, rol: 'administrador' }]);
    const r = await ok(t.call(stranger.token, 'GET', `/api/v1/eventos?idEmpresa=${other.id}`), 200);
    assert.equal((r.data as any[]).filter((e) => e.type === 'Contrato.ReglaAlcanzada').length, 0);
    const theirs = await t.call(stranger.token, 'GET', `/api/v1/eventos?idEmpresa=${co.companyId}`);
    assert.ok([403, 404].includes(theirs.status), JSON.stringify(theirs.body));
  });
});

describe('happy path: a suspended contract still meters (issue 40 point 7)', () => {
  test('suspended by a rule and by hand, events are accepted, counted, rated and billed at the close; a cancelled one refuses them', async () => {
    const c = await co.contract('suspended-meters', ['api_calls']);
    await ok(t.call(admin, 'PUT', `/api/v1/contracts/${c.id}/terms`, {
      codigoListaPrecios: 'API', diaAncla: 1, tipoCfe: 111, codComercio: 'C1', codTerminal: 'T1', formaPago: 2,
      reglas: [{ id: 'corte2', objetivo: 'unidades', metrica: 'api_calls', umbral: '2', accion: 'suspender' }],
    }), 200);
    await ok(send(t, admin, co.companyId, calls(c.id, 2)), 200);
    await flush();
    let st = await ok(t.call(admin, 'GET', `/api/v1/contracts/${c.id}/state`), 200);
    assert.deepEqual([st.estado, st.suspensionManual], ['suspendido', false]);
    // Suspended by the rule: accepted and counted.
    let r = await ok(send(t, admin, co.companyId, calls(c.id, 3)), 200);
    assert.equal(r.aceptados, 3);
    await flush();
    // Suspended by hand as well: still accepted and counted.
    await ok(t.call(admin, 'POST', `/api/v1/contracts/${c.id}/suspender`, {}), 200);
    r = await ok(send(t, admin, co.companyId, calls(c.id, 1)), 200);
    assert.equal(r.aceptados, 1);
    st = await ok(t.call(admin, 'GET', `/api/v1/contracts/${c.id}/state`), 200);
    assert.deepEqual([st.estado, st.suspensionManual, st.montoHastaAhora], ['suspendido', true, '15.00']); // 6 × 2.50
    const u = await ok(t.call(admin, 'GET', `/api/v1/contracts/${c.id}/usage`), 200);
    assert.deepEqual(u.datos.map((d: any) => [d.metrica, d.cantidad]), [['api_calls', '6']]);
    // The period's close bills all six (the CFE's rated total before IVA).
    const p = periodAt(new Date(), 1);
    const close = t.modules.services.contractPeriods;
    await close.closeDue(new Date(p.end.getTime() + 100 * 3_600_000));
    const row = await close.issue(c.id, p.desde);
    assert.deepEqual([row!.status, row!.total], ['emitido', '15.00']);
    // Cancelled: refused, nothing counted.
    const other = await co.contract('cancelled-refuses', ['api_calls']);
    await ok(t.call(admin, 'PATCH', `/api/v1/contracts/${other.id}`, { estado: 'cancelado' }), 200);
    const refused = await ok(send(t, admin, co.companyId, calls(other.id, 1)), 207);
    assert.equal(refused.resultados[0].codigo, 'contrato_no_vigente');
  });
});
