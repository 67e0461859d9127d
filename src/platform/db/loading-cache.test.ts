import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CacheInvalidation } from './invalidation.js';
import { createLoadingCache } from './loading-cache.js';

function fakeBus() {
  const subs = new Map<string, Array<() => void>>();
  const bus: CacheInvalidation & { live: boolean } = {
    live: true,
    subscribe: (topic, fn) => subs.set(topic, [...(subs.get(topic) ?? []), fn]),
  };
  return { bus, fire: (topic: string) => subs.get(topic)?.forEach((f) => f()) };
}

describe('loading cache', () => {
  it('loads once per key, sharing a load in flight between concurrent callers', async () => {
    const cache = createLoadingCache<number, string>({ ttlMs: 1000 });
    let loads = 0;
    const load = async () => `v${++loads}`;
    const [a, b] = await Promise.all([cache.get(1, load), cache.get(1, load)]);
    assert.equal(a, 'v1');
    assert.equal(b, 'v1');
    assert.equal(await cache.get(1, load), 'v1');
    assert.equal(await cache.get(2, load), 'v2');
    assert.equal(loads, 2);
  });

  it('does not keep a failed load', async () => {
    const cache = createLoadingCache<number, string>({ ttlMs: 1000 });
    await assert.rejects(cache.get(1, async () => Promise.reject(new Error('down'))), /down/);
    assert.equal(cache.size, 0);
    assert.equal(await cache.get(1, async () => 'ok'), 'ok');
  });

  it('expires entries after the TTL', async () => {
    let clock = 0;
    const cache = createLoadingCache<number, number>({ ttlMs: 100, now: () => clock });
    let loads = 0;
    await cache.get(1, async () => ++loads);
    clock = 99;
    assert.equal(await cache.get(1, async () => ++loads), 1);
    clock = 100;
    assert.equal(await cache.get(1, async () => ++loads), 2);
  });

  it('empties on its topics only, and a load that was in flight does not come back after the clear', async () => {
    const { bus, fire } = fakeBus();
    const cache = createLoadingCache<number, string>({ ttlMs: 1000, invalidation: { bus, topics: ['users', 'companies'] } });
    await cache.get(1, async () => 'old');
    fire('certificates');
    assert.equal(cache.size, 1);
    fire('companies');
    assert.equal(cache.size, 0);

    let release!: (v: string) => void;
    const slow = cache.get(2, () => new Promise<string>((r) => (release = r)));
    fire('users');
    release('read before the change');
    assert.equal(await slow, 'read before the change');
    assert.equal(await cache.get(2, async () => 'fresh'), 'fresh');
  });

  it('keeps nothing while the bus is not live (changes elsewhere would go unheard)', async () => {
    const { bus } = fakeBus();
    bus.live = false;
    const cache = createLoadingCache<number, string>({ ttlMs: 1000, invalidation: { bus, topics: ['users'] } });
    let loads = 0;
    const load = async () => `v${++loads}`;
    assert.equal(await cache.get(1, load), 'v1');
    assert.equal(await cache.get(1, load), 'v2');
    assert.equal(cache.size, 0);
    bus.live = true;
    assert.equal(await cache.get(1, load), 'v3');
    assert.equal(await cache.get(1, load), 'v3');
  });

  it('drops the oldest entry beyond maxEntries', async () => {
    const cache = createLoadingCache<number, number>({ ttlMs: 1000, maxEntries: 2 });
    for (const k of [1, 2, 3]) await cache.get(k, async () => k);
    assert.equal(cache.size, 2);
    let reloaded = false;
    await cache.get(1, async () => ((reloaded = true), 1));
    assert.ok(reloaded);
  });
});
