import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createJwtVerifier, signJwt, verifyJwt } from './jwt.js';

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

  describe('remembering verifier', () => {
    it('answers a verified token again from memory until it expires, then says expired', () => {
      const verify = createJwtVerifier(secret);
      const now = Date.now();
      const tok = signJwt({ sub: '7', tv: 1 }, secret, 60, now);
      const first = verify(tok, now);
      assert.ok(first.ok);
      const again = verify(tok, now + 1000);
      assert.ok(again.ok && first.ok && again.claims === first.claims, 'the same claims object');
      assert.ok(Object.isFrozen(first.ok && first.claims));
      assert.deepEqual(verify(tok, now + 61_000), { ok: false, reason: 'expired' });
      assert.deepEqual(verify(tok, now + 1000), { ok: true, claims: verifyJwt(tok, secret, now + 1000).ok ? (verifyJwt(tok, secret, now + 1000) as { claims: unknown }).claims : null });
    });

    it('never accepts what verifyJwt refuses, however close to a remembered token', () => {
      const verify = createJwtVerifier(secret);
      const tok = signJwt({ sub: '7', tv: 0 }, secret, 60);
      assert.ok(verify(tok).ok);
      const [h, , s] = tok.split('.');
      const forged = `${h}.${Buffer.from(JSON.stringify({ sub: '1', tv: 0, exp: 9e9 })).toString('base64url')}.${s}`;
      assert.deepEqual(verify(forged), { ok: false, reason: 'signature' });
      assert.deepEqual(verify(`${tok}x`), { ok: false, reason: 'signature' });
      assert.deepEqual(createJwtVerifier('x'.repeat(40))(tok), { ok: false, reason: 'signature' });
    });

    it('keeps at most maxEntries tokens, dropping the oldest', () => {
      const verify = createJwtVerifier(secret, 2);
      const now = Date.now();
      const [a, b, c] = ['1', '2', '3'].map((sub) => signJwt({ sub }, secret, 60, now));
      const claimsA = verify(a, now);
      verify(b, now);
      verify(c, now);
      const again = verify(a, now);
      assert.ok(again.ok && claimsA.ok && again.claims !== claimsA.claims, 'a was dropped and verified anew');
    });
  });
});
