/**
 * Lifecycle bench (issue 29 point 3): the service as `npm start` runs it (embedded PostgreSQL, the job
 * worker in process, the in-process DGI simulator answering, logs at the default level into a file),
 * started as a child process on a fresh DATA_DIR, e-Tickets issued over HTTP (bench/load.ts) at 32
 * connections for 60 s after a warm-up of 5 s at the same concurrency (reported on its own line, not in the
 * figures: the first second of a fresh service compiles its JavaScript and libxml2's WebAssembly and has
 * a p99 of 450-600 ms), then nothing until every receipt has DGI's verdict. Prints receipts/s issued,
 * receipts/s accepted by DGI during the load, the backlog when the load stops and the time to drain
 * it, p50/p99, the CPU of the service's threads and of its PostgreSQL per receipt, and the service's
 * resident memory (GET /readyz) right after start, idle before the load, at the end of the load, after the drain
 * and once settled (V8's memory reducer shrinks the main heap 10-50 s after the load; up to
 * BENCH_LIFECYCLE_SETTLE_SECONDS, 60), with the RSS by kind from /proc/<pid>/smaps (bench/memory.ts).
 * Standalone: `npx tsx bench/lifecycle.ts [--seconds 10] [--warm-up 5] [--connections 32] [--cpu-prof] [--heap-snapshot] [--thread-memory] [--pg-statements]`;
 * in `npm run bench` with BENCH_LIFECYCLE_SECONDS (60) and BENCH_LIFECYCLE_WARMUP_SECONDS (30: in its first ~40 s under
 * load V8 compiles ~2,300 functions of the three isolates on its one platform thread, 81 % of that thread and ~8 % of
 * the machine in `perf`, then a few a second; the figures are the running service's, the warm-up's are printed
 * beside them). `--cpu-prof` writes the service's V8 CPU profiles
 * (main thread and each worker thread) into bench/profiles/ when it exits; `--heap-snapshot` writes one
 * of the main thread after the drain there, and prints the heap it keeps alive (after a full GC; writing the
 * snapshot itself grows the malloc heap by ~250 MB, so the RSS after it is not the service's);
 * BENCH_LIFECYCLE_HOLD_SECONDS then keeps the service up that long (to read /proc/<pid>/smaps).
 * `--thread-memory` imports bench/thread-memory.mjs into every thread of the service and prints
 * each thread's V8 heap and WebAssembly memory with the RSS figures. `--pg-statements` loads
 * pg_stat_statements into the embedded PostgreSQL (EMBEDDED_PG_SETTINGS) and prints the statements
 * that took its time during the load: calls, time, rows, blocks dirtied and WAL bytes (issue 45).
 * BENCH_LIFECYCLE_NODE_FLAGS adds V8/node flags to the service's command line (e.g. `--trace-deopt`, which
 * NODE_OPTIONS refuses); its output goes to the service log, removed with the data directory at the end.
 * The service runs with METRICS_TOKEN set, as a monitored deployment would, so the bench can read the
 * event loop's delay during the load from GET /metrics (metrics on also adds its histogram to every request).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { startDgiSimulator } from '../src/modules/dgi/dgi.simulator.js';
import { branches, companies, emissionPoints } from '../src/modules/companies/companies.tables.js';
import { caeRanges } from '../src/modules/cae/cae.tables.js';
import { connectDatabase, type Database } from '../src/platform/db/client.js';
import { rsaBaseline, rsaBaselineWithoutIfma } from './baseline.js';
import { machineReport, machineSnapshot } from './cpu.js';
import { collectEverywhere, formatKinds, formatThreads, rssByKind, threadHeaps } from './memory.js';
import { openLoad, type LoadGenerator } from './load.js';
import { eTicketBody, freePort } from './support.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUT = '219999830019';
const NAME = 'Bench Ciclo S.A.';
const ADMIN = { usuario: 'admin@localhost.localdomain', clave: 'bench-lifecycle-1' };
const CASHIER = { usuario: 'caja@bench.uy', clave: 'bench-password-2' };
/** States in which a receipt still waits for DGI's verdict. */
const WAITING = ['firmado', 'en_cola_dgi', 'sobre_recibido'];

