import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';

let t: TestApp;
let admin: string;
let companyA: { id: number };
let companyB: { id: number };
let adminA: Awaited<ReturnType<typeof createUser>>;
let adminB: Awaited<ReturnType<typeof createUser>>;

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  companyA = await insertCompany(t, { razonSocial: 'Empresa A S.A.' });
  companyB = await insertCompany(t, { razonSocial: 'Empresa B S.A.' });
  adminA = await createUser(t, admin, 'admin-a@test.uy', [{ idEmpresa: companyA.id, rol: 'administrador' }]);
  adminB = await createUser(t, admin, 'admin-b@test.uy', [{ idEmpresa: companyB.id, rol: 'administrador' }]);
});
after(async () => t.close());

describe('happy path', () => {
  it('a company administrator creates users in their company and lists them paged', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await t.call(adminA.token, 'POST', '/api/v1/usuario/crear', { usuario: `cajero${i}@a.uy`, nombre: `Cajero ${i}`, clave: 'password-123', empresas: [{ idEmpresa: companyA.id, rol: 'emisor' }] });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual(res.body.empresas, [{ idEmpresa: companyA.id, rol: 'emisor' }]);
    }
    const page = await t.call(adminA.token, 'GET', `/api/v1/usuario/todos?idEmpresa=${companyA.id}&start=1&length=2`);
    assert.equal(page.status, 200);
    assert.equal(page.body.total, 4, 'admin-a plus three cashiers');
    assert.equal(page.body.data.length, 2);
    assert.equal(page.body.start, 1);
    assert.equal(page.body.length, 2);
    const defaults = await t.call(adminA.token, 'GET', `/api/v1/usuario/todos?idEmpresa=${companyA.id}`);
    assert.equal(defaults.body.length, 50);
  });

  it('edits a user and changes roles', async () => {
    const u = await createUser(t, admin, 'editar@a.uy', [{ idEmpresa: companyA.id, rol: 'lectura' }]);
    const res = await t.call(adminA.token, 'POST', '/api/v1/usuario/editar', { idUsuario: u.id, nombre: 'Nombre Nuevo', empresas: [{ idEmpresa: companyA.id, rol: 'emisor' }] });
    assert.equal(res.status, 200);
    assert.equal(res.body.nombre, 'Nombre Nuevo');
    assert.deepEqual(res.body.empresas, [{ idEmpresa: companyA.id, rol: 'emisor' }]);
  });

  it('disabling a user cuts its access at once', async () => {
    const u = await createUser(t, admin, 'baja@a.uy', [{ idEmpresa: companyA.id, rol: 'lectura' }]);
    assert.equal((await t.call(adminA.token, 'POST', '/api/v1/usuario/editar', { idUsuario: u.id, habilitado: false })).status, 200);
    assert.equal((await t.call(u.token, 'GET', '/api/v1/usuario/empresas')).status, 401);
    assert.equal((await t.call(undefined, 'POST', '/api/auth/login', { usuario: 'baja@a.uy', clave: u.clave })).status, 403);
  });

  it('changes its own password with the current one', async () => {
    const u = await createUser(t, admin, 'clave@a.uy', [{ idEmpresa: companyA.id, rol: 'lectura' }]);
    const res = await t.call(u.token, 'POST', '/api/v1/usuario/actualizarClave', { claveActual: u.clave, claveNueva: 'otra-clave-456' });
    assert.equal(res.status, 204);
    assert.equal((await t.call(u.token, 'GET', '/api/v1/usuario/empresas')).status, 401, 'old sessions end');
    assert.equal((await t.call(undefined, 'POST', '/api/auth/login', { usuario: 'clave@a.uy', clave: 'otra-clave-456' })).status, 200);
  });

  it('lists the companies of the current user and of a given user', async () => {
    const mine = await t.call(adminA.token, 'GET', '/api/v1/usuario/empresas');
    assert.equal(mine.status, 200);
    assert.deepEqual(mine.body.map((c: { idEmpresa: number; rol: string }) => [c.idEmpresa, c.rol]), [[companyA.id, 'administrador']]);
    const theirs = await t.call(admin, 'GET', `/api/v1/usuario/${adminA.id}/empresas`);
    assert.equal(theirs.status, 200);
    assert.equal(theirs.body[0].razonSocial, 'Empresa A S.A.');
    const all = await t.call(admin, 'GET', '/api/v1/usuario/empresas');
    assert.ok(all.body.length >= 2, 'an operator sees every company');
  });
});

