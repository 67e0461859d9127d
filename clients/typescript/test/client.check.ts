/**
 * Checks of the client against a running service (API, USUARIO, CLAVE in the environment), run by
 * test/typescript-client.int.test.ts of the service: token recovery, typed errors, paging and the
 * webhook verifier against the service's own signer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sign } from '../../../src/modules/webhooks/signature.js';
import { CfeApiError, createCfeClient, paginate, unwrap, verifyWebhook } from '../src/index.js';

const client = () => createCfeClient({ baseUrl: process.env.API!, usuario: process.env.USUARIO!, clave: process.env.CLAVE! });

describe('typed client', () => {
  it('logs in on first use and logs in again when its tokens are revoked', async () => {
    const cfe = client();
    assert.ok(Array.isArray(await cfe.companies()));
    unwrap(await cfe.api.POST('/api/v1/auth/revoke-all-tokens'));
    assert.ok(Array.isArray(await cfe.companies()), 'the call after the revocation succeeds');
  });

  it('refreshes an access token the service refuses with its refresh token, once', async () => {
    const login = unwrap(await client().api.POST('/api/auth/login', { body: { usuario: process.env.USUARIO!, clave: process.env.CLAVE! } }));
    const cfe = createCfeClient({ baseUrl: process.env.API!, usuario: 'nadie@ejemplo.com.uy', clave: 'no-se-usa', accessToken: 'no-es-un-token', refreshToken: login.refreshToken });
    assert.ok(Array.isArray(await cfe.companies()));
    assert.notEqual(cfe.tokens.refreshToken, login.refreshToken, 'the refresh token was rotated');
    assert.ok(Array.isArray(await cfe.companies()), 'and the new access token is used');
  });

  it('turns error answers into CfeApiError with the stable code and the fields', async () => {
    const cfe = client();
    await assert.rejects(
      async () => unwrap(await cfe.api.POST('/api/v1/empresa/crear', { body: { rut: '219999830019', razonSocial: '' } })),
      (e: unknown) => e instanceof CfeApiError && e.status === 400 && e.code === 'VALIDACION' && !!e.campos?.some((c) => c.campo === 'razonSocial') && !!e.requestId,
    );
    await assert.rejects(
      async () => unwrap(await cfe.api.POST('/api/v1/empresa/crear', { body: { rut: '123', razonSocial: 'X' } })),
      (e: unknown) => e instanceof CfeApiError && e.status === 400 && e.code === 'RUT_INVALIDO',
    );
    await assert.rejects(() => cfe.emitir({ codComercio: 'X', codTerminal: 'Y', cfe: { idDoc: { tipoCfe: 101, fechaEmision: '2026-11-27' }, detalles: [] } }), /No company selected/);
  });

  it('pages through a list', async () => {
    const cfe = client();
    const first = unwrap(await cfe.api.GET('/api/v1/empresa/todas', { params: { query: { start: 0, length: 1 } } }));
    const all = [];
    for await (const e of paginate(async (start, length) => unwrap(await cfe.api.GET('/api/v1/empresa/todas', { params: { query: { start, length } } })), 1)) all.push(e);
    assert.equal(all.length, first.total);
    assert.ok(all.length >= 1);
  });

  it('verifies the service\'s webhook signatures and refuses tampered, stale or unsigned deliveries', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = JSON.stringify({ id: 'evt_1', type: 'Cfe.Emitido', data: { idCfeEmitido: 1 } });
    const now = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(now), 'webhook-signature': sign(secret, 'evt_1', now, body) };
    assert.equal(verifyWebhook(secret, headers, body), true);
    assert.equal(verifyWebhook(secret, headers, body.replace('1}', '2}')), false);
    assert.equal(verifyWebhook(secret, { ...headers, 'webhook-timestamp': String(now - 3600) }, body), false);
    assert.equal(verifyWebhook('otro-secreto-de-prueba', headers, body), false);
    assert.equal(verifyWebhook(secret, { ...headers, 'webhook-signature': undefined }, body), false);
    const plain = 'un-secreto-sin-prefijo';
    assert.equal(verifyWebhook(plain, { ...headers, 'webhook-signature': `v1,bogus ${sign(plain, 'evt_1', now, body)}` }, body), true, 'one of several signatures (rotation)');
  });
});