export interface LifecycleOptions { seconds?: number; warmUpSeconds?: number; connections?: number; drainLimitSeconds?: number; settleSeconds?: number; cpuProf?: boolean; heapSnapshot?: boolean; threadMemory?: boolean; pgStatements?: boolean; quiet?: boolean; entry?: 'src' | 'dist' }

interface Memory { rssMb: number; heapUsedMb: number; heapTotalMb: number; externalMb: number; arrayBuffersMb: number }

/** ms of CPU of one process's threads (grouped by thread name) from /proc; empty elsewhere. */
function threadTicks(pid: number, into: Map<string, number>, prefix = '') {
  let tasks: string[] = [];
  try { tasks = fs.readdirSync(`/proc/${pid}/task`); } catch { return; }
  for (const t of tasks) {
    try {
      const s = fs.readFileSync(`/proc/${pid}/task/${t}/stat`, 'latin1');
      const close = s.lastIndexOf(')');
      // Our worker threads name themselves (platform/workers/boot.mjs); the ones still called `node` are V8's and libuv's.
      const name = s.slice(s.indexOf('(') + 1, close);
      const comm = t === String(pid) ? 'main thread' : name === 'node' ? 'V8 and libuv threads' : `${name} thread`;
      const f = s.slice(close + 2).split(' ');
      const key = prefix + comm;
      into.set(key, (into.get(key) ?? 0) + (Number(f[11]) + Number(f[12])) * 10);
    } catch { /* thread ended */ }
  }
}

/** CPU of the service process by thread name, and of its own PostgreSQL (postmaster + children, never other clusters on the machine). */
function serviceCpu(servicePid: number, postmasterPid: number): Map<string, number> {
  const out = new Map<string, number>();
  threadTicks(servicePid, out, 'service ');
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const s = fs.readFileSync(`/proc/${p}/stat`, 'latin1');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      if (Number(p) !== postmasterPid && Number(f[1]) !== postmasterPid) continue;
      out.set('postgres (this cluster)', (out.get('postgres (this cluster)') ?? 0) + (Number(f[11]) + Number(f[12])) * 10);
    } catch { /* process ended */ }
  }
  return out;
}

/** The statements that took the embedded PostgreSQL's time since the reset, per receipt issued. */
async function sayStatements(db: Database['db'], receipts: number, say: (line: string) => void) {
  const rows = (await db.execute(sql`
    select calls::int, total_exec_time as ms, rows::int, shared_blks_dirtied::int as dirtied, wal_bytes::bigint as wal,
           left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 110) as query
    from pg_stat_statements order by total_exec_time desc limit 12`)).rows as Array<{ calls: number; ms: number; rows: number; dirtied: number; wal: string; query: string }>;
  say(`PostgreSQL statements during the load (pg_stat_statements), per receipt: execution ms, blocks dirtied, WAL bytes; calls, rows:`);
  for (const s of rows) {
    say(`  ${(s.ms / receipts).toFixed(4)} ms  ${(s.dirtied / receipts).toFixed(2)} blk  ${Math.round(Number(s.wal) / receipts)} B  ${s.calls} calls ${s.rows} rows  ${s.query}`);
  }
}

const METRICS_TOKEN = 'lifecycle-bench-metrics-token';

