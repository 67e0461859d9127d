/**
 * The service as a user runs it with `npm start` (issue 40 point 8): the script of package.json run
 * by the same node, on a fresh DATA_DIR (embedded PostgreSQL), the job worker in process, logs at the
 * default level into a file, and nothing of the bench's own environment that `npm start` would not
 * see (DATABASE_URL, NODE_ENV, LOG_LEVEL…). Also: CPU of its threads and of its own PostgreSQL.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './support.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface RunningService {
  pid: number; base: string; dataDir: string; logFile: string; dbUrl: string; postmasterPid: number;
  /** ms of CPU by thread (`main thread`, then others by name) and `postgres (this cluster)`. */
  cpu(): Map<string, number>;
  stop(): Promise<void>;
}

async function waitFor<T>(what: string, limitMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${limitMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function ticks(statPath: string): { comm: string; ppid: number; ms: number } | undefined {
  try {
    const s = fs.readFileSync(statPath, 'latin1');
    const close = s.lastIndexOf(')');
    const f = s.slice(close + 2).split(' ');
    return { comm: s.slice(s.indexOf('(') + 1, close), ppid: Number(f[1]), ms: (Number(f[11]) + Number(f[12])) * 10 };
  } catch { return undefined; }
}

export async function startService(opts: { prefix: string; env?: Record<string, string> }): Promise<RunningService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `${opts.prefix}-`));
  fs.chmodSync(dataDir, 0o755); // embedded PostgreSQL runs as `postgres` when we are root
  const [httpPort, pgPort] = [await freePort(), await freePort()];
  const env: Record<string, string | undefined> = { ...process.env, PORT: String(httpPort), EMBEDDED_PG_PORT: String(pgPort), DATA_DIR: dataDir, ...opts.env };
  for (const k of ['DATABASE_URL', 'NODE_ENV', 'LOG_LEVEL', 'WORKER_IN_PROCESS', 'DGI_MODE', 'DGI_SIMULATOR_URL', 'JWT_SECRET']) if (!opts.env?.[k]) delete env[k];
  // To compare node flags on the service alone (e.g. GC sizes), without changing the bench's own process.
  if (process.env.BENCH_SERVICE_NODE_OPTIONS) env.NODE_OPTIONS = process.env.BENCH_SERVICE_NODE_OPTIONS;
  // `npm start` is `exec node <flags> dist/main.js` after `prestart` builds dist/ when src/ changed: the same
  // build step, then the same node with the same flags, started directly to measure its own pid.
  const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts;
  const start = scripts.start.split(/\s+/).filter((w) => w !== 'exec');
  if (start[0] !== 'node' || !/^(dist\/main\.js|src\/main\.ts)$/.test(start.at(-1) ?? '')) throw new Error(`unexpected npm start script ${scripts.start}`);
  if (start.at(-1) === 'dist/main.js') execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  const logFile = path.join(dataDir, 'service.log');
  const logFd = fs.openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, start.slice(1), { cwd: ROOT, env, stdio: ['ignore', logFd, logFd] });
  fs.closeSync(logFd);
  let exited = false;
  child.once('exit', () => { exited = true; });
  const base = `http://127.0.0.1:${httpPort}`;
  try {
    await waitFor('service listening', 180_000, async () => { if (exited) throw new Error('exited'); return (await fetch(`${base}/healthz`)).ok || undefined; });
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}; service log:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
  }
  const postmasterPid = Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const pid = child.pid!;
  return {
    pid, base, dataDir, logFile, postmasterPid, dbUrl: `postgres://postgres:postgres@127.0.0.1:${pgPort}/cfe`,
    cpu() {
      const out = new Map<string, number>();
      const add = (k: string, ms: number) => out.set(k, (out.get(k) ?? 0) + ms);
      let tasks: string[] = [];
      try { tasks = fs.readdirSync(`/proc/${pid}/task`); } catch { /* not Linux */ }
      for (const t of tasks) {
        const r = ticks(`/proc/${pid}/task/${t}/stat`);
        if (r) add(t === String(pid) ? 'main thread' : r.comm, r.ms);
      }
      for (const p of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(p)) continue;
        const r = ticks(`/proc/${p}/stat`);
        if (r && (Number(p) === postmasterPid || r.ppid === postmasterPid)) add('postgres (this cluster)', r.ms);
      }
      return out;
    },
    async stop() {
      if (!exited) {
        const gone = new Promise((res) => child.once('exit', res));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await gone;
        clearTimeout(timer);
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** CPU ms by key between two `cpu()` readings. */
export function cpuDelta(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, ms] of after) if (ms - (before.get(k) ?? 0) > 0) out.set(k, ms - (before.get(k) ?? 0));
  return out;
}
