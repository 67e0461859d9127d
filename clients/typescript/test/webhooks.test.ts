/** The client's webhook check accepts exactly what the service signs (src/modules/webhooks/signature.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateSecret, sign } from '../../../src/modules/webhooks/signature.js';
import { verifyWebhook } from '../src/webhooks.js';

describe('verifyWebhook', () => {
  const body = '{"id":"evt_1","tipo":"Cfe.Aceptado"}';
  const now = 1_790_000_000;
  for (const secret of [generateSecret(), 'un-secreto-de-texto']) {
    it(`accepts the service's signature and nothing else (${secret.startsWith('whsec_') ? 'whsec_' : 'plain'} secret)`, () => {
      const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(now), 'webhook-signature': sign(secret, 'msg_1', now, body) };
      assert.equal(verifyWebhook(secret, headers, body, { nowSeconds: now }), true);
      assert.equal(verifyWebhook(secret, { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` }, body, { nowSeconds: now }), true, 'one of several signatures (rotation)');
      assert.equal(verifyWebhook(secret, headers, body.replace('evt_1', 'evt_2'), { nowSeconds: now }), false, 'another body');
      assert.equal(verifyWebhook(secret, { ...headers, 'webhook-id': 'msg_2' }, body, { nowSeconds: now }), false, 'another id');
      assert.equal(verifyWebhook(secret, headers, body, { nowSeconds: now + 301 }), false, 'a replay after 5 minutes');
      assert.equal(verifyWebhook('otro', headers, body, { nowSeconds: now }), false, 'another secret');
      assert.equal(verifyWebhook(secret, { ...headers, 'webhook-signature': undefined }, body, { nowSeconds: now }), false);
    });
  }
});