/** The event loop's delay since the previous scrape (prom-client resets its histogram at each), from GET /metrics. */
async function eventLoopDelay(base: string): Promise<string> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const at = (q: string) => Math.round(Number(new RegExp(`^nodejs_eventloop_lag_${q}_seconds(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1]) * 1000);
  return `p50 ${at('p50')} ms, p90 ${at('p90')} ms, p99 ${at('p99')} ms, max ${at('max')} ms`;
}

async function waitFor<T>(what: string, limitMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`lifecycle bench: ${what} not reached within ${limitMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function runLifecycleBench(opts: LifecycleOptions = {}) {
  const seconds = opts.seconds ?? Number(process.env.BENCH_LIFECYCLE_SECONDS ?? 60);
  const connections = opts.connections ?? Number(process.env.BENCH_LIFECYCLE_CONNECTIONS ?? 32);
  const warmUpSeconds = opts.warmUpSeconds ?? Number(process.env.BENCH_LIFECYCLE_WARMUP_SECONDS ?? 30);
  const drainLimitSeconds = opts.drainLimitSeconds ?? 180;
  const settleSeconds = opts.settleSeconds ?? Number(process.env.BENCH_LIFECYCLE_SETTLE_SECONDS ?? 60);
  const say = (line: string) => { if (!opts.quiet) console.log(`lifecycle: ${line}`); };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-lifecycle-'));
  fs.chmodSync(dataDir, 0o755); // embedded PostgreSQL runs as `postgres` when we are root
  const [httpPort, pgPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${httpPort}`;

  // The DGI this service will meet: its state file written before the service starts (as after
  // `npm run demo`), holding the company certificate's CA and a CAE for e-Tickets serie A.
  const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10); // Uruguay (UTC−3)
  const sim = await startDgiSimulator({ statePath: path.join(dataDir, 'dgi-simulator', 'state.jsonl') });
  const cert = sim.control.issueCompanyCertificate(RUT, NAME);
  const { NA } = sim.control.issueCae({ rucEmisor: RUT, tipoCfe: 101, serie: 'A', desde: 1, hasta: 9_999_999, fechaVencimiento: `${Number(today.slice(0, 4)) + 1}-12-31` });
  await sim.close();

  // `npm start` runs `node <flags> <entry>`: the same node with the flags package.json gives is started
  // directly here, to measure and signal its own pid. `entry` picks the production build (dist/main.js,
  // built first when stale) or TypeScript through tsx (src/main.ts) whichever npm start uses, to
  // compare the two in one run (issue 44 point 6).
  const env: Record<string, string | undefined> = { ...process.env, PORT: String(httpPort), EMBEDDED_PG_PORT: String(pgPort), DATA_DIR: dataDir, ADMIN_USER: ADMIN.usuario, ADMIN_PASSWORD: ADMIN.clave, AUTH_RATE_LIMIT_PER_MINUTE: '100000', METRICS_TOKEN: METRICS_TOKEN };
  const threadMemoryDir = path.join(dataDir, 'thread-memory');
  if (opts.pgStatements) env.EMBEDDED_PG_SETTINGS = 'shared_preload_libraries=pg_stat_statements';
  if (opts.threadMemory) {
    fs.mkdirSync(threadMemoryDir);
    env.BENCH_THREAD_MEMORY_DIR = threadMemoryDir;
  }
  for (const k of ['DATABASE_URL', 'NODE_ENV', 'LOG_LEVEL', 'WORKER_IN_PROCESS', 'DGI_MODE', 'DGI_SIMULATOR_URL', 'JWT_SECRET']) delete env[k];
  const profileDir = path.join(ROOT, 'bench', 'profiles');
  const TSX_ENTRY = ['--import', 'tsx', '--v8-pool-size=1', '--import', './src/platform/loader/register.mjs', 'src/main.ts'];
  const DIST_ENTRY = ['--enable-source-maps', '--v8-pool-size=1', 'dist/main.js'];
  const script = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(/\s+/).filter((t) => t !== 'exec');
  if (script[0] !== 'node') throw new Error(`lifecycle bench: unexpected npm start script ${script.join(' ')}`);
  const scriptEntry = script.at(-1) === 'dist/main.js' ? 'dist' : 'src';
  const entry = opts.entry ?? scriptEntry;
  const entryArgs = entry === scriptEntry ? script.slice(1) : entry === 'dist' ? DIST_ENTRY : TSX_ENTRY;
  if (entry === 'dist') execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  const nodeArgs = [...entryArgs.slice(0, -1), ...(opts.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...(opts.heapSnapshot ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${profileDir}`] : []), ...(opts.threadMemory ? ['--import', './bench/thread-memory.mjs'] : []), ...(process.env.BENCH_LIFECYCLE_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? []), entryArgs.at(-1)!];
  say(`service: node ${nodeArgs.join(' ')}`);
  const logFile = path.join(dataDir, 'service.log');
  const logFd = fs.openSync(logFile, 'a');
  const service: ChildProcess = spawn(process.execPath, nodeArgs, { cwd: ROOT, env, stdio: ['ignore', logFd, logFd] });
  fs.closeSync(logFd);
  let exited = false;
  service.once('exit', () => { exited = true; });
  let database: Database | undefined;
  let load: LoadGenerator | undefined;
  // GET /readyz's figures; from /proc for a service that does not report them (comparing with an older commit).
  const memory = async (): Promise<Memory> => {
    const reported = (await (await fetch(`${base}/readyz`)).json()).memoria as Memory | undefined;
    if (reported) return reported;
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${service.pid}/status`, 'utf8'))?.[1] ?? 0);
    return { rssMb: Math.round(kb / 102.4) / 10, heapUsedMb: NaN, heapTotalMb: NaN, externalMb: NaN, arrayBuffersMb: NaN };
  };
  const sayMemory = async (when: string): Promise<Memory> => {
    const m = await memory();
    say(`memory ${when}: RSS ${m.rssMb} MB (${formatKinds(rssByKind(service.pid!))}), main heap ${m.heapUsedMb}/${m.heapTotalMb} MB`);
    if (opts.threadMemory) {
      await new Promise((r) => setTimeout(r, 1100)); // every thread wrote its figures since
      say(`  V8 heap used/committed and wasm by thread (MB): ${formatThreads(threadHeaps(threadMemoryDir, service.pid!))}`);
    }
    return m;
  };
  try {
    const started = Date.now();
    await waitFor('service listening', 120_000, async () => { if (exited) throw new Error('exited'); return (await fetch(`${base}/healthz`)).ok || undefined; })
      .catch((err) => { throw new Error(`${err.message}; service log:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`); });
    say(`service up in ${((Date.now() - started) / 1000).toFixed(1)} s (pid ${service.pid}, DATA_DIR ${dataDir})`);
    const startedMemory = await sayMemory('right after start (no request yet)');
    const postmasterPid = Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    database = connectDatabase(`postgres://postgres:postgres@127.0.0.1:${pgPort}/cfe`, { max: 2 });
    const db = database.db;

    const call = async (token: string | undefined, method: string, url: string, body?: unknown) => {
      const r = await fetch(base + url, { method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      return { status: r.status, body: await r.json().catch(() => null) };
    };
    const login = async (who: { usuario: string; clave: string }) => (await call(undefined, 'POST', '/api/auth/login', who)).body.accessToken as string;
    const admin = await login(ADMIN);
    const [company] = await db.insert(companies).values({ rut: RUT, razonSocial: NAME }).returning();
    const [branch] = await db.insert(branches).values({ companyId: company.id, codComercio: 'C1', nombre: 'Casa Central', direccion: 'Av. 18 de Julio 1234', ciudad: 'Montevideo', departamento: 'Montevideo', codigoCasaDgi: 2 }).returning();
    await db.insert(emissionPoints).values({ companyId: company.id, branchId: branch.id, codTerminal: 'T1' });
    await db.insert(caeRanges).values({ companyId: company.id, tipoCfe: 101, serie: 'A', dNro: 1, hNro: 9_999_999, nextNumber: 1, caeNumber: NA, fa: today, fvd: `${Number(today.slice(0, 4)) + 1}-12-31`, origin: 'manual' });
    const imported = await call(admin, 'POST', '/api/v1/empresa/importarCertificado', { idEmpresa: company.id, clave: cert.password, archivo: cert.p12.toString('base64') });
    if (imported.status !== 201) throw new Error(`certificate import: ${imported.status} ${JSON.stringify(imported.body)}`);
    const created = await call(admin, 'POST', '/api/v1/usuario/crear', { ...CASHIER, nombre: 'Caja', empresas: [{ idEmpresa: company.id, rol: 'emisor' }] });
    if (created.status !== 201) throw new Error(`bench user: ${created.status} ${JSON.stringify(created.body)}`);
    const cashier = await login(CASHIER);

    await new Promise((r) => setTimeout(r, 2000)); // idle: whatever startup left behind settles
    const idle = await sayMemory('idle after the setup (simulator thread started)');

    const body = eTicketBody(company.id);
    const counts = async () => {
      const rows = (await db.execute(sql`select estado, count(*)::int as n from issued_cfes where company_id = ${company.id} group by estado`)).rows as Array<{ estado: string; n: number }>;
      const by = Object.fromEntries(rows.map((r) => [r.estado, r.n])) as Record<string, number>;
      const total = rows.reduce((a, r) => a + r.n, 0);
      return { by, total, waiting: WAITING.reduce((a, s) => a + (by[s] ?? 0), 0), accepted: by.aceptado ?? 0 };
    };

    // The raw baseline just before the load and again after the drain: this machine's single-core speed
    // moves (openssl gave 1,425 and 2,551 signs/s two minutes apart), so the ratio is given to both.
    const baselineBefore = rsaBaseline(seconds < 3 ? 1 : 3);
    load = await openLoad({ url: `${base}/api/v1/comprobante/emitir`, method: 'POST', headers: { authorization: `Bearer ${cashier}`, 'content-type': 'application/json' }, body }, { connections });
    // The warm-up runs straight into the measured load (no pause: a lull over 1 s lets the lane's numbering
    // forecast lapse, issued-cfe.batcher.ts); the receipts it issued are DGI's backlog as in any steady state.
    const warm = warmUpSeconds > 0 ? await load.run(warmUpSeconds) : undefined;
    const atStart = await counts();
    if (opts.pgStatements) await db.execute(sql`create extension if not exists pg_stat_statements`).then(() => db.execute(sql`select pg_stat_statements_reset()`));
    await eventLoopDelay(base); // resets the histogram: what follows is the load's
    const cpuBefore = serviceCpu(service.pid!, postmasterPid);
    const benchCpuBefore = process.cpuUsage();
    const machineBefore = machineSnapshot();
    const r = await load.run(seconds);
    if (opts.pgStatements) await sayStatements(db, r.ok2xx, say);
    const loopDelay = await eventLoopDelay(base);
    const atStop = await counts();
    const loadCpu = serviceCpu(service.pid!, postmasterPid);
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const machine = machineReport(machineBefore, machineSnapshot());
    const memoryAtStop = await sayMemory('at the end of the load');
    const stoppedAt = Date.now();
    const drained = await waitFor('backlog drained', drainLimitSeconds * 1000, async () => {
      const c = await counts();
      return c.waiting === 0 ? c : undefined;
    });
    const drainSeconds = (Date.now() - stoppedAt) / 1000;
    const cpuAfter = serviceCpu(service.pid!, postmasterPid);
    await new Promise((res) => setTimeout(res, 3000)); // the drain's garbage becomes collectable
    const after = await sayMemory('after the drain');
    // V8 shrinks an idle heap on its own (the memory reducer, 10-50 s after the load): wait for the main
    // heap to shrink, then the RSS is what the process keeps, not garbage nobody has collected yet.
    let settled = after;
    const settleStart = Date.now();
    while (Date.now() - settleStart < settleSeconds * 1000 && settled.heapTotalMb > Math.max(idle.heapTotalMb * 1.2, after.heapTotalMb * 0.7)) {
      await new Promise((res) => setTimeout(res, 1000));
      settled = await memory();
    }
    await new Promise((res) => setTimeout(res, 1000));
    const settledAfterSeconds = Math.round((Date.now() - settleStart) / 1000);
    settled = await sayMemory(`settled (${settledAfterSeconds} s after the drain)`);
    let afterThreadGc: Memory | undefined;
    if (opts.threadMemory) {
      await collectEverywhere(threadMemoryDir, service.pid!);
      afterThreadGc = await sayMemory('after a full GC in every thread (what the service keeps alive)');
    }
    let afterGc: Memory | undefined;
    if (opts.heapSnapshot) {
      // Writing a heap snapshot collects garbage first: the heap after it is what the process keeps alive.
      fs.mkdirSync(profileDir, { recursive: true });
      const known = new Set(fs.readdirSync(profileDir));
      service.kill('SIGUSR2');
      const file = await waitFor('heap snapshot written', 300_000, async () => {
        const f = fs.readdirSync(profileDir).find((n) => n.endsWith('.heapsnapshot') && !known.has(n));
        if (!f) return undefined;
        const size = fs.statSync(path.join(profileDir, f)).size;
        await new Promise((r) => setTimeout(r, 1000));
        return size > 0 && fs.statSync(path.join(profileDir, f)).size === size ? f : undefined;
      });
      afterGc = await memory();
      if (process.env.BENCH_LIFECYCLE_HOLD_SECONDS) {
        say(`holding the service (pid ${service.pid}) for ${process.env.BENCH_LIFECYCLE_HOLD_SECONDS} s`);
        await new Promise((r) => setTimeout(r, Number(process.env.BENCH_LIFECYCLE_HOLD_SECONDS) * 1000));
      }
      say(`heap snapshot ${path.join(profileDir, file)}; after its full GC: main heap used ${afterGc.heapUsedMb} MB (RSS ${afterGc.rssMb} MB, grown by writing the snapshot)`);
    }

    const baselineAfter = rsaBaseline(seconds < 3 ? 1 : 3);
    const baselineNoIfma = rsaBaselineWithoutIfma(seconds < 3 ? 1 : 3);
    const issuedPerSecond = Math.round((r.ok2xx / r.seconds) * 10) / 10;
    const ratio = (b: typeof baselineBefore) => (b ? Math.round((issuedPerSecond / b.signsPerSec) * 1000) / 1000 : null);
    const acceptedDuringLoad = atStop.accepted - atStart.accepted;
    const acceptedPerSecond = Math.round((acceptedDuringLoad / r.seconds) * 10) / 10;
    const result = {
      seconds: Math.round(r.seconds * 10) / 10,
      connections,
      warmUpSeconds,
      /** Every 2xx receipt, the warm-up's too: what the database must hold once drained. */
      issued: r.ok2xx + (warm?.ok2xx ?? 0),
      non2xx: r.non2xx + (warm?.non2xx ?? 0),
      errors: r.errors + (warm?.errors ?? 0),
      issuedPerSecond,
      acceptedPerSecond,
      acceptedVsIssuedPercent: Math.round((acceptedPerSecond / Math.max(issuedPerSecond, 1e-9)) * 1000) / 10,
      latencyP50Ms: r.latencyMs.p50,
      latencyP99Ms: r.latencyMs.p99,
      backlogAtStop: atStop.waiting,
      drainSeconds: Math.round(drainSeconds * 10) / 10,
      rowsStored: drained.total,
      accepted: drained.accepted,
      otherFinalStates: drained.total - drained.accepted,
      rssIdleMb: idle.rssMb,
      rssAtStopMb: memoryAtStop.rssMb,
      rssAfterDrainMb: after.rssMb,
      heapUsedAfterDrainMb: after.heapUsedMb,
      rssStartedMb: startedMemory.rssMb,
      rssSettledMb: settled.rssMb,
      heapUsedSettledMb: settled.heapUsedMb,
      settledAfterSeconds,
      ...(afterThreadGc ? { rssAfterThreadGcMb: afterThreadGc.rssMb } : {}),
      ...(afterGc ? { heapUsedAfterFullGcMb: afterGc.heapUsedMb, rssAfterFullGcMb: afterGc.rssMb } : {}),
      rsaSignsPerSecBefore: baselineBefore?.signsPerSec ?? null,
      rsaSignsPerSecAfter: baselineAfter?.signsPerSec ?? null,
      ratioToRawBefore: ratio(baselineBefore),
      ratioToRawAfter: ratio(baselineAfter),
      rsaSignsPerSecWithoutIfma: baselineNoIfma?.signsPerSec ?? null,
      ratioToRawWithoutIfma: ratio(baselineNoIfma),
      machineBusyPercent: machine.busy,
      loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100).join(' '),
    };
    if (warm) say(`warm-up (not in the figures below): ${warm.ok2xx} e-Tickets in ${warm.seconds.toFixed(1)} s = ${Math.round(warm.ok2xx / warm.seconds)}/s, p50 ${warm.latencyMs.p50} ms, p99 ${warm.latencyMs.p99} ms, max ${warm.latencyMs.max} ms; p99 per second ${warm.p99PerSecond.join(' ')}; non-2xx ${warm.non2xx}, socket errors ${warm.errors}`);
    say(`${r.ok2xx} e-Tickets issued in ${r.seconds.toFixed(1)} s over ${connections} connections = ${issuedPerSecond}/s; accepted by DGI during the load ${acceptedDuringLoad} = ${acceptedPerSecond}/s (${result.acceptedVsIssuedPercent} % of issued)`);
    say(`latency p50 ${r.latencyMs.p50} ms, p90 ${r.latencyMs.p90} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms; non-2xx ${r.non2xx}, socket errors ${r.errors}`);
    say(`p99 per second (ms): ${r.p99PerSecond.join(' ')}`);
    say(`event loop delay during the load (the service's main thread; prom-client, 10 ms resolution): ${loopDelay}`);
    for (const [status, sample] of Object.entries(r.sampleErrors)) say(`HTTP ${status} e.g. ${sample}`);
    say(`backlog when the load stopped: ${atStop.waiting} receipts (${WAITING.map((s) => `${s} ${atStop.by[s] ?? 0}`).join(', ')}); drained in ${result.drainSeconds} s`);
    say(`after the drain: ${drained.total} rows, ${JSON.stringify(drained.by)}`);
    const cpuLine = (from: Map<string, number>, to: Map<string, number>, wallS: number, per: number) => [...to.entries()]
      .map(([k, v]) => [k, v - (from.get(k) ?? 0)] as const).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${Math.round(v / wallS / 10)}% (${(v / Math.max(per, 1)).toFixed(3)} ms/receipt)`).join('; ');
    say(`cpu during the load (% of one core): ${cpuLine(cpuBefore, loadCpu, r.seconds, r.ok2xx)}`);
    // The load generator shares the two cores: its thread and this bench process (which hosts it), and what
    // no process is charged with (the kernel's loopback TCP in softirq, other processes), so the lines add up.
    const benchMs = (benchCpu.user + benchCpu.system) / 1000;
    const servedMs = [...loadCpu.entries()].reduce((a, [k, v]) => a + v - (cpuBefore.get(k) ?? 0), 0);
    const busyMs = (machine.busy / 100) * os.cpus().length * r.seconds * 1000;
    const share = (ms: number) => `${Math.round(ms / r.seconds / 10)}% (${(ms / Math.max(r.ok2xx, 1)).toFixed(3)} ms/receipt)`;
    say(`cpu during the load, the rest: load generator thread ${share(r.cpuMs)}; bench process in all ${share(benchMs)}; not charged to the service, PostgreSQL or the bench (kernel softirq, other processes) ${share(Math.max(busyMs - servedMs - benchMs, 0))}`);
    say(`cpu during the drain: ${cpuLine(loadCpu, cpuAfter, Math.max(drainSeconds, 0.1), atStop.waiting)}`);
    say(`machine's ${os.cpus().length} cores during the load: ${machine.busy}% busy, ${machine.idle}% idle, ${machine.steal}% stolen; load average ${result.loadAverage}`);
    say(`memory: RSS right after start ${startedMemory.rssMb} MB, idle ${idle.rssMb} MB → end of load ${memoryAtStop.rssMb} MB → after drain ${after.rssMb} MB → settled ${settled.rssMb} MB (main heap used ${idle.heapUsedMb} → ${memoryAtStop.heapUsedMb} → ${after.heapUsedMb} → ${settled.heapUsedMb} MB)`);
    const log = fs.readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
    const byMsg = new Map<string, number>();
    for (const line of log) {
      const msg = /"msg":"([^"]{0,60})/.exec(line)?.[1] ?? line.slice(0, 40);
      byMsg.set(msg, (byMsg.get(msg) ?? 0) + 1);
    }
    say(`service log: ${log.length} lines (${(log.length / Math.max(drained.total, 1)).toFixed(2)} per receipt), most frequent: ${[...byMsg].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([m, n]) => `"${m}" ${n}`).join(', ')}`);
    say(`raw baseline ${baselineBefore?.what ?? 'openssl speed (unavailable)'}: ${result.rsaSignsPerSecBefore ?? '-'} signs/s just before the load, ${result.rsaSignsPerSecAfter ?? '-'} after the drain; issued/s = ${result.ratioToRawBefore ?? '-'} × raw (before) / ${result.ratioToRawAfter ?? '-'} × raw (after)`);
    if (baselineNoIfma) say(`this CPU has AVX-512 IFMA, which OpenSSL's RSA uses and the rest of the service cannot (bench/baseline.ts): ${baselineNoIfma.what}: ${baselineNoIfma.signsPerSec} signs/s; issued/s = ${result.ratioToRawWithoutIfma} × that (for comparison with machines without IFMA; the target below is judged on the plain baseline)`);
    const lowRatio = Math.min(result.ratioToRawBefore ?? 0, result.ratioToRawAfter ?? 0);
    say(`targets: ≥ 0.25 × raw RSA-2048 with p99 < 100 ms (issue 45) ${lowRatio >= 0.25 && r.latencyMs.p99 < 100 ? 'met' : 'NOT met'} (lower ratio ${lowRatio}), ≥ 1000 issued/s ${issuedPerSecond >= 1000 ? 'met' : 'NOT met'}, p99 < 100 ms ${r.latencyMs.p99 < 100 ? 'met' : 'NOT met'}, accepted within 10 % ${result.acceptedVsIssuedPercent >= 90 ? 'met' : 'NOT met'}, drained within 10 s ${drainSeconds <= 10 ? 'met' : 'NOT met'}`);
    return result;
  } finally {
    await load?.close();
    await database?.close();
    if (!exited) {
      const gone = new Promise((res) => service.once('exit', res));
      service.kill('SIGTERM');
      const timer = setTimeout(() => service.kill('SIGKILL'), 20_000);
      await gone;
      clearTimeout(timer);
    }
    if (opts.cpuProf) say(`CPU profiles in ${profileDir}`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => { const i = process.argv.indexOf(name); return i > 0 ? Number(process.argv[i + 1]) : undefined; };
  runLifecycleBench({ seconds: arg('--seconds'), warmUpSeconds: arg('--warm-up'), connections: arg('--connections'), cpuProf: process.argv.includes('--cpu-prof'), heapSnapshot: process.argv.includes('--heap-snapshot'), threadMemory: process.argv.includes('--thread-memory'), pgStatements: process.argv.includes('--pg-statements'), entry: process.argv.includes('--entry') ? (process.argv[process.argv.indexOf('--entry') + 1] as 'src' | 'dist') : undefined }).then(() => process.exit(0), (err) => {
    console.error(err);
    process.exit(1);
  });
}
