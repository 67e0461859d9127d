import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signJwt, verifyJwt } from './jwt.js';

const secret = 's'.repeat(40);

describe('jwt', () => {
  it('round-trips claims', () => {
    const r = verifyJwt(signJwt({ sub: '7', tv: 2 }, secret, 60), secret);
    assert.ok(r.ok);
    if (r.ok) assert.deepEqual([r.claims.sub, r.claims.tv], ['7', 2]);
  });
  it('rejects a wrong secret, a tampered payload and an expired token', () => {
    const tok = signJwt({ sub: '7', tv: 0 }, secret, 60);
    assert.deepEqual(verifyJwt(tok, 'x'.repeat(40)), { ok: false, reason: 'signature' });
    const [h, , s] = tok.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: '1', tv: 0, exp: 9e9 })).toString('base64url')}.${s}`;
    assert.deepEqual(verifyJwt(forged, secret), { ok: false, reason: 'signature' });
    assert.deepEqual(verifyJwt(signJwt({ sub: '7' }, secret, 60, Date.now() - 120_000), secret), { ok: false, reason: 'expired' });
    assert.deepEqual(verifyJwt('a.b', secret), { ok: false, reason: 'malformed' });
  });
});
