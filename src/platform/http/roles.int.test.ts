/**
 * Issue 28 point 6: each route declares its role, the OpenAPI document publishes it, and a caller
 * below that role is refused (403 SIN_PERMISO) on every write route.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { declareRoles } from './tenancy.js';

type Operation = { method: string; path: string; role?: string; description?: string; security?: unknown[] };

let t: TestApp;
let admin: string;
let companyA: number;
let companyB: number;
let operations: Operation[];

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  companyA = (await insertCompany(t)).id;
  companyB = (await insertCompany(t)).id;
  const doc = (await t.call(undefined, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, { 'x-rol'?: string; description?: string; security?: unknown[] }>> };
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, role: op['x-rol'], description: op.description, security: op.security })));
});
after(() => t.close());

/** A concrete URL for a documented path: every parameter 1 (the refusal comes before any lookup). */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, '1');

describe('declaration', () => {
  it('a route without a role stops the app at registration', async () => {
    const app = Fastify();
    declareRoles(app);
    app.get('/publica', { config: { public: true } }, async () => 'ok');
    app.get('/con-rol', { config: { minRole: 'lectura' } }, async () => 'ok');
    assert.throws(() => app.post('/sin-rol', async () => 'ok'), /POST \/sin-rol declares no role/);
    await app.close();
  });

  it('every operation of the OpenAPI document is public or carries x-rol and its line in the description', () => {
    assert.ok(operations.length > 100);
    for (const op of operations) {
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      if (isPublic) continue;
      assert.ok(op.role && ['lectura', 'emisor', 'administrador'].includes(op.role), `${op.method} ${op.path} has no x-rol`);
      assert.ok(op.description?.includes(`**Rol mínimo:** \`${op.role}\``), `${op.method} ${op.path} does not state its role`);
    }
  });

  it('administrator-only operations named by issue 28 are declared administrador', () => {
    const role = (m: string, p: string) => operations.find((o) => o.method === m && o.path === p)?.role;
    for (const p of ['/api/v1/cae/importar', '/api/v1/cae/importar-manual', '/api/v1/webhooks/{id}/probar', '/api/v1/webhooks/{id}/reenviar',
      '/api/v1/webhooks/{id}/entregas/{idEntrega}/reenviar', '/api/v1/empresa/importarCertificado', '/api/v1/empresa/asignarCertificado', '/api/v1/empresa/editar']) {
      assert.equal(role('POST', p), 'administrador', p);
    }
    assert.equal(role('PUT', '/api/v1/empresa/correoSaliente'), 'administrador');
    assert.equal(role('POST', '/api/v1/comprobante/emitir'), 'emisor');
    assert.equal(role('GET', '/api/v1/cfeemitido/buscar'), 'lectura');
  });
});

describe('lower roles are refused on every write route', () => {
  it('lectura is refused on every emisor and administrador route; emisor on every administrador route (403 SIN_PERMISO)', async () => {
    const lectura = await createUser(t, admin, 'solo-lectura@test.uy', [{ idEmpresa: companyA, rol: 'lectura' }]);
    const emisor = await createUser(t, admin, 'solo-emisor@test.uy', [{ idEmpresa: companyA, rol: 'emisor' }]);
    const writes = operations.filter((o) => o.role === 'emisor' || o.role === 'administrador');
    assert.ok(writes.length > 50, `only ${writes.length} write routes found`);
    for (const op of writes) {
      const lower = op.role === 'administrador' ? [lectura, emisor] : [lectura];
      for (const user of lower) {
        const res = await t.call(user.token, op.method, `${concrete(op.path)}?idEmpresa=${companyA}`, op.method === 'GET' ? undefined : { idEmpresa: companyA });
        assert.equal(res.status, 403, `${op.method} ${op.path}: ${res.status} ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'SIN_PERMISO', `${op.method} ${op.path}`);
      }
    }
  });

  it('a caller administrator elsewhere but emisor here is refused on this company (body idEmpresa and resource id alike)', async () => {
    const mixed = await createUser(t, admin, 'mixto@test.uy', [{ idEmpresa: companyA, rol: 'emisor' }, { idEmpresa: companyB, rol: 'administrador' }]);
    const manual = { idEmpresa: companyA, tipoCfe: 101, serie: 'A', desde: 1, hasta: 100, numeroCae: '90110000001', fechaAutorizacion: '2026-01-01', fechaVencimiento: '2027-01-01' };
    const res = await t.call(mixed.token, 'POST', '/api/v1/cae/importar-manual', manual);
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.equal(res.body.code, 'SIN_PERMISO');
    const xml = await t.call(mixed.token, 'POST', '/api/v1/cae/importar', { idEmpresa: companyA, xml: '<CAE/>' });
    assert.equal(xml.status, 403, JSON.stringify(xml.body));

    const hook = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${companyA}`, { url: 'http://127.0.0.1:9/hook', events: ['Cfe.Emitido'] });
    assert.equal(hook.status, 201);
    for (const [method, url, body] of [
      ['POST', `/api/v1/webhooks/${hook.body.id}/probar`, undefined],
      ['POST', `/api/v1/webhooks/${hook.body.id}/reenviar`, { desde: '2026-01-01T00:00:00Z', hasta: '2026-01-02T00:00:00Z' }],
    ] as const) {
      const r = await t.call(mixed.token, method, url, body);
      assert.equal(r.status, 403, `${url}: ${r.status} ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, 'SIN_PERMISO');
    }
    // The same caller still administers its own company.
    const own = await t.call(mixed.token, 'POST', '/api/v1/cae/importar-manual', { ...manual, idEmpresa: companyB });
    assert.notEqual(own.status, 403, JSON.stringify(own.body));
  });
});
