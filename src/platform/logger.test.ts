import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger, redactUrl } from './logger.js';

describe('redactUrl', () => {
  it('redacts path parameters named like a secret, token-like segments and secret query parameters', () => {
    assert.equal(redactUrl('/api/v1/auth/revoke/abc', '/api/v1/auth/revoke/:refreshToken'), '/api/v1/auth/revoke/[REDACTED]');
    assert.equal(redactUrl('/api/v1/comprobante/previsualizar/x1?formato=a4', '/api/v1/comprobante/previsualizar/:token'), '/api/v1/comprobante/previsualizar/[REDACTED]?formato=a4');
    assert.equal(redactUrl('/api/v1/nada/Zm9vYmFyYmF6cXV4cXV1eGNvcmdl'), '/api/v1/nada/[REDACTED]');
    assert.equal(redactUrl('/reset?token=s3cr3t&x=1&clave=p'), '/reset?token=[REDACTED]&x=1&clave=[REDACTED]');
    assert.equal(redactUrl('/api/v1/cfeemitido/12?idEmpresa=3', '/api/v1/cfeemitido/:id'), '/api/v1/cfeemitido/12?idEmpresa=3');
  });
});

describe('createLogger', () => {
  it('never writes authorization, cookie or secret-named keys', () => {
    let out = '';
    const sink = new Writable({ write(chunk, _enc, cb) { out += String(chunk); cb(); } });
    const log = createLogger({ logLevel: 'info' }, sink);
    log.info({ req: { headers: { authorization: 'Bearer AAA', cookie: 'sid=BBB' } }, body: { clave: 'CCC', nested: { token: 'DDD' } }, headers: { cookie: 'EEE' } }, 'x');
    log.info({ req: { method: 'POST', url: '/api/v1/auth/revoke/FFF', routeOptions: { url: '/api/v1/auth/revoke/:refreshToken' }, headers: { authorization: 'Bearer GGG' } } }, 'incoming request');
    for (const secret of ['AAA', 'BBB', 'CCC', 'EEE', 'FFF', 'GGG']) assert.ok(!out.includes(secret), `${secret} in ${out}`);
  });
});
