import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startJobRunner } from '../../platform/jobs/runner.js';
import { ADMIN, createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';

let t: TestApp;
before(async () => {
  t = await createTestApp({ MAX_FAILED_LOGINS: '5', ACCESS_TOKEN_TTL_SECONDS: '900' });
});
after(async () => t.close());

const login = (usuario: string, clave: string) => t.call(undefined, 'POST', '/api/auth/login', { usuario, clave });

describe('happy path', () => {
  it('logs in with the first administrator and gets a Bearer pair', async () => {
    const res = await login(ADMIN.usuario, ADMIN.clave);
    assert.equal(res.status, 200);
    assert.equal(res.body.tokenType, 'Bearer');
    assert.equal(res.body.expiresIn, 900);
    assert.match(res.body.accessToken, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.ok(res.body.refreshToken.length >= 40);
    const me = await t.call(res.body.accessToken, 'GET', '/api/v1/usuario/empresas');
    assert.equal(me.status, 200);
  });

  it('rotates the refresh token on every use', async () => {
    const first = (await login(ADMIN.usuario, ADMIN.clave)).body;
    const second = await t.call(undefined, 'POST', '/api/auth/refresh', { refreshToken: first.refreshToken });
    assert.equal(second.status, 200);
    assert.notEqual(second.body.refreshToken, first.refreshToken);
    const third = await t.call(undefined, 'POST', '/api/auth/refresh', { refreshToken: second.body.refreshToken });
    assert.equal(third.status, 200);
  });

  it('revokes one refresh token immediately', async () => {
    const pair = (await login(ADMIN.usuario, ADMIN.clave)).body;
    const res = await t.call(pair.accessToken, 'POST', `/api/v1/auth/revoke/${encodeURIComponent(pair.refreshToken)}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.revocados, 1);
    const reuse = await t.call(undefined, 'POST', '/api/auth/refresh', { refreshToken: pair.refreshToken });
    assert.equal(reuse.status, 401);
    assert.equal(reuse.body.code, 'REFRESH_TOKEN_INVALIDO');
  });

  it('revoke-all kills every refresh token and the access tokens already issued', async () => {
    const company = await insertCompany(t);
    const admin = await t.adminToken();
    const u = await createUser(t, admin, 'revoke-all@test.uy', [{ idEmpresa: company.id, rol: 'emisor' }]);
    const a = (await login('revoke-all@test.uy', u.clave)).body;
    const b = (await login('revoke-all@test.uy', u.clave)).body;
    const res = await t.call(a.accessToken, 'POST', '/api/v1/auth/revoke-all-tokens');
    assert.equal(res.status, 200);
    assert.ok(res.body.revocados >= 2);
    for (const tok of [a.accessToken, b.accessToken]) {
      const r = await t.call(tok, 'GET', '/api/v1/usuario/empresas');
      assert.equal(r.status, 401);
    }
    assert.equal((await t.call(undefined, 'POST', '/api/auth/refresh', { refreshToken: b.refreshToken })).status, 401);
    assert.equal((await login('revoke-all@test.uy', u.clave)).status, 200, 'can log in again');
  });

  it('recovers a password through an e-mailed single-use token', async () => {
    const company = await insertCompany(t);
    const admin = await t.adminToken();
    await createUser(t, admin, 'olvido@test.uy', [{ idEmpresa: company.id, rol: 'lectura' }]);
    const runner = await startJobRunner({ pool: t.database.pool, jobs: t.modules.jobs, concurrency: 1, logger: t.app.log as never });
    try {
      const res = await t.call(undefined, 'POST', '/api/auth/recuperarClave', { usuario: 'olvido@test.uy' });
      assert.equal(res.status, 202);
      const token = await waitForMailToken(t.config.mail.outboxDir, 'olvido@test.uy');
      const reset = await t.call(undefined, 'POST', '/api/auth/restablecerClave', { token, nuevaClave: 'nueva-clave-123' });
      assert.equal(reset.status, 204);
      assert.equal((await login('olvido@test.uy', 'nueva-clave-123')).status, 200);
      assert.equal((await login('olvido@test.uy', 'password-123')).status, 401);
      const again = await t.call(undefined, 'POST', '/api/auth/restablecerClave', { token, nuevaClave: 'otra-clave-123' });
      assert.equal(again.status, 400);
      assert.equal(again.body.code, 'TOKEN_RECUPERACION_INVALIDO');
    } finally {
      await runner.stop();
    }
  });
});

describe('errors', () => {
  it('rejects a wrong password and an unknown user the same way', async () => {
    const a = await login(ADMIN.usuario, 'wrong-password');
    const b = await login('nadie@test.uy', 'wrong-password');
    assert.equal(a.status, 401);
    assert.equal(b.status, 401);
    assert.equal(a.body.code, 'CREDENCIALES_INVALIDAS');
    assert.equal(a.body.error, b.body.error);
    assert.ok(a.body.requestId);
  });

  it('answers recuperarClave identically whether or not the user exists', async () => {
    const a = await t.call(undefined, 'POST', '/api/auth/recuperarClave', { usuario: ADMIN.usuario });
    const b = await t.call(undefined, 'POST', '/api/auth/recuperarClave', { usuario: 'nadie@test.uy' });
    assert.equal(a.status, 202);
    assert.deepEqual(a.body, b.body);
  });

  it('revokes the whole family when a rotated refresh token is reused', async () => {
    const first = (await login(ADMIN.usuario, ADMIN.clave)).body;
    const second = (await t.call(undefined, 'POST', '/api/auth/refresh', { refreshToken: first.refreshToken })).body;
    const reuse = await t.call(undefined, 'POST', '/api/auth/refresh', { refreshToken: first.refreshToken });
    assert.equal(reuse.status, 401);
    assert.equal(reuse.body.code, 'REFRESH_TOKEN_REUTILIZADO');
    const descendant = await t.call(undefined, 'POST', '/api/auth/refresh', { refreshToken: second.refreshToken });
    assert.equal(descendant.status, 401, 'the newer token of the same family is revoked too');
  });

  it('locks a brute-forced account until an administrator unlocks it', async () => {
    const company = await insertCompany(t);
    const admin = await t.adminToken();
    const u = await createUser(t, admin, 'victima@test.uy', [{ idEmpresa: company.id, rol: 'emisor' }]);
    const codes: string[] = [];
    for (let i = 0; i < 8; i++) codes.push((await login('victima@test.uy', `guess-${i}`)).body.code);
    assert.deepEqual(codes.slice(0, 4), Array(4).fill('CREDENCIALES_INVALIDAS'));
    assert.equal(codes[4], 'USUARIO_BLOQUEADO', 'the 5th failure locks');
    assert.deepEqual(codes.slice(5), Array(3).fill('USUARIO_BLOQUEADO'));
    const correct = await login('victima@test.uy', u.clave);
    assert.equal(correct.status, 423, 'even the right password is refused while locked');
    assert.equal((await t.call(u.token, 'GET', '/api/v1/usuario/empresas')).status, 401, 'existing tokens stop working');

    const unlock = await t.call(admin, 'POST', '/api/v1/usuario/desbloquear', { idUsuario: u.id });
    assert.equal(unlock.status, 200);
    assert.equal(unlock.body.bloqueado, false);
    assert.equal((await login('victima@test.uy', u.clave)).status, 200);
  });

  it('requires a Bearer token everywhere else and rejects garbage tokens', async () => {
    const none = await t.call(undefined, 'GET', '/api/v1/usuario/todos');
    assert.equal(none.status, 401);
    assert.equal(none.body.code, 'NO_AUTENTICADO');
    assert.equal(none.headers['www-authenticate'], 'Bearer');
    const bad = await t.call('abc.def.ghi', 'GET', '/api/v1/usuario/todos');
    assert.equal(bad.status, 401);
  });

  it('rejects an expired access token with TOKEN_EXPIRADO', async () => {
    const { signJwt } = await import('../../lib/jwt.js');
    const token = signJwt({ sub: '1', tv: 0 }, 'test-secret-test-secret-test-secret-0123456789', 60, Date.now() - 3_600_000);
    const res = await t.call(token, 'GET', '/api/v1/usuario/empresas');
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'TOKEN_EXPIRADO');
  });
});

describe('access', () => {
  it('cannot revoke another user\'s refresh token', async () => {
    const company = await insertCompany(t);
    const admin = await t.adminToken();
    const u = await createUser(t, admin, 'otro@test.uy', [{ idEmpresa: company.id, rol: 'emisor' }]);
    const adminPair = (await login(ADMIN.usuario, ADMIN.clave)).body;
    const res = await t.call(u.token, 'POST', `/api/v1/auth/revoke/${encodeURIComponent(adminPair.refreshToken)}`);
    assert.equal(res.status, 404);
    assert.equal((await t.call(undefined, 'POST', '/api/auth/refresh', { refreshToken: adminPair.refreshToken })).status, 200);
  });
});

async function waitForMailToken(dir: string, to: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const files = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
    for (const f of files) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      if (!text.includes(to)) continue;
      // The body may be quoted-printable encoded; the token is base64url on its own line.
      const decoded = text.replace(/=\r?\n/g, '');
      const m = /un solo uso\):\s*\n([A-Za-z0-9_-]{40,})/.exec(decoded);
      if (m) return m[1];
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no password-reset mail in the outbox');
}
