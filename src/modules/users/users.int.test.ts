import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { companies } from '../companies/companies.tables.js';

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

  it('changes its own password with the current one, ending every session (refresh tokens too)', async () => {
    const u = await createUser(t, admin, 'clave@a.uy', [{ idEmpresa: companyA.id, rol: 'lectura' }]);
    const other = (await t.call(undefined, 'POST', '/api/auth/login', { usuario: 'clave@a.uy', clave: u.clave })).body;
    const mine = (await t.call(undefined, 'POST', '/api/auth/login', { usuario: 'clave@a.uy', clave: u.clave })).body;
    const res = await t.call(mine.accessToken, 'POST', '/api/v1/usuario/actualizarClave', { claveActual: u.clave, claveNueva: 'otra-clave-456' });
    assert.equal(res.status, 204);
    assert.equal((await t.call(u.token, 'GET', '/api/v1/usuario/empresas')).status, 401, 'old sessions end');
    for (const pair of [other, mine]) {
      const refresh = await t.call(undefined, 'POST', '/api/auth/refresh', { refreshToken: pair.refreshToken });
      assert.equal(refresh.status, 401, 'an old refresh token no longer yields an access token');
      assert.equal(refresh.body.code, 'REFRESH_TOKEN_INVALIDO');
    }
    assert.equal((await t.call(undefined, 'POST', '/api/auth/login', { usuario: 'clave@a.uy', clave: 'otra-clave-456' })).status, 200);
  });

  it('the administrator of every company of a user may rename and disable them', async () => {
    const c = await insertCompany(t);
    const adminAC = await createUser(t, admin, 'admin-ac@test.uy', [{ idEmpresa: companyA.id, rol: 'administrador' }, { idEmpresa: c.id, rol: 'administrador' }]);
    const u = await createUser(t, admin, 'en-a-y-c@test.uy', [{ idEmpresa: companyA.id, rol: 'lectura' }, { idEmpresa: c.id, rol: 'emisor' }]);
    const res = await t.call(adminAC.token, 'POST', '/api/v1/usuario/editar', { idUsuario: u.id, nombre: 'Renombrado', habilitado: false });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.nombre, 'Renombrado');
    assert.equal(res.body.habilitado, false);
  });

  it('a company administrator may remove or lower their own administrador role while another one remains', async () => {
    const c = await insertCompany(t);
    const first = await createUser(t, admin, 'primero@c.uy', [{ idEmpresa: c.id, rol: 'administrador' }]);
    await createUser(t, admin, 'segundo@c.uy', [{ idEmpresa: c.id, rol: 'administrador' }]);
    const res = await t.call(first.token, 'POST', '/api/v1/usuario/editar', { idUsuario: first.id, empresas: [{ idEmpresa: c.id, rol: 'emisor' }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.empresas, [{ idEmpresa: c.id, rol: 'emisor' }]);
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

  it('refuses a company repeated in the role list with 400, on create and on edit', async () => {
    const empresas = [{ idEmpresa: companyA.id, rol: 'lectura' }, { idEmpresa: companyA.id, rol: 'administrador' }];
    const create = await t.call(adminA.token, 'POST', '/api/v1/usuario/crear', { usuario: 'repetida@a.uy', clave: 'password-123', empresas });
    assert.equal(create.status, 400, JSON.stringify(create.body));
    assert.equal(create.body.code, 'VALIDACION');
    assert.deepEqual(create.body.campos.map((c: { campo: string }) => c.campo), ['empresas.1.idEmpresa']);
    assert.equal((await t.call(undefined, 'POST', '/api/auth/login', { usuario: 'repetida@a.uy', clave: 'password-123' })).status, 401, 'not created');
    const u = await createUser(t, admin, 'repetida-editar@a.uy', [{ idEmpresa: companyA.id, rol: 'lectura' }]);
    const edit = await t.call(adminA.token, 'POST', '/api/v1/usuario/editar', { idUsuario: u.id, empresas });
    assert.equal(edit.status, 400, JSON.stringify(edit.body));
    assert.equal(edit.body.code, 'VALIDACION');
  });

  it('an operator granting a role on a nonexistent or deleted company gets 404 EMPRESA_NO_ENCONTRADA', async () => {
    const gone = await insertCompany(t);
    await t.db.update(companies).set({ deletedAt: new Date() }).where(eq(companies.id, gone.id));
    const u = await createUser(t, admin, 'sin-fantasmas@a.uy', [{ idEmpresa: companyA.id, rol: 'lectura' }]);
    for (const idEmpresa of [999999, gone.id]) {
      const create = await t.call(admin, 'POST', '/api/v1/usuario/crear', { usuario: `fantasma${idEmpresa}@a.uy`, clave: 'password-123', empresas: [{ idEmpresa, rol: 'lectura' }] });
      assert.equal(create.status, 404, JSON.stringify(create.body));
      assert.equal(create.body.code, 'EMPRESA_NO_ENCONTRADA');
      const edit = await t.call(admin, 'POST', '/api/v1/usuario/editar', { idUsuario: u.id, empresas: [{ idEmpresa, rol: 'lectura' }] });
      assert.equal(edit.status, 404, JSON.stringify(edit.body));
      assert.equal(edit.body.code, 'EMPRESA_NO_ENCONTRADA');
    }
    const roles = await t.call(admin, 'GET', `/api/v1/usuario/${u.id}/empresas`);
    assert.deepEqual(roles.body.map((c: { idEmpresa: number }) => c.idEmpresa), [companyA.id], 'nothing changed');
  });

  it('answers ids beyond the integer range with 400, not 500', async () => {
    const big = 3_000_000_000;
    for (const [method, url, body] of [
      ['GET', `/api/v1/usuario/${big}/empresas`, undefined],
      ['GET', `/api/v1/usuario/todos?idEmpresa=${big}`, undefined],
      ['POST', '/api/v1/usuario/editar', { idUsuario: big, nombre: 'x' }],
      ['POST', '/api/v1/usuario/desbloquear', { idUsuario: big }],
      ['POST', '/api/v1/usuario/crear', { usuario: 'grande@a.uy', clave: 'password-123', empresas: [{ idEmpresa: big, rol: 'lectura' }] }],
    ] as const) {
      const res = await t.call(admin, method, url, body);
      assert.equal(res.status, 400, `${method} ${url}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'VALIDACION');
    }
  });

  it('refuses to take away the last enabled administrador of a company (409 ULTIMO_ADMINISTRADOR)', async () => {
    const c = await insertCompany(t);
    const only = await createUser(t, admin, 'unico@c.uy', [{ idEmpresa: c.id, rol: 'administrador' }]);
    const refusals = [
      [only.token, { idUsuario: only.id, empresas: [] }],
      [only.token, { idUsuario: only.id, empresas: [{ idEmpresa: c.id, rol: 'emisor' }] }],
      [admin, { idUsuario: only.id, empresas: [] }],
      [admin, { idUsuario: only.id, habilitado: false }],
    ] as const;
    for (const [token, body] of refusals) {
      const res = await t.call(token, 'POST', '/api/v1/usuario/editar', body);
      assert.equal(res.status, 409, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'ULTIMO_ADMINISTRADOR');
      assert.equal(res.body.idEmpresa, c.id);
    }
    // A disabled administrador does not keep the company administered.
    const disabled = await createUser(t, admin, 'deshabilitado@c.uy', [{ idEmpresa: c.id, rol: 'administrador' }]);
    assert.equal((await t.call(admin, 'POST', '/api/v1/usuario/editar', { idUsuario: disabled.id, habilitado: false })).status, 200);
    assert.equal((await t.call(only.token, 'POST', '/api/v1/usuario/editar', { idUsuario: only.id, empresas: [] })).status, 409);
    const mine = await t.call(only.token, 'GET', '/api/v1/usuario/empresas');
    assert.deepEqual(mine.body.map((m: { idEmpresa: number; rol: string }) => [m.idEmpresa, m.rol]), [[c.id, 'administrador']], 'role kept');
  });

  it('two administradores removing each other at once leave one of them', async () => {
    const c = await insertCompany(t);
    const x = await createUser(t, admin, 'x@carrera.uy', [{ idEmpresa: c.id, rol: 'administrador' }]);
    const y = await createUser(t, admin, 'y@carrera.uy', [{ idEmpresa: c.id, rol: 'administrador' }]);
    const results = await Promise.all([
      t.call(x.token, 'POST', '/api/v1/usuario/editar', { idUsuario: y.id, empresas: [{ idEmpresa: c.id, rol: 'lectura' }] }),
      t.call(y.token, 'POST', '/api/v1/usuario/editar', { idUsuario: x.id, empresas: [{ idEmpresa: c.id, rol: 'lectura' }] }),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 409], JSON.stringify(results.map((r) => r.body)));
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

  it('an administrator of another company of the user cannot rename or disable them, only change that company\'s role', async () => {
    // The administrator of A is also lectura in B: B's administrator must not take A's administrator away.
    const a = await insertCompany(t);
    const b = await insertCompany(t);
    const adminOfA = await createUser(t, admin, 'adm1@a.uy', [{ idEmpresa: a.id, rol: 'administrador' }, { idEmpresa: b.id, rol: 'lectura' }]);
    const adminOfB = await createUser(t, admin, 'adm2@b.uy', [{ idEmpresa: b.id, rol: 'administrador' }]);
    for (const body of [{ habilitado: false, nombre: 'renamed by B' }, { habilitado: false }, { nombre: 'renamed by B' }]) {
      const res = await t.call(adminOfB.token, 'POST', '/api/v1/usuario/editar', { idUsuario: adminOfA.id, ...body });
      assert.equal(res.status, 403, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'USUARIO_DE_OTRAS_EMPRESAS');
    }
    assert.equal((await t.call(adminOfA.token, 'GET', '/api/v1/usuario/empresas')).status, 200, 'still enabled, token still valid');
    const role = await t.call(adminOfB.token, 'POST', '/api/v1/usuario/editar', { idUsuario: adminOfA.id, nombre: 'adm1@a.uy', habilitado: true, empresas: [{ idEmpresa: b.id, rol: 'emisor' }] });
    assert.equal(role.status, 200, `unchanged account fields do not count: ${JSON.stringify(role.body)}`);
    assert.deepEqual(role.body.empresas, [{ idEmpresa: b.id, rol: 'emisor' }]);
    const seenByOperator = await t.call(admin, 'GET', `/api/v1/usuario/${adminOfA.id}/empresas`);
    assert.deepEqual(
      seenByOperator.body.map((m: { idEmpresa: number; rol: string }) => [m.idEmpresa, m.rol]).sort(),
      [[a.id, 'administrador'], [b.id, 'emisor']].sort(),
      'A\'s role untouched',
    );
    const renamed = await t.call(admin, 'POST', '/api/v1/usuario/editar', { idUsuario: adminOfA.id, nombre: 'renombrado por el operador' });
    assert.equal(renamed.status, 200, 'an operator may');
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
