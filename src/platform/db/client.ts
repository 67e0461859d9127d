import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { PgTransaction } from 'drizzle-orm/pg-core';
import { createCacheInvalidation, type CacheInvalidation } from './invalidation.js';

export type Db = NodePgDatabase<Record<string, never>>;
// Drizzle's transaction type, narrowed to what repositories use.
export type Tx = PgTransaction<any, any, any>;
/** Repositories accept either the pool-backed db or an open transaction. */
export type DbOrTx = Db | Tx;

export interface Database {
  db: Db;
  pool: pg.Pool;
  url: string;
  /** Topics of the caches kept in front of this database (invalidation.ts). */
  invalidation: CacheInvalidation;
  close(): Promise<void>;
}

export function connectDatabase(url: string, opts: { max: number }): Database {
  const invalidation = createCacheInvalidation();
  const pool = new pg.Pool({ connectionString: url, max: opts.max, idleTimeoutMillis: 30_000, onConnect: invalidation.onConnect } as pg.PoolConfig);
  // An idle client error (server restart) must not crash the process; the pool replaces the client.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = drizzle(pool, { casing: 'snake_case' }) as Db;
  let closed = false;
  return {
    db,
    pool,
    url,
    invalidation: invalidation.bus,
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/** Postgres error codes we translate (unique and foreign-key violations); everything else bubbles. */
export function pgErrorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    if (typeof e === 'object' && e !== null && 'code' in e && typeof (e as { code: unknown }).code === 'string') {
      const code = (e as { code: string }).code;
      if (/^[0-9A-Z]{5}$/.test(code)) return code;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export const PG_UNIQUE_VIOLATION = '23505';
export const PG_FOREIGN_KEY_VIOLATION = '23503';

export function constraintName(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    const c = (e as { constraint?: unknown }).constraint;
    if (typeof c === 'string') return c;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
