import assert from 'node:assert/strict';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, it } from 'node:test';
import helmet from 'helmet';
import { applyHeaderOperations, recordHelmetHeaders } from './security-headers.js';

function freshResponse(): ServerResponse {
  const res = new ServerResponse(new IncomingMessage(new Socket()));
  res.setHeader('X-Powered-By', 'something'); // helmet removes it
  return res;
}

describe('security headers recorded once from helmet', () => {
  it('write on a real response exactly what helmet itself writes there', () => {
    const options = { contentSecurityPolicy: false } as const;
    const byHelmet = freshResponse();
    helmet(options)(byHelmet.req, byHelmet, (err?: unknown) => assert.ifError(err));
    const replayed = freshResponse();
    applyHeaderOperations(replayed, recordHelmetHeaders(options));
    assert.deepEqual(replayed.getHeaders(), byHelmet.getHeaders());
    assert.equal(replayed.getHeader('x-content-type-options'), 'nosniff');
    assert.match(String(replayed.getHeader('strict-transport-security')), /max-age=\d+/);
    assert.equal(replayed.getHeader('x-powered-by'), undefined);
    assert.equal(replayed.getHeader('content-security-policy'), undefined, 'CSP off');
  });

  it('follow the options (a CSP when asked for)', () => {
    const res = freshResponse();
    applyHeaderOperations(res, recordHelmetHeaders({}));
    assert.match(String(res.getHeader('content-security-policy')), /default-src 'self'/);
  });
});
