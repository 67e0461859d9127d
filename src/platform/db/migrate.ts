import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { runMigrations as runJobMigrations } from 'graphile-worker';
import type { Database } from './client.js';

export const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../migrations');

/**
 * Applies our drizzle-kit migrations (one history, `migrations/`) and the job queue's own schema.
 * A session-level advisory lock keeps two processes (API + worker) from migrating at once.
 */
export async function migrateDatabase(database: Database): Promise<void> {
  const client = await database.pool.connect();
  try {
    await client.query('select pg_advisory_lock(727001)');
    await migrate(database.db, { migrationsFolder });
    await runJobMigrations({ pgPool: database.pool });
  } finally {
    await client.query('select pg_advisory_unlock(727001)').catch(() => undefined);
    client.release();
  }
}
