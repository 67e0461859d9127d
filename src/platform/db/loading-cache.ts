/**
 * A small read-through cache for hot lookups, invalidated by database topics (invalidation.ts).
 * Stores the promise, so concurrent misses for one key share one query; a failed load is not kept
 * (errors such as "not found" are answered fresh every time). Entries expire after `ttlMs`, and the
 * oldest go first beyond `maxEntries`. With a bus, nothing is kept while the bus is not `live`.
 */
import type { CacheInvalidation } from './invalidation.js';

export interface LoadingCache<K, V> {
  get(key: K, load: () => Promise<V>): Promise<V>;
  clear(): void;
  readonly size: number;
}

export function createLoadingCache<K, V>(opts: {
  ttlMs: number;
  maxEntries?: number;
  /** Topics whose changes empty the cache. */
  invalidation?: { bus: CacheInvalidation; topics: string[] };
  now?: () => number;
}): LoadingCache<K, V> {
  const maxEntries = opts.maxEntries ?? 10_000;
  const now = opts.now ?? Date.now;
  const entries = new Map<K, { value: Promise<V>; expires: number }>();
  for (const topic of opts.invalidation?.topics ?? []) opts.invalidation!.bus.subscribe(topic, () => entries.clear());

  return {
    get(key, load) {
      const hit = entries.get(key);
      if (hit && hit.expires > now()) return hit.value;
      if (hit) entries.delete(key);
      const value = load();
      // Nothing from other processes is being heard: keep nothing (invalidation.ts).
      if (opts.invalidation && !opts.invalidation.bus.live) return value;
      const entry = { value, expires: now() + opts.ttlMs };
      entries.set(key, entry);
      // Only this load's own entry goes: a clear() and a newer load may have replaced it meanwhile.
      value.catch(() => entries.get(key) === entry && entries.delete(key));
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as K);
      return value;
    },
    clear: () => entries.clear(),
    get size() {
      return entries.size;
    },
  };
}
