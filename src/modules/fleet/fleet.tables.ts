import { integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The processes of the service running on this database (issue 45): one row per API or worker
 * process, alive while its session advisory lock (FLEET_LOCK_CLASS, lock_key) is held. PostgreSQL
 * drops that lock the moment the process's connection ends (exit, kill -9, lost host), so a sweeper
 * knows a process is gone without waiting for a heartbeat to age. Not company data: no company id.
 */
export const serviceProcesses = pgTable('service_processes', {
  id: serial().primaryKey(),
  /** Second key of the session advisory lock the process holds while alive. */
  lockKey: integer().notNull().unique(),
  kind: text().$type<'api' | 'worker'>().notNull(),
  host: text().notNull(),
  pid: integer().notNull(),
  /** graphile-worker's pool id (jobs.locked_by) when the process runs jobs; its jobs are unlocked when it dies. */
  jobPoolId: text(),
  /** sha256 (first 16 hex) of the JWT secret and the master key: every live process must use the same. */
  jwtFingerprint: text().notNull(),
  masterKeyFingerprint: text().notNull(),
  startedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  heartbeatAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});
