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

describe('createLogger redaction', () => {
  const capture = () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({ write(chunk, _enc, cb) { lines.push(...String(chunk).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)); cb(); } });
    return { lines, log: createLogger({ logLevel: 'info' }, sink) };
  };

  it('replaces secrets at the top, one level down and in headers, and leaves the logged object as it was', () => {
    const { lines, log } = capture();
    const logged = { token: 'T1', body: { clave: 'C1', keyPem: 'K1', nombre: 'Ana', nested: { x: 1 } }, headers: { authorization: 'A1', accept: 'json' }, cert: { headers: { cookie: 'S1' } } };
    const before = JSON.stringify(logged);
    log.info(logged, 'x');
    assert.deepEqual(lines[0], {
      level: 30, time: lines[0].time, token: '[REDACTED]', body: { clave: '[REDACTED]', keyPem: '[REDACTED]', nombre: 'Ana', nested: { x: 1 } },
      headers: { authorization: '[REDACTED]', accept: 'json' }, cert: { headers: { cookie: '[REDACTED]' } }, msg: 'x',
    });
    assert.equal(JSON.stringify(logged), before);
  });

  it("redacts a child logger's bindings and an error's own secret properties", () => {
    const { lines, log } = capture();
    const err = Object.assign(new Error('boom'), { accessToken: 'E1' });
    log.child({ reqId: 'r1', secret: 'B1' }).error({ err }, 'failed');
    assert.equal(lines[0].reqId, 'r1');
    assert.equal(lines[0].secret, '[REDACTED]');
    const logged = lines[0].err as Record<string, unknown>;
    assert.equal(logged.message, 'boom');
    assert.equal(logged.accessToken, '[REDACTED]');
    assert.equal(err.accessToken, 'E1');
  });

  it('keeps an object whose headers come from its prototype readable by the request serializer', () => {
    const { lines, log } = capture();
    class Request {
      constructor(readonly raw: { method: string; url: string; headers: Record<string, string> }) {}
      get headers() { return this.raw.headers; }
      get method() { return this.raw.method; }
      get url() { return this.raw.url; }
    }
    log.error({ req: new Request({ method: 'POST', url: '/api/v1/x', headers: { authorization: 'Bearer H1' } }) }, 'failed');
    assert.deepEqual(lines[0].req, { method: 'POST', url: '/api/v1/x' });
    assert.ok(!JSON.stringify(lines).includes('H1'));
  });
});
