import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { generateSecret, sign, verify } from './signature.js';

describe('Standard Webhooks signature', () => {
  it('matches an independent HMAC-SHA256 over id.timestamp.body with the base64-decoded whsec_ key', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"id":"evt_1","type":"Cfe.Emitido"}';
    const expected = createHmac('sha256', Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64')).update(`evt_1.1614265330.${body}`).digest('base64');
    assert.equal(sign(secret, 'evt_1', 1614265330, body), `v1,${expected}`);
  });
  it('the published Standard Webhooks test vector', () => {
    // standard-webhooks/standard-webhooks reference libraries' test vector.
    const sig = sign('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    assert.equal(sig, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
  it('verify accepts the signature, rejects tampering and old timestamps, and accepts one of several', () => {
    const secret = generateSecret();
    const ts = 1_800_000_000;
    const signature = sign(secret, 'evt_9', ts, 'x');
    assert.ok(verify(secret, { id: 'evt_9', timestamp: String(ts), signature }, 'x', ts));
    assert.ok(verify(secret, { id: 'evt_9', timestamp: String(ts), signature: `v1,AAAA ${signature}` }, 'x', ts));
    assert.ok(!verify(secret, { id: 'evt_9', timestamp: String(ts), signature }, 'y', ts));
    assert.ok(!verify(secret, { id: 'evt_9', timestamp: String(ts), signature }, 'x', ts + 301));
    assert.ok(!verify('other', { id: 'evt_9', timestamp: String(ts), signature }, 'x', ts));
  });
});
