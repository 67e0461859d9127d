/**
 * Several API processes and workers on one PostgreSQL (issue 45). Each process joins the fleet at
 * startup: it takes a session advisory lock on a connection of its own and records itself in
 * `service_processes`. PostgreSQL releases that lock as soon as the connection ends, so a process
 * killed with -9 is seen as gone at the next sweep (every SWEEP_MS in every process that runs
 * jobs), not after a timeout: the sweep deletes its row and hands the graphile-worker jobs it had
 * locked back to the queue (graphile-worker alone would leave them locked for 4 hours).
 *
 * Joining also refuses a process whose JWT secret or master key differs from a live process's:
 * tokens signed by one would be refused by the other, and private keys sealed by one unreadable by
 * the other (each generates its own under its DATA_DIR when JWT_SECRET / MASTER_KEY are unset).
 *
 * The lock needs a session of its own: behind a transaction-pooling proxy (PgBouncer) DATABASE_URL
 * must reach PostgreSQL directly or through session pooling.
 */
import os from 'node:os';
import { createHash, randomInt } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../../platform/logger.js';

/** First key of every fleet liveness lock (the second is the process's lock_key). */
export const FLEET_LOCK_CLASS = 727002;
/** Serialises the fingerprint check and the insert of processes starting together. */
const JOIN_LOCK = 727003;
export const SWEEP_MS = 5000;
const HEARTBEAT_MS = 10_000;

export class FleetJoinError extends Error {}

export const fingerprint = (secret: string | Buffer) => createHash('sha256').update(secret).digest('hex').slice(0, 16);

/** Rows of processes whose liveness lock nobody holds in this database. */
const DEAD = `
  not exists (select 1 from pg_locks l
    where l.locktype = 'advisory' and l.database = (select oid from pg_database where datname = current_database())
      and l.classid = ${FLEET_LOCK_CLASS} and l.objid = p.lock_key::oid and l.objsubid = 2 and l.granted)`;

/** Deletes the rows of dead processes and unlocks the jobs they held; returns what it took over. */
export async function sweepDeadProcesses(pool: pg.Pool): Promise<Array<{ id: number; kind: string; pid: number; jobPoolId: string | null }>> {
  const res = await pool.query(`delete from service_processes p where ${DEAD} returning id, kind, pid, job_pool_id as "jobPoolId"`);
  const pools = res.rows.map((r) => r.jobPoolId).filter(Boolean);
  if (pools.length) await pool.query('select graphile_worker.force_unlock_workers($1::text[])', [pools]);
  return res.rows;
}

export interface FleetMember {
  id: number;
  /** Records the job runner's graphile-worker pool id and starts sweeping for dead processes. */
  attachJobPool(poolId: string, pool: pg.Pool): Promise<void>;
  leave(): Promise<void>;
}

export async function joinFleet(opts: {
  url: string;
  kind: 'api' | 'worker';
  jwtSecret: string;
  masterKey: Buffer;
  logger: Logger;
  /** The liveness connection was lost: other processes now treat this one as dead. */
  onLost: (err: Error) => void;
}): Promise<FleetMember> {
  const { logger } = opts;
  const client = new pg.Client({ connectionString: opts.url, application_name: `cfe-${opts.kind}-fleet` });
  await client.connect();
  let leaving = false;
  client.on('error', (err) => {
    if (!leaving) opts.onLost(err);
  });
  const jwtFp = fingerprint(opts.jwtSecret);
  const keyFp = fingerprint(opts.masterKey);
  let lockKey = 0;
  let id = 0;
  try {
    for (;;) {
      lockKey = randomInt(1, 2 ** 31 - 1);
      const got = await client.query('select pg_try_advisory_lock($1::int, $2::int) as ok', [FLEET_LOCK_CLASS, lockKey]);
      if (got.rows[0].ok) break;
    }
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock($1::int)', [JOIN_LOCK]);
    await client.query(`delete from service_processes p where ${DEAD}`);
    const others = await client.query<{ kind: string; host: string; pid: number; jwt: string; key: string }>(
      'select kind, host, pid, jwt_fingerprint as jwt, master_key_fingerprint as key from service_processes where jwt_fingerprint <> $1 or master_key_fingerprint <> $2',
      [jwtFp, keyFp],
    );
    if (others.rows.length) {
      const o = others.rows[0]!;
      const which = [o.jwt !== jwtFp && 'JWT_SECRET', o.key !== keyFp && 'MASTER_KEY'].filter(Boolean).join(' and ');
      throw new FleetJoinError(
        `Another process of the service on this database (${o.kind} pid ${o.pid} on ${o.host}) uses a different ${which}: ` +
          `every API and worker process must be started with the same ${which} (without them each process generates its own under its DATA_DIR).`,
      );
    }
    const ins = await client.query<{ id: number }>(
      'insert into service_processes (lock_key, kind, host, pid, jwt_fingerprint, master_key_fingerprint) values ($1, $2, $3, $4, $5, $6) returning id',
      [lockKey, opts.kind, os.hostname(), process.pid, jwtFp, keyFp],
    );
    id = ins.rows[0]!.id;
    await client.query('commit');
  } catch (err) {
    leaving = true;
    await client.end().catch(() => undefined);
    throw err;
  }

  const heartbeat = setInterval(() => void client.query('update service_processes set heartbeat_at = now() where id = $1', [id]).catch(() => undefined), HEARTBEAT_MS);
  heartbeat.unref();
  let sweeper: NodeJS.Timeout | undefined;
  logger.info({ fleetId: id, kind: opts.kind }, 'joined the fleet');

  return {
    id,
    async attachJobPool(poolId, pool) {
      await client.query('update service_processes set job_pool_id = $2 where id = $1', [id, poolId]);
      const sweep = async () => {
        try {
          for (const dead of await sweepDeadProcesses(pool)) logger.warn({ dead }, 'process of the fleet gone: its jobs are back in the queue');
        } catch (err) {
          logger.warn({ err: (err as Error).message }, 'fleet sweep failed');
        }
      };
      await sweep();
      sweeper = setInterval(() => void sweep(), SWEEP_MS);
      sweeper.unref();
    },
    async leave() {
      leaving = true;
      clearInterval(heartbeat);
      if (sweeper) clearInterval(sweeper);
      await client.query('delete from service_processes where id = $1', [id]).catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}
