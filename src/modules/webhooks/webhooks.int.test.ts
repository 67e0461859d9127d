import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';

let t: TestApp;
let admin: string;
let companyA: number;
let companyB: number;
let userB: string;
const url = 'http://127.0.0.1:9/hook';

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  companyA = (await insertCompany(t)).id;
  companyB = (await insertCompany(t)).id;
  userB = (await createUser(t, admin, 'admin-b@test.uy', [{ idEmpresa: companyB, rol: 'administrador' }])).token;
});
after(() => t.close());

describe('happy path', () => {
  it('registers (201 with id, url, events, enabled), lists, updates, rotates, deletes', async () => {
    const res = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'], name: 'ERP', secret: 'a-long-secret', headers: { 'X-Api-Key': 'k' } });
    assert.equal(res.status, 201);
    assert.equal(typeof res.body.id, 'number');
    assert.equal(res.body.url, url);
    assert.deepEqual(res.body.events, ['Cfe.Emitido']);
    assert.equal(res.body.enabled, true);
    assert.equal(res.body.maxAttempts, 8);
    assert.equal(res.body.secret, undefined);
    const id = res.body.id;
    const list = await t.call(admin, 'GET', `/api/v1/webhooks?idEmpresa=${companyA}`);
    assert.equal(list.body.total, 1);
    const upd = await t.call(admin, 'PATCH', `/api/v1/webhooks/${id}`, { enabled: false, events: ['OrdenDeVenta.Creada', 'OrdenDeVenta.Finalizada'] });
    assert.equal(upd.status, 200);
    assert.equal(upd.body.enabled, false);
    const rot = await t.call(admin, 'POST', `/api/v1/webhooks/${id}/rotar-secreto`);
    assert.match(rot.body.secret, /^whsec_/);
    const test = await t.call(admin, 'POST', `/api/v1/webhooks/${id}/probar`);
    assert.equal(test.status, 202);
    assert.equal(test.body.eventType, 'Webhook.Prueba');
    assert.equal(test.body.status, 'pendiente');
    assert.equal((await t.call(admin, 'DELETE', `/api/v1/webhooks/${id}`)).status, 204);
    assert.equal((await t.call(admin, 'GET', `/api/v1/webhooks/${id}`)).status, 404);
  });

  it('uses the only company of a caller without idEmpresa', async () => {
    const res = await t.call(userB, 'POST', '/api/v1/webhooks', { url, events: ['Cfe.Emitido'] });
    assert.equal(res.status, 201);
    assert.equal(res.body.idEmpresa, companyB);
  });

  it('sales orders raise OrdenDeVenta events, readable from the eventos feed with a cursor', async () => {
    const created = await t.call(admin, 'POST', '/api/v1/ordenventa/crear', { idEmpresa: companyA, cliente: { nombre: 'Cliente' }, detalles: [{ nombreItem: 'A', cantidad: 3, precioUnitario: '0.1' }, { nombreItem: 'B', cantidad: '1.5', precioUnitario: 10 }] });
    assert.equal(created.status, 201);
    assert.equal(created.body.total, '15.30');
    const id = created.body.id;
    assert.equal((await t.call(admin, 'POST', '/api/v1/ordenventa/editar', { id, estado: 'confirmada' })).status, 200);
    // Issuing needs the emission point; the full emitirCfe flow is tested in sales-orders.int.test.ts.
    assert.equal((await t.call(admin, 'POST', `/api/v1/ordenventa/${id}/finalizar`, { emitirCfe: true })).status, 400);
    const fin = await t.call(admin, 'POST', `/api/v1/ordenventa/${id}/finalizar`, {});
    assert.equal(fin.status, 200);
    assert.equal(fin.body.estado, 'finalizada');
    assert.equal((await t.call(admin, 'POST', `/api/v1/ordenventa/${id}/cancelar`)).status, 409);
    const feed = await t.call(admin, 'GET', `/api/v1/eventos?idEmpresa=${companyA}&length=2`);
    assert.equal(feed.status, 200);
    assert.deepEqual(feed.body.data.map((e: any) => e.type), ['OrdenDeVenta.Creada', 'OrdenDeVenta.Actualizada']);
    assert.equal(feed.body.data[0].data.id, id);
    const next = await t.call(admin, 'GET', `/api/v1/eventos?idEmpresa=${companyA}&after=${feed.body.cursor}`);
    assert.deepEqual(next.body.data.map((e: any) => e.type), ['OrdenDeVenta.Finalizada']);
    const none = await t.call(admin, 'GET', `/api/v1/eventos?idEmpresa=${companyA}&after=${next.body.cursor}`);
    assert.equal(none.body.total, 0);
    assert.equal(none.body.cursor, next.body.cursor);
  });
});

