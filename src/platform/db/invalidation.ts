/**
 * Cache invalidation through PostgreSQL (issue 5 point 11: every emitir used to pay two lookups,
 * the caller and the emission point, which cost more database CPU than the batch that stores the
 * receipts). Triggers on the tables behind a cache NOTIFY `cache_invalidation` with the cache's
 * topic (migration 0014), and every connection of the pool LISTENs:
 * - a commit made by THIS process is seen before its COMMIT returns: PostgreSQL delivers a
 *   session's own notifications ahead of ReadyForQuery, so a write followed by a read in the same
 *   process never reads the cache stale (no eviction calls sprinkled over the write paths);
 * - a commit made by another process (a second API instance, the worker) arrives within
 *   milliseconds on whichever pooled connection is idle;
 * - a NEW connection clears every cache: while the pool held no connection nothing was listening.
 * Caches still expire entries (loading-cache.ts) as the last safety net.
 */
import type pg from 'pg';

export const CACHE_CHANNEL = 'cache_invalidation';

export interface CacheInvalidation {
  /** `onInvalidate` runs synchronously when the topic's tables change, and when every cache must go (a new connection). */
  subscribe(topic: string, onInvalidate: () => void): void;
}

/** The bus, and the hook the pool runs on each new connection before handing it out (pg-pool `onConnect`). */
export function createCacheInvalidation(): { bus: CacheInvalidation; onConnect(client: pg.ClientBase): Promise<void> } {
  const subscribers = new Map<string, Array<() => void>>();
  const run = (fns: Array<() => void> | undefined) => fns?.forEach((fn) => fn());
  const invalidateAll = () => subscribers.forEach(run);

  return {
    bus: {
      subscribe(topic, onInvalidate) {
        const list = subscribers.get(topic) ?? [];
        list.push(onInvalidate);
        subscribers.set(topic, list);
      },
    },
    async onConnect(client) {
      client.on('notification', (msg) => {
        if (msg.channel === CACHE_CHANNEL && msg.payload) run(subscribers.get(msg.payload));
      });
      await client.query(`listen ${CACHE_CHANNEL}`);
      invalidateAll();
    },
  };
}
