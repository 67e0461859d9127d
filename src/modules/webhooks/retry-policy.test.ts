import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyResponse, decide, DEFAULT_MAX_ATTEMPTS, nextAttemptAt, RETRY_DELAYS_SECONDS } from './retry-policy.js';

describe('classifyResponse (spec 3 table)', () => {
  it('any 2xx is delivered', () => {
    for (const s of [200, 201, 202, 204, 299]) assert.equal(classifyResponse({ statusCode: s }), 'delivered');
  });
  it('429 and 5xx are retried', () => {
    for (const s of [429, 500, 502, 503, 504, 599]) assert.equal(classifyResponse({ statusCode: s }), 'retry');
  });
  it('other 4xx fail permanently', () => {
    for (const s of [400, 401, 403, 404, 409, 410, 422, 499]) assert.equal(classifyResponse({ statusCode: s }), 'failed');
  });
  it('timeouts and network errors are retried', () => {
    assert.equal(classifyResponse({ error: 'timeout' }), 'retry');
    assert.equal(classifyResponse({ error: 'network' }), 'retry');
  });
  it('an endpoint configuration that cannot be sent fails without retry', () => {
    assert.equal(classifyResponse({ error: 'config' }), 'failed');
    assert.equal(decide({ error: 'config' }, 1, 8, new Date()).status, 'fallido');
  });
  it('redirects are not followed and fail', () => {
    assert.equal(classifyResponse({ statusCode: 301 }), 'failed');
  });
});

describe('retry schedule (spec 6)', () => {
  it('is exactly 5, 60, 120, 300, 600, 1800, 3600, 7200, 21600 s', () => {
    assert.deepEqual([...RETRY_DELAYS_SECONDS], [5, 60, 120, 300, 600, 1800, 3600, 7200, 21600]);
  });
  it('the k-th retry waits the k-th delay after the k-th failure', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    RETRY_DELAYS_SECONDS.forEach((d, i) => assert.equal(nextAttemptAt(i + 1, now).getTime() - now.getTime(), d * 1000));
  });
  it('8 attempts by default: the 8th failure exhausts, the 7th schedules the 7th retry (3600 s)', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    assert.equal(DEFAULT_MAX_ATTEMPTS, 8);
    const seventh = decide({ statusCode: 503 }, 7, 8, now);
    assert.equal(seventh.status, 'pendiente');
    assert.equal(seventh.status === 'pendiente' && seventh.nextAttemptAt.getTime() - now.getTime(), 3600_000);
    assert.deepEqual(decide({ statusCode: 503 }, 8, 8, now), { status: 'agotado', outcome: 'agotado' });
    assert.deepEqual(decide({ error: 'timeout' }, 3, 3, now), { status: 'agotado', outcome: 'agotado' });
  });
  it('a permanent failure or a success ends the delivery on any attempt', () => {
    const now = new Date();
    assert.equal(decide({ statusCode: 410 }, 1, 8, now).status, 'fallido');
    assert.equal(decide({ statusCode: 204 }, 8, 8, now).status, 'entregado');
  });
});
