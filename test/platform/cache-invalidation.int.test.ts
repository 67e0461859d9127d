/**
 * The hot-path caches (actor, emission point, signing key) against writes made by this process and
 * by another one (platform/db/invalidation.ts, migration 0014): never stale in the writing process,
 * fresh within moments elsewhere.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createTestApp, type TestApp } from '../support/app.js';
import { createUser, insertCompany } from '../support/factories.js';
import { setUpIssuer } from '../../src/modules/issued-cfe/issued-cfe.test-setup.js';

let t: TestApp;
let admin: string;
let cashier: string;
let company: { id: number; rut: string };
let pointId: number;
const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);
const ticket = () => ({ idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '100' }] } });
const emit = (token: string) => t.call(token, 'POST', '/api/v1/comprobante/emitir', ticket());

/** A write from outside this process: its own connection, not the app's pool. */
async function externally(text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: t.database.url });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

async function eventually(check: () => Promise<boolean>, ms = 3000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`not seen within ${ms} ms`);
}

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  company = await insertCompany(t);
  ({ point: { id: pointId } } = await setUpIssuer(t.db, t.call, admin, company));
  await createUser(t, admin, 'caja@cache.uy', [{ idEmpresa: company.id, rol: 'emisor' }]);
  cashier = await t.login('caja@cache.uy', 'password-123');
});
after(async () => t.close());

describe('happy path', () => {
  test('a change committed by this process empties the caches before its COMMIT returns', async () => {
    let seen = 0;
    t.database.invalidation.subscribe('companies', () => seen++);
    await t.db.transaction(async (tx) => {
      await tx.execute(`update companies set telefono = telefono where id = ${company.id}`);
      assert.equal(seen, 0, 'nothing before the commit');
    });
    // The session's own NOTICE is delivered with the commit; the listening connection's NOTIFY
    // moments later (or, on a busy machine, already before the commit's caller resumes).
    assert.ok(seen >= 1, 'delivered with the commit');
    await eventually(async () => seen === 2);
    await t.db.transaction(async (tx) => {
      await tx.execute(`update companies set telefono = telefono where id = ${company.id}`);
      tx.rollback();
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(seen, 2, 'a rolled-back change invalidates nothing');
  });

  test('the pooled connections do not LISTEN: one connection per process does (a NOTIFY wakes every listener)', async () => {
    const { rows } = await t.db.$client.query<{ n: string }>(`select count(*) as n from pg_stat_activity where datname = current_database() and query ilike 'listen %'`);
    assert.equal(Number(rows[0]!.n), 1);
    assert.equal(t.database.invalidation.live, true);
  });

  test('an emission point disabled through the API stops issuing at once, and issues again once enabled', async () => {
    assert.equal((await emit(cashier)).status, 200, 'cache warm');
    assert.equal((await t.call(admin, 'POST', '/api/v1/puntoemision/editar', { idPuntoEmision: pointId, habilitada: false })).status, 200);
    const refused = await emit(cashier);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'PUNTO_EMISION_DESHABILITADO');
    assert.equal((await t.call(admin, 'POST', '/api/v1/puntoemision/editar', { idPuntoEmision: pointId, habilitada: true })).status, 200);
    assert.equal((await emit(cashier)).status, 200);
  });

  test('a membership removed by the API is refused on the next request', async () => {
    const { body: users } = await t.call(admin, 'GET', `/api/v1/usuario/todos?idEmpresa=${company.id}`);
    const user = (users.data ?? users).find((u: { usuario: string }) => u.usuario === 'caja@cache.uy');
    assert.equal((await emit(cashier)).status, 200, 'cache warm');
    assert.equal((await t.call(admin, 'POST', '/api/v1/usuario/editar', { idUsuario: user.id, empresas: [] })).status, 200);
    const refused = await emit(cashier);
    assert.equal(refused.status, 404, 'the company is invisible to a non-member');
    const back = await t.call(admin, 'POST', '/api/v1/usuario/editar', { idUsuario: user.id, empresas: [{ idEmpresa: company.id, rol: 'emisor' }] });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.equal((await emit(cashier)).status, 200);
  });
});

describe('errors', () => {
  test('another process disabling the emission point is seen within moments', async () => {
    assert.equal((await emit(cashier)).status, 200, 'cache warm');
    await externally('update emission_points set enabled = false where id = $1', [pointId]);
    await eventually(async () => (await emit(cashier)).body.code === 'PUNTO_EMISION_DESHABILITADO');
    await externally('update emission_points set enabled = true where id = $1', [pointId]);
    await eventually(async () => (await emit(cashier)).status === 200);
  });

  test('another process revoking a user\'s tokens is seen within moments', async () => {
    assert.equal((await emit(cashier)).status, 200, 'cache warm');
    await externally(`update users set token_version = token_version + 1 where email = 'caja@cache.uy'`);
    await eventually(async () => (await emit(cashier)).status === 401);
  });
});

describe('access', () => {
  test('a company disabled by another process stops its emissions', async () => {
    const fresh = await t.login('caja@cache.uy', 'password-123');
    assert.equal((await emit(fresh)).status, 200, 'cache warm');
    await externally('update companies set enabled = false where id = $1', [company.id]);
    await eventually(async () => (await emit(fresh)).body.code === 'EMPRESA_DESHABILITADA');
  });
});