describe('errors', () => {
  const post = (body: unknown) => t.app.inject({ method: 'POST', url: `/api/v1/webhooks?idEmpresa=${companyA}`, headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, payload: body as string });

  it('missing url or events: 400 saying the required fields are url and events (spec 7.1)', async () => {
    for (const body of [{}, { url }, { events: ['Cfe.Emitido'] }, { url, events: [] }]) {
      const res = await post(JSON.stringify(body));
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().error, 'Los campos requeridos son url y events.');
      assert.equal(res.json().code, 'WEBHOOK_CAMPOS_REQUERIDOS');
    }
  });

  it('empty or invalid payload: 400 saying the payload is empty or invalid (spec 7.2)', async () => {
    for (const body of ['', '{not json', '[]', '"x"']) {
      const res = await post(body);
      assert.equal(res.statusCode, 400, body);
      assert.equal(res.json().error, 'El payload está vacío o no es válido.');
      assert.equal(res.json().code, 'WEBHOOK_PAYLOAD_INVALIDO');
    }
  });

  it('unknown events, non-http urls and reserved headers are 400', async () => {
    let res = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido', 'Nada.Ocurrio'] });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'WEBHOOK_EVENTO_DESCONOCIDO');
    assert.match(res.body.error, /Nada\.Ocurrio/);
    res = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url: 'ftp://example.com/x', events: ['Cfe.Emitido'] });
    assert.equal(res.body.code, 'WEBHOOK_URL_INVALIDA');
    res = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'], headers: { 'Webhook-Id': 'x' } });
    assert.equal(res.status, 400);
  });

  it('private and loopback urls are refused unless allowed', async () => {
    const strict = await createTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false' });
    try {
      const token = await strict.adminToken();
      const c = (await insertCompany(strict)).id;
      for (const u of ['http://127.0.0.1/x', 'http://localhost:8080/x', 'http://10.1.2.3/x', 'http://[::1]/x', 'http://169.254.169.254/latest']) {
        const res = await strict.call(token, 'POST', `/api/v1/webhooks?idEmpresa=${c}`, { url: u, events: ['Cfe.Emitido'] });
        assert.equal(res.status, 400, u);
        assert.equal(res.body.code, 'WEBHOOK_URL_PRIVADA');
      }
    } finally {
      await strict.close();
    }
  });
});

describe('access', () => {
  it("another company's endpoints, deliveries, orders and events are invisible", async () => {
    const a = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'] });
    const id = a.body.id;
    for (const [m, u] of [['GET', `/api/v1/webhooks/${id}`], ['PATCH', `/api/v1/webhooks/${id}`], ['DELETE', `/api/v1/webhooks/${id}`], ['GET', `/api/v1/webhooks/${id}/entregas`], ['POST', `/api/v1/webhooks/${id}/probar`]]) {
      const res = await t.call(userB, m, u, m === 'PATCH' ? { enabled: false } : undefined);
      assert.equal(res.status, 404, `${m} ${u}`);
      assert.equal(res.body.code, 'WEBHOOK_NO_ENCONTRADO');
    }
    assert.equal((await t.call(userB, 'GET', `/api/v1/webhooks?idEmpresa=${companyA}`)).status, 404);
    assert.equal((await t.call(userB, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'] })).status, 404);
    assert.equal((await t.call(userB, 'GET', `/api/v1/eventos?idEmpresa=${companyA}`)).status, 404);
    const order = await t.call(admin, 'POST', '/api/v1/ordenventa/crear', { idEmpresa: companyA, detalles: [{ nombreItem: 'A', cantidad: 1, precioUnitario: 1 }] });
    assert.equal((await t.call(userB, 'GET', `/api/v1/ordenventa/${order.body.id}`)).status, 404);
    assert.equal((await t.call(userB, 'POST', `/api/v1/ordenventa/${order.body.id}/cancelar`)).status, 404);
  });

  it('managing endpoints needs administrador', async () => {
    const reader = await createUser(t, admin, 'lector@test.uy', [{ idEmpresa: companyA, rol: 'emisor' }]);
    const res = await t.call(reader.token, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'] });
    assert.equal(res.status, 403);
  });
});
