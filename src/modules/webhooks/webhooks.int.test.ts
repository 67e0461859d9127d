import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
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
    assert.equal((await t.call(admin, 'PATCH', `/api/v1/webhooks/${id}`, { enabled: true })).body.enabled, true);
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

describe('happy path: headers, secrets and the catalogue', () => {
  it('accepts token names with visible ASCII, space and tab values, and a whsec_ secret of 24 bytes', async () => {
    const secret = 'whsec_' + Buffer.alloc(24, 7).toString('base64');
    const headers = { 'X-Api-Key': 'k', Authorization: 'Bearer a b\tc', "X!#$%&'*+-.^_`|~9": '~!"#' };
    const res = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'], secret, headers });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.headers, headers);
    const testVector = await t.call(admin, 'PATCH', `/api/v1/webhooks/${res.body.id}`, { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
    assert.equal(testVector.status, 200);
  });

  it('the catalogue says which events are not emitted yet (none since contract billing raises Contrato.EstadoCambiado)', async () => {
    const res = await t.call(admin, 'GET', '/api/v1/webhooks/catalogo');
    assert.equal(res.status, 200);
    const notEmitted = res.body.filter((e: any) => !e.emitted).map((e: any) => e.type);
    assert.deepEqual(notEmitted, []);
    assert.ok(res.body.find((e: any) => e.type === 'Contrato.EstadoCambiado').emitted);
    assert.ok(res.body.find((e: any) => e.type === 'Cfe.Emitido').emitted);
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

  it('header names that are not RFC 7230 tokens and values with CR, LF, NUL or non-ASCII are 400 WEBHOOK_ENCABEZADO_INVALIDO, on create and update', async () => {
    const created = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'], headers: { 'X-Ok': 'v' } });
    const id = created.body.id;
    const bad: Array<[Record<string, string>, string]> = [
      [{ 'X Bad': 'v' }, 'X Bad'], [{ 'X:Bad': 'v' }, 'X:Bad'], [{ 'X-Ñ': 'v' }, 'X-Ñ'], [{ 'X-A\r\nX-B': 'v' }, 'X-A\r\nX-B'],
      [{ 'X-Ok': 'a\r\nInjected: 1' }, 'X-Ok'], [{ 'X-Ok': 'a\nb' }, 'X-Ok'], [{ 'X-Ok': 'año' }, 'X-Ok'], [{ 'X-Ok': 'a\u007f' }, 'X-Ok'],
    ];
    for (const [headers, name] of bad) {
      for (const res of [
        await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'], headers }),
        await t.call(admin, 'PATCH', `/api/v1/webhooks/${id}`, { headers }),
      ]) {
        assert.equal(res.status, 400, JSON.stringify(headers));
        assert.equal(res.body.code, 'WEBHOOK_ENCABEZADO_INVALIDO');
        assert.ok(res.body.error.includes(JSON.stringify(name)), res.body.error);
      }
    }
    // NUL (and other C0 controls) are already refused for every body by platform/http/text-safety.ts.
    for (const headers of [{ 'X-Ok': 'a\u0000' }, { 'X-Ok': 'a\u001b' }]) {
      assert.equal((await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'], headers })).status, 400);
      assert.equal((await t.call(admin, 'PATCH', `/api/v1/webhooks/${id}`, { headers })).status, 400);
    }
    assert.deepEqual((await t.call(admin, 'GET', `/api/v1/webhooks/${id}`)).body.headers, { 'X-Ok': 'v' });
    for (const name of ['Transfer-Encoding', 'Keep-Alive', 'Upgrade', 'Expect', 'Connection']) {
      const res = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'], headers: { [name]: 'x' } });
      assert.equal(res.status, 400, name);
      assert.match(res.body.error, /reservados/);
    }
  });

  it('a whsec_ secret that is not standard base64 of at least 24 bytes is 400 WEBHOOK_SECRETO_INVALIDO, on create and update', async () => {
    const created = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'] });
    for (const secret of ['whsec_!!!!????', 'whsec_' + Buffer.alloc(23, 1).toString('base64'), 'whsec_' + Buffer.alloc(32, 1).toString('base64url').replace(/A/g, '-'), 'whsec_ ' + Buffer.alloc(32, 1).toString('base64'), 'whsec_' + Buffer.alloc(32, 1).toString('base64') + '!']) {
      for (const res of [
        await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'], secret }),
        await t.call(admin, 'PATCH', `/api/v1/webhooks/${created.body.id}`, { secret }),
      ]) {
        assert.equal(res.status, 400, secret);
        assert.equal(res.body.code, 'WEBHOOK_SECRETO_INVALIDO');
      }
    }
    assert.equal((await t.call(admin, 'GET', `/api/v1/webhooks/${created.body.id}`)).body.hasSecret, false);
  });

  it('Contrato.EstadoCambiado (contract billing) can be subscribed on create and update', async () => {
    const res = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido', 'Contrato.EstadoCambiado'] });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const upd = await t.call(admin, 'PATCH', `/api/v1/webhooks/${res.body.id}`, { events: ['Contrato.EstadoCambiado'] });
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
  });

  it('a disabled endpoint cannot be tested or re-delivered: 409 WEBHOOK_DESACTIVADO, nothing queued', async () => {
    const created = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'] });
    const id = created.body.id;
    const first = await t.call(admin, 'POST', `/api/v1/webhooks/${id}/probar`);
    assert.equal(first.status, 202);
    // Finish that delivery so that it could be re-delivered.
    await t.db.execute(sql`update webhook_deliveries set status = 'fallido' where id = ${first.body.id}`);
    assert.equal((await t.call(admin, 'PATCH', `/api/v1/webhooks/${id}`, { enabled: false })).status, 200);
    for (const [u, body] of [
      [`/api/v1/webhooks/${id}/probar`, undefined],
      [`/api/v1/webhooks/${id}/entregas/${first.body.id}/reenviar`, undefined],
      [`/api/v1/webhooks/${id}/reenviar`, { desde: new Date(Date.now() - 3600_000).toISOString(), hasta: new Date(Date.now() + 3600_000).toISOString() }],
    ] as const) {
      const res = await t.call(admin, 'POST', u, body);
      assert.equal(res.status, 409, u);
      assert.equal(res.body.code, 'WEBHOOK_DESACTIVADO');
    }
    const list = await t.call(admin, 'GET', `/api/v1/webhooks/${id}/entregas`);
    assert.deepEqual(list.body.data.map((d: any) => d.status), ['fallido']);
  });

  it('ids beyond integer are a 400 naming the field, never a 500', async () => {
    const big = '99999999999';
    for (const [m, u, campo] of [
      ['GET', `/api/v1/webhooks/${big}`, 'params.id'], ['PATCH', `/api/v1/webhooks/${big}`, 'params.id'], ['DELETE', `/api/v1/webhooks/${big}`, 'params.id'],
      ['POST', `/api/v1/webhooks/${big}/probar`, 'params.id'], ['POST', `/api/v1/webhooks/${big}/rotar-secreto`, 'params.id'],
      ['GET', `/api/v1/webhooks/${big}/entregas`, 'params.id'], ['GET', `/api/v1/webhooks/${big}/entregas/1`, 'params.id'],
      ['GET', `/api/v1/webhooks?idEmpresa=${big}`, 'query.idEmpresa'], ['POST', `/api/v1/webhooks?idEmpresa=${big}`, 'query.idEmpresa'],
      ['GET', `/api/v1/eventos?idEmpresa=${big}`, 'query.idEmpresa'],
    ] as const) {
      const res = await t.call(admin, m, u, m === 'PATCH' ? { enabled: false } : m === 'POST' && u.includes('idEmpresa') ? { url, events: ['Cfe.Emitido'] } : undefined);
      assert.equal(res.status, 400, `${m} ${u}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'VALIDACION', `${m} ${u}`);
      assert.deepEqual(res.body.campos.map((c: any) => c.campo), [campo], `${m} ${u}`);
    }
    // A delivery id is bigint: a large one is simply not found.
    const created = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'] });
    assert.equal((await t.call(admin, 'GET', `/api/v1/webhooks/${created.body.id}/entregas/${big}`)).status, 404);
  });

  it('an idEmpresa beyond integer on a route that does not bound it answers like a missing company (tenancy)', async () => {
    // The catalogue declares no query schema, so only the tenancy hook sees idEmpresa.
    const res = await t.call(admin, 'GET', '/api/v1/webhooks/catalogo?idEmpresa=99999999999');
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'EMPRESA_NO_ENCONTRADA');
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

  it('header values are shown to administradores and operators only; lectura and emisor see names with masked values', async () => {
    const headers = { Authorization: 'Bearer top-secret', 'X-Tenant': 'a' };
    const created = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'], headers });
    assert.deepEqual(created.body.headers, headers);
    const companyAdmin = await createUser(t, admin, 'admin-a-headers@test.uy', [{ idEmpresa: companyA, rol: 'administrador' }]);
    assert.deepEqual((await t.call(companyAdmin.token, 'GET', `/api/v1/webhooks/${created.body.id}`)).body.headers, headers);
    for (const rol of ['lectura', 'emisor'] as const) {
      const user = await createUser(t, admin, `${rol}-headers@test.uy`, [{ idEmpresa: companyA, rol }]);
      const one = await t.call(user.token, 'GET', `/api/v1/webhooks/${created.body.id}`);
      assert.equal(one.status, 200);
      assert.deepEqual(one.body.headers, { Authorization: '********', 'X-Tenant': '********' }, rol);
      const list = await t.call(user.token, 'GET', `/api/v1/webhooks?idEmpresa=${companyA}&length=100`);
      assert.equal(list.status, 200);
      assert.ok(!JSON.stringify(list.body).includes('top-secret'), rol);
      assert.deepEqual(list.body.data.find((w: any) => w.id === created.body.id).headers, { Authorization: '********', 'X-Tenant': '********' });
    }
  });

  it('managing endpoints needs administrador', async () => {
    const reader = await createUser(t, admin, 'lector@test.uy', [{ idEmpresa: companyA, rol: 'emisor' }]);
    const res = await t.call(reader.token, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url, events: ['Cfe.Emitido'] });
    assert.equal(res.status, 403);
  });
});
