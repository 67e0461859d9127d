/**
 * The fleet topology of issue 45 as child processes on one PostgreSQL: the DGI simulator
 * (`scripts/dgi-simulator.ts`), N API processes (`src/main.ts`, WORKER_IN_PROCESS=false) and M
 * workers (`src/worker.ts`), each with a DATA_DIR of its own so that nothing can lean on local
 * files. Used by the fleet integration test and `npm run fleet`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createTestCa, type TestCa } from '../../src/platform/crypto/pki.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

export interface FleetProcess {
  name: string;
  kind: 'api' | 'worker' | 'simulator';
  child: ChildProcess;
  url?: string;
  output(): string;
  exited: Promise<number | null>;
  alive(): boolean;
}

export interface Fleet {
  dir: string;
  ca: TestCa;
  env: Record<string, string>;
  simulator: FleetProcess;
  apis: FleetProcess[];
  workers: FleetProcess[];
  admin: { usuario: string; clave: string };
  startApi(port: number): Promise<FleetProcess>;
  startWorker(): Promise<FleetProcess>;
  stop(): Promise<void>;
}

/** `args` run under tsx, or as given when `plain` (the production build, as `npm start` runs it). */
function launch(name: string, kind: FleetProcess['kind'], args: string[], env: Record<string, string>, plain = false): FleetProcess {
  const child = spawn(process.execPath, plain ? args : ['--import', 'tsx', ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > 2_000_000) out = out.slice(-1_000_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let running = true;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => {
    running = false;
    resolve(code);
  }));
  return { name, kind, child, output: () => out, exited, alive: () => running };
}

async function waitForOutput(p: FleetProcess, re: RegExp, ms = 90_000): Promise<RegExpExecArray> {
  const end = Date.now() + ms;
  for (;;) {
    const m = re.exec(p.output());
    if (m) return m;
    if (!p.alive()) throw new Error(`${p.name} exited before ${re}:\n${p.output().slice(-3000)}`);
    if (Date.now() > end) throw new Error(`timeout waiting for ${re} from ${p.name}:\n${p.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts the simulator, `apis` API processes on `ports` and `workers` workers, all on `databaseUrl`.
 * `entry`: 'src' (tsx, the default: tests run the code under test) or 'dist' (the production build,
 * built first when stale, as `npm start` and `npm run worker` run it; `npm run fleet` measures that).
 */
export async function startFleet(opts: { databaseUrl: string; ports: number[]; simulatorPort: number; workers: number; env?: Record<string, string>; entry?: 'src' | 'dist' }): Promise<Fleet> {
  const dist = opts.entry === 'dist';
  if (dist) execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
  const entryArgs = (name: 'main' | 'worker') => (dist ? ['--enable-source-maps', `dist/${name}.js`] : ['--import', './src/platform/loader/register.mjs', `src/${name}.ts`]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-fleet-'));
  const ca = createTestCa();
  const caFile = path.join(dir, 'company-ca.pem');
  fs.writeFileSync(caFile, ca.certPem);
  const admin = { usuario: 'admin@fleet.uy', clave: 'fleet-password-1' };
  // One DGI for every process; it trusts the CA of the companies' certificates and checks no CAE range
  // (the ranges are written straight to the database by the set-up).
  const simulator = launch('simulator', 'simulator', ['scripts/dgi-simulator.ts', '--port', String(opts.simulatorPort), '--no-cae-check', '--trust-anchors', caFile, '--state', path.join(dir, 'dgi-state.jsonl')], {});
  const [, simUrl] = await waitForOutput(simulator, /DGI simulator listening on (http:\/\/\S+)/);
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATABASE_URL: opts.databaseUrl,
    WORKER_IN_PROCESS: 'false',
    DGI_SIMULATOR_URL: simUrl!,
    JWT_SECRET: randomBytes(32).toString('hex'),
    MASTER_KEY: randomBytes(32).toString('hex'),
    ADMIN_USER: admin.usuario,
    ADMIN_PASSWORD: admin.clave,
    CERT_TRUST_ANCHORS: caFile,
    LOG_LEVEL: 'info',
    AUTH_RATE_LIMIT_PER_MINUTE: '100000',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '200',
    DGI_RETRY_BASE_MS: '300',
    DGI_RETRY_MAX_MS: '3000',
    DGI_POLL_DELAY_CAP_MS: '500',
    DGI_WAKE_DEBOUNCE_MS: '200',
    DAILY_REPORT_HOUR: '0',
    DB_POOL_MAX: '6',
    EMISSION_SEAL_WORKERS: '1',
    RECEIVED_VERIFY_WORKERS: '0',
    ...opts.env,
  };
  let n = 0;
  const processEnv = () => ({ ...env, DATA_DIR: path.join(dir, `data-${++n}`) });
  const fleet: Fleet = {
    dir, ca, env, simulator, apis: [], workers: [], admin,
    async startApi(port) {
      const p = launch(`api-${port}`, 'api', entryArgs('main'), { ...processEnv(), PORT: String(port) }, dist);
      const [, url] = await waitForOutput(p, /API listening on (http:\/\/[\d.]+:\d+)/);
      p.url = url;
      fleet.apis.push(p);
      return p;
    },
    async startWorker() {
      const p = launch(`worker-${fleet.workers.length + 1}`, 'worker', entryArgs('worker'), processEnv(), dist);
      await waitForOutput(p, /Worker running\./);
      fleet.workers.push(p);
      return p;
    },
    async stop() {
      const all = [...fleet.apis, ...fleet.workers, simulator];
      for (const p of all) if (p.alive()) p.child.kill('SIGTERM');
      await Promise.race([Promise.all(all.map((p) => p.exited)), new Promise((r) => setTimeout(r, 15_000))]);
      for (const p of all) if (p.alive()) p.child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    // The first API migrates the database; the others (and the workers) then start together.
    await fleet.startApi(opts.ports[0]!);
    await Promise.all([...opts.ports.slice(1).map((p) => fleet.startApi(p)), ...Array.from({ length: opts.workers }, () => fleet.startWorker())]);
  } catch (err) {
    await fleet.stop();
    throw err;
  }
  return fleet;
}
