/**
 * Issue 28 point 7: no secret in any log. A full flow with known secrets (passwords, access and
 * refresh tokens, preview and password-reset tokens, the PKCS#12 password and private key, the
 * SMTP password, webhook secrets, Authorization and Cookie headers) runs with the log captured at
 * trace level; none of them may appear in it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { ADMIN, createTestApp, type TestApp } from '../../test/support/app.js';
import { createUser, insertCompany } from '../../test/support/factories.js';
import { setUpIssuer } from '../modules/issued-cfe/issued-cfe.test-setup.js';
import { createDeliveryEngine } from '../modules/webhooks/delivery-engine.js';
import { createTestCa, issueTestCertificate, toPkcs12 } from './crypto/pki.js';
import { startJobRunner } from './jobs/runner.js';
import { uyToday } from '../lib/dates.js';

let t: TestApp;
let log = '';
const sink = new Writable({ write(chunk, _enc, cb) { log += String(chunk); cb(); } });

const USER_PASSWORD = 'Usuario-Clave-7731';
const NEW_PASSWORD = 'Nueva-Clave-9054';
const RESET_PASSWORD = 'Reset-Clave-3318';
const WRONG_PASSWORD = 'Clave-Incorrecta-4417';
const P12_PASSWORD = 'P12-Clave-5521';
const SMTP_PASSWORD = 'Smtp-Clave-8842';
const WEBHOOK_SECRET = 'whsec_' + Buffer.from('webhook-secret-known-to-the-test').toString('base64');
const COOKIE = 'sid=cookie-secret-6620';
const BOGUS_BEARER = 'bogus-bearer-token-value-2209';

before(async () => {
  t = await createTestApp({ LOG_LEVEL: 'trace', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, { logStream: sink });
});
after(() => t.close());

async function waitForResetToken(dir: string, to: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      const m = text.includes(to) ? /un solo uso\):\s*\n([A-Za-z0-9_-]{40,})/.exec(text.replace(/=\r?\n/g, '')) : null;
      if (m) return m[1];
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no password-reset mail in the outbox');
}

describe('the log of a full flow', () => {
  it('carries none of the secrets used', async () => {
    const secrets: string[] = [USER_PASSWORD, NEW_PASSWORD, RESET_PASSWORD, WRONG_PASSWORD, P12_PASSWORD, SMTP_PASSWORD, WEBHOOK_SECRET, WEBHOOK_SECRET.slice(6), COOKIE, BOGUS_BEARER, ADMIN.clave];
    const ok = (r: { status: number; body: any }, what: string) => {
      assert.ok(r.status < 300, `${what}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    };
    const admin = await t.adminToken();
    const company = await insertCompany(t);
    await setUpIssuer(t.db, t.call, admin, company);

    // Users, passwords and tokens: login, refresh, a wrong password, a password change, revoke by path.
    await createUser(t, admin, 'log-user@test.uy', [{ idEmpresa: company.id, rol: 'administrador' }], USER_PASSWORD);
    const pair = ok(await t.call(undefined, 'POST', '/api/auth/login', { usuario: 'log-user@test.uy', clave: USER_PASSWORD }), 'login');
    secrets.push(pair.accessToken, pair.refreshToken);
    assert.equal((await t.call(undefined, 'POST', '/api/auth/login', { usuario: 'log-user@test.uy', clave: WRONG_PASSWORD })).status, 401);
    const rotated = ok(await t.call(undefined, 'POST', '/api/auth/refresh', { refreshToken: pair.refreshToken }), 'refresh');
    secrets.push(rotated.accessToken, rotated.refreshToken);
    ok(await t.call(rotated.accessToken, 'POST', `/api/v1/auth/revoke/${rotated.refreshToken}`), 'revoke');
    const again = ok(await t.call(undefined, 'POST', '/api/auth/login', { usuario: 'log-user@test.uy', clave: USER_PASSWORD }), 'login again');
    secrets.push(again.accessToken, again.refreshToken);
    const token = again.accessToken as string;
    ok(await t.call(token, 'POST', '/api/v1/usuario/actualizarClave', { claveActual: USER_PASSWORD, claveNueva: NEW_PASSWORD }), 'change password');
    const afterChange = ok(await t.call(undefined, 'POST', '/api/auth/login', { usuario: 'log-user@test.uy', clave: NEW_PASSWORD }), 'login new');
    secrets.push(afterChange.accessToken, afterChange.refreshToken);
    let userToken = afterChange.accessToken as string;

    // Headers: a bogus bearer and a cookie.
    await t.app.inject({ method: 'GET', url: '/api/v1/usuario/empresas', headers: { authorization: `Bearer ${BOGUS_BEARER}`, cookie: COOKIE } });
    await t.app.inject({ method: 'GET', url: '/api/v1/usuario/empresas', headers: { authorization: `Bearer ${userToken}`, cookie: COOKIE } });

    // Password recovery through the job runner (its log captured too).
    const runner = await startJobRunner({ pool: t.database.pool, jobs: t.modules.jobs, concurrency: 1, logger: t.app.log as never });
    try {
      ok(await t.call(undefined, 'POST', '/api/auth/recuperarClave', { usuario: 'log-user@test.uy' }), 'recuperarClave');
      const resetToken = await waitForResetToken(t.config.mail.outboxDir, 'log-user@test.uy');
      secrets.push(resetToken);
      ok(await t.call(undefined, 'POST', '/api/auth/restablecerClave', { token: resetToken, nuevaClave: RESET_PASSWORD }), 'restablecerClave');
      await t.call(undefined, 'GET', `/api/auth/nada?token=${resetToken}`);
      // The reset ends every session: sign in with the new password.
      const afterReset = ok(await t.call(undefined, 'POST', '/api/auth/login', { usuario: 'log-user@test.uy', clave: RESET_PASSWORD }), 'login after reset');
      secrets.push(afterReset.accessToken, afterReset.refreshToken);
      userToken = afterReset.accessToken;

      // Certificate with a known PKCS#12 password and private key.
      const ca = createTestCa();
      const cert = issueTestCertificate(ca, { rut: company.rut, name: 'Empresa de Prueba SA' });
      const archivo = toPkcs12(cert.keyPem, cert.certPem, P12_PASSWORD, [ca.certPem]).toString('base64');
      ok(await t.call(userToken, 'POST', '/api/v1/empresa/importarCertificado', { idEmpresa: company.id, clave: P12_PASSWORD, archivo, activar: true }), 'certificate');
      assert.equal((await t.call(userToken, 'POST', '/api/v1/empresa/importarCertificado', { idEmpresa: company.id, clave: WRONG_PASSWORD, archivo })).status >= 400, true);
      // Every line of the key body is a secret (a log of the PEM would show at least one).
      secrets.push(...cert.keyPem.split('\n').filter((l) => l.length >= 40 && !l.startsWith('-----')));

      // Company SMTP settings, then a CFE e-mail through them (the server does not exist: the send fails and is logged).
      ok(await t.call(userToken, 'PUT', '/api/v1/empresa/correoSaliente', { idEmpresa: company.id, smtpHost: '127.0.0.1', smtpPuerto: 9, smtpUsuario: 'envios', smtpClave: SMTP_PASSWORD, remitente: 'envios@empresa.uy' }), 'smtp');
      await t.call(userToken, 'POST', '/api/v1/empresa/verificar-email-saliente', { idEmpresa: company.id, destinatario: 'x@example.com' });
      const cfe = ok(await t.call(userToken, 'POST', '/api/v1/comprobante/emitir', {
        idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1',
        cfe: { idDoc: { tipoCfe: 101, fechaEmision: uyToday() }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '100' }] },
      }), 'emitir');
      ok(await t.call(userToken, 'POST', '/api/v1/cfeemitido/enviarPdfPorCorreo', { idCfe: cfe.id, destinatarios: ['cliente@example.com'] }), 'mail');
      await new Promise((r) => setTimeout(r, 1500));

      // Preview token, in the path.
      const preview = ok(await t.call(userToken, 'POST', '/api/v1/comprobante/previsualizar', {
        idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1',
        cfe: { idDoc: { tipoCfe: 101, fechaEmision: uyToday() }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '100' }] },
      }), 'previsualizar');
      secrets.push(preview.token);
      assert.equal((await t.app.inject({ method: 'GET', url: preview.url, headers: { authorization: `Bearer ${userToken}` } })).statusCode, 200);

      // Webhook secrets: registered, rotated, and a delivery signed with them.
      const hook = ok(await t.call(userToken, 'POST', `/api/v1/webhooks?idEmpresa=${company.id}`, { url: 'http://127.0.0.1:9/hook', events: ['Cfe.Emitido'], secret: WEBHOOK_SECRET }), 'webhook');
      const engine = createDeliveryEngine({ database: t.database, logger: t.app.log as never, secrets: t.modules.services.secretBox, timeoutMs: 500, allowPrivateUrls: true });
      ok(await t.call(userToken, 'POST', `/api/v1/webhooks/${hook.id}/probar`), 'probar');
      await engine.tick();
      const rotatedSecret = ok(await t.call(userToken, 'POST', `/api/v1/webhooks/${hook.id}/rotar-secreto`), 'rotar').secret as string;
      secrets.push(rotatedSecret, rotatedSecret.slice(6));
      ok(await t.call(userToken, 'POST', `/api/v1/webhooks/${hook.id}/probar`), 'probar 2');
      await engine.tick();
      await engine.close();
    } finally {
      await runner.stop();
    }

    // The log is real (requests were logged, paths redacted), and holds no secret.
    for (const secret of new Set(secrets)) {
      assert.ok(secret && secret.length >= 8, `weak test secret ${secret}`);
      const at = log.indexOf(secret);
      assert.equal(at, -1, `secret found in the log: …${log.slice(Math.max(0, at - 200), at + 50)}…`);
    }
    // One line per completed request (app.ts OneLinePerRequest), its URL redacted like the request serializer's.
    assert.match(log, /request completed/);
    assert.match(log, /\/api\/v1\/auth\/revoke\/\[REDACTED\]/);
    assert.match(log, /\/api\/v1\/comprobante\/previsualizar\/\[REDACTED\]/);
  });
});
