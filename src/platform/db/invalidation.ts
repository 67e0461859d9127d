/**
 * Cache invalidation through PostgreSQL (issue 5 point 11: every emitir used to pay two lookups,
 * the caller and the emission point, which cost more database CPU than the batch that stores the
 * receipts). Triggers on the tables behind a cache (migrations 0014, 0018) do two things per
 * changing statement:
 * - NOTIFY `cache_invalidation` with the cache's topic, delivered at COMMIT (never for a rollback)
 *   to ONE listening connection per process, opened here: a commit made by another process (a
 *   second API instance, the worker, psql) empties this process's caches within milliseconds;
 * - RAISE NOTICE `cache_invalidation` with the topic, which PostgreSQL sends at once to the session
 *   that made the change. Each pooled connection remembers those topics and empties their caches
 *   when its transaction ends (ReadyForQuery with status idle), before the caller's query promise
 *   settles: a write followed by a read in the same process never reads the cache stale, with no
 *   eviction calls sprinkled over the write paths. A rolled-back change empties nothing.
 *
 * Why not LISTEN on every pooled connection (as until session 9): up to PostgreSQL 18 a NOTIFY on
 * any channel wakes every backend listening in the database, so each emission batch's outbox NOTIFY
 * woke all 20 pooled connections; that cost ~15 % of PostgreSQL's CPU per receipt (bench/emission).
 *
 * While the listening connection is down (not yet connected, or lost and reconnecting), nothing
 * from other processes would arrive, so `live` is false and caches keep nothing; every (re)connect
 * empties every cache after its LISTEN. Caches still expire entries (loading-cache.ts) as the last
 * safety net.
 */
import pg from 'pg';

export const CACHE_CHANNEL = 'cache_invalidation';

export interface CacheInvalidation {
  /** `onInvalidate` runs synchronously when the topic's tables change, and when every cache must go (a reconnect). */
  subscribe(topic: string, onInvalidate: () => void): void;
  /** True while changes from other processes are being heard: a cache may keep what it loads only then. */
  readonly live: boolean;
}

export interface CacheInvalidationHub {
  bus: CacheInvalidation;
  /** The pool's hook for each new connection before it is handed out (pg-pool `onConnect`). */
  onConnect(client: pg.ClientBase): void;
  close(): Promise<void>;
}

/** Internal to pg 8 (`Client.connection`), typed here for the protocol messages read from it. */
interface WireConnection {
  on(event: 'readyForQuery', fn: (msg: { status?: string }) => void): void;
  on(event: 'commandComplete', fn: (msg: { text?: string }) => void): void;
  on(event: 'errorMessage', fn: () => void): void;
}

const RECONNECT_MS = [250, 1000, 5000];

export function createCacheInvalidation(url: string): CacheInvalidationHub {
  const subscribers = new Map<string, Array<() => void>>();
  const invalidate = (topic: string) => subscribers.get(topic)?.forEach((fn) => fn());
  const invalidateAll = () => subscribers.forEach((fns) => fns.forEach((fn) => fn()));
  let live = false;
  let listener: pg.Client | undefined;
  let started = false;
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  async function listen(): Promise<void> {
    const client = new pg.Client({ connectionString: url });
    listener = client;
    const lost = () => {
      if (listener !== client) return;
      live = false;
      listener = undefined;
      client.end().catch(() => undefined);
      if (!closed) retry = setTimeout(() => void listen(), RECONNECT_MS[Math.min(failures++, RECONNECT_MS.length - 1)]).unref();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (msg) => {
      if (msg.channel === CACHE_CHANNEL && msg.payload) invalidate(msg.payload);
    });
    try {
      await client.connect();
      await client.query(`listen ${CACHE_CHANNEL}`);
    } catch {
      lost();
      return;
    }
    if (listener !== client) return;
    if (closed) {
      await client.end().catch(() => undefined);
      return;
    }
    failures = 0;
    // Anything may have changed while nobody was listening.
    invalidateAll();
    live = true;
  }

  return {
    bus: {
      subscribe(topic, onInvalidate) {
        const list = subscribers.get(topic) ?? [];
        list.push(onInvalidate);
        subscribers.set(topic, list);
        // Only a process that caches something needs the listening connection (not a migrator).
        if (!started && !closed) {
          started = true;
          void listen();
        }
      },
      get live() {
        return live;
      },
    },
    onConnect(client) {
      const pending = new Set<string>();
      let lastTag = '';
      let failed = false;
      client.on('notice', (msg) => {
        if (msg.message === CACHE_CHANNEL && msg.detail) pending.add(msg.detail);
      });
      const wire = (client as unknown as { connection: WireConnection }).connection;
      wire.on('commandComplete', (msg) => (lastTag = msg.text ?? ''));
      wire.on('errorMessage', () => (failed = true));
      wire.on('readyForQuery', (msg) => {
        const rolledBack = failed || lastTag === 'ROLLBACK'; // an aborted block's COMMIT also answers ROLLBACK
        failed = false;
        if (msg.status !== 'I' || pending.size === 0) return;
        if (!rolledBack) for (const topic of pending) invalidate(topic);
        pending.clear();
      });
    },
    async close() {
      closed = true;
      live = false;
      clearTimeout(retry);
      const client = listener;
      listener = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}