describe('errors', () => {
  it('rejects a duplicate e-mail, a weak password and bad input with clear codes', async () => {
    const dup = await t.call(adminA.token, 'POST', '/api/v1/usuario/crear', { usuario: 'admin-a@test.uy', clave: 'password-123', empresas: [{ idEmpresa: companyA.id, rol: 'emisor' }] });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.code, 'USUARIO_DUPLICADO');
    const weak = await t.call(adminA.token, 'POST', '/api/v1/usuario/crear', { usuario: 'weak@a.uy', clave: 'short', empresas: [{ idEmpresa: companyA.id, rol: 'emisor' }] });
    assert.equal(weak.status, 400);
    assert.equal(weak.body.code, 'VALIDACION');
    assert.ok(weak.body.campos.some((c: { campo: string }) => c.campo === 'clave'));
    const wrongCurrent = await t.call(adminA.token, 'POST', '/api/v1/usuario/actualizarClave', { claveActual: 'nope', claveNueva: 'password-999' });
    assert.equal(wrongCurrent.body.code, 'CLAVE_ACTUAL_INCORRECTA');
    const paging = await t.call(adminA.token, 'GET', `/api/v1/usuario/todos?idEmpresa=${companyA.id}&length=501`);
    assert.equal(paging.status, 400);
  });

  it('a non-operator must name the company when listing users', async () => {
    const res = await t.call(adminA.token, 'GET', '/api/v1/usuario/todos');
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'EMPRESA_REQUERIDA');
  });

  it('an emisor cannot manage users', async () => {
    const u = await createUser(t, admin, 'emisor-only@a.uy', [{ idEmpresa: companyA.id, rol: 'emisor' }]);
    const res = await t.call(u.token, 'GET', `/api/v1/usuario/todos?idEmpresa=${companyA.id}`);
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'SIN_PERMISO');
    const create = await t.call(u.token, 'POST', '/api/v1/usuario/crear', { usuario: 'x@a.uy', clave: 'password-123', empresas: [{ idEmpresa: companyA.id, rol: 'administrador' }] });
    assert.equal(create.status, 403);
  });
});

describe('access', () => {
  it('one company\'s administrator cannot read or change another company\'s users', async () => {
    const list = await t.call(adminA.token, 'GET', `/api/v1/usuario/todos?idEmpresa=${companyB.id}`);
    assert.equal(list.status, 404);
    assert.equal(list.body.code, 'EMPRESA_NO_ENCONTRADA');
    const missing = await t.call(adminA.token, 'GET', '/api/v1/usuario/todos?idEmpresa=999999');
    assert.deepEqual({ ...list.body, requestId: '' }, { ...missing.body, requestId: '' }, 'invisible == nonexistent');

    for (const [method, url, body] of [
      ['GET', `/api/v1/usuario/${adminB.id}/empresas`, undefined],
      ['POST', '/api/v1/usuario/editar', { idUsuario: adminB.id, nombre: 'hacked' }],
      ['POST', '/api/v1/usuario/desbloquear', { idUsuario: adminB.id }],
    ] as const) {
      const res = await t.call(adminA.token, method, url, body);
      assert.equal(res.status, 404, `${method} ${url}`);
      assert.equal(res.body.code, 'USUARIO_NO_ENCONTRADO');
    }
    const grant = await t.call(adminA.token, 'POST', '/api/v1/usuario/crear', { usuario: 'intruso@a.uy', clave: 'password-123', empresas: [{ idEmpresa: companyB.id, rol: 'administrador' }] });
    assert.equal(grant.status, 404);
    const operator = await t.call(adminA.token, 'POST', '/api/v1/usuario/crear', { usuario: 'op@a.uy', clave: 'password-123', operador: true, empresas: [{ idEmpresa: companyA.id, rol: 'emisor' }] });
    assert.equal(operator.status, 403);
    assert.equal(operator.body.code, 'OPERADOR_REQUERIDO');
  });

  it('shows only the memberships the caller can see', async () => {
    const both = await createUser(t, admin, 'ambas@test.uy', [{ idEmpresa: companyA.id, rol: 'emisor' }, { idEmpresa: companyB.id, rol: 'emisor' }]);
    const seenByA = await t.call(adminA.token, 'GET', `/api/v1/usuario/${both.id}/empresas`);
    assert.deepEqual(seenByA.body.map((c: { idEmpresa: number }) => c.idEmpresa), [companyA.id]);
    const list = await t.call(adminA.token, 'GET', `/api/v1/usuario/todos?idEmpresa=${companyA.id}&length=500`);
    const row = list.body.data.find((u: { id: number }) => u.id === both.id);
    assert.deepEqual(row.empresas, [{ idEmpresa: companyA.id, rol: 'emisor' }]);
  });
});
