import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Agent, type Dispatcher } from 'undici';
import type { ClaimedDelivery } from './deliveries.repository.js';
import { sendAttempt } from './delivery-sender.js';

/** A dispatcher that takes every request and never answers (what undici did once its slots leaked). */
class SilentAgent extends Agent {
  calls = 0;
  override dispatch(_opts: Dispatcher.DispatchOptions, _handler: Dispatcher.DispatchHandler): boolean {
    this.calls++;
    return true;
  }
}

function delivery(values: Partial<ClaimedDelivery> = {}): ClaimedDelivery {
  return {
    id: 1, eventId: 1, endpointId: 1, attempts: 0, idempotencyKey: '00000000-0000-4000-8000-000000000001', type: 'Cfe.Emitido',
    companyId: 1, data: { x: 1 }, eventCreatedAt: new Date(), url: 'http://127.0.0.1:9/hook', secret: null, headers: {}, maxAttempts: 8,
    ...values,
  };
}

describe('sendAttempt', () => {
  it('settles as a timeout after timeoutMs even when the dispatcher never answers', { timeout: 5000 }, async () => {
    const agent = new SilentAgent();
    const started = Date.now();
    const sent = await sendAttempt(agent, delivery(), 200);
    assert.equal(agent.calls, 1);
    assert.deepEqual(sent.result, { error: 'timeout', message: 'Tiempo de espera agotado (200 ms)' });
    assert.ok(Date.now() - started < 2000);
  });

  it('never hands undici a stored header it refuses, nor signs with the empty key of a bad whsec_ secret: a permanent config failure', { timeout: 5000 }, async () => {
    const agent = new SilentAgent();
    for (const d of [
      delivery({ headers: { 'X Bad': 'v' } }),
      delivery({ headers: { 'X-Ok': 'a\r\nInjected: 1' } }),
      delivery({ headers: { 'Transfer-Encoding': 'chunked' } }),
      delivery({ secret: 'whsec_!!!!????' }),
    ]) {
      const sent = await sendAttempt(agent, d, 200);
      assert.equal('error' in sent.result && sent.result.error, 'config', JSON.stringify(d.headers));
      assert.ok(sent.error);
    }
    assert.equal(agent.calls, 0);
  });
});
