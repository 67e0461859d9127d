/**
 * Emission bench (issue 5): e-Tickets issued over real HTTP (bench/load.ts, 32 connections, ~10 s)
 * against the real app listening on loopback, on a throw-away database (embedded PostgreSQL, or a
 * fresh database on the server of DATABASE_URL). Prints receipts/s, p50/p99, non-2xx, the raw
 * RSA-2048 sign rate on one core measured in the same run, their ratio, and whether the numbers
 * issued on the serie are contiguous without duplicates.
 * Standalone: `npx tsx --v8-pool-size=1 bench/emission.ts` (the flag `npm start` and `npm run bench` run
 * with; the figures print which pool size they were measured with). Env: BENCH_EMISSION_SECONDS (10), BENCH_EMISSION_WARMUP_SECONDS (8),
 * BENCH_EMISSION_CONNECTIONS (32),
 * BENCH_EMISSION_COMPANIES (1: every receipt in one numbering lane, the worst case; N spreads the
 * connections over N issuing companies, as a multi-tenant service sees them).
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { completeRut, isValidRut } from '../src/lib/rut.js';
import { loadConfig } from '../src/config.js';
import { companies } from '../src/modules/companies/companies.tables.js';
import { setUpIssuer } from '../src/modules/issued-cfe/issued-cfe.test-setup.js';
import { connectDatabase } from '../src/platform/db/client.js';
import { cpuReport, cpuSnapshot, machineReport, machineSnapshot } from './cpu.js';
import { openLoad, type LoadGenerator } from './load.js';
import { eTicketBody, openBenchDatabase } from './support.js';
import { createLogger } from '../src/platform/logger.js';
import { createMailer } from '../src/platform/mailer.js';

const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789';
const ADMIN = { usuario: 'bench@bench.uy', clave: 'bench-password-1' };

/** Raw RSA-2048 `crypto.sign('sha256', 600 bytes, KeyObject)` per second on this (single) thread. */
function rawSignsPerSecond(seconds = 3): number {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const payload = randomBytes(600);
  for (let i = 0; i < 50; i++) sign('sha256', payload, privateKey);
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(seconds * 1e9);
  let n = 0;
  while (process.hrtime.bigint() < deadline) {
    for (let k = 0; k < 10; k++) sign('sha256', payload, privateKey);
    n += 10;
  }
  return Math.round(n / (Number(process.hrtime.bigint() - start) / 1e9));
}

/** `warmUpSeconds` and `rawSignSeconds` exist for the smoke test (bench/bench-smoke.int.test.ts), which runs a second of it. */
export async function runEmissionBench(opts: { seconds?: number; connections?: number; companies?: number; warmUpSeconds?: number; rawSignSeconds?: number } = {}): Promise<Record<string, number>> {
  const seconds = opts.seconds ?? Number(process.env.BENCH_EMISSION_SECONDS ?? 10);
  const connections = opts.connections ?? Number(process.env.BENCH_EMISSION_CONNECTIONS ?? 32);
  const companyCount = Math.max(1, opts.companies ?? Number(process.env.BENCH_EMISSION_COMPANIES ?? 1));
  const dbh = await openBenchDatabase('bench_emission');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-emission-data-'));
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: dbh.url, DATA_DIR: dataDir, JWT_SECRET, LOG_LEVEL: 'silent', DB_POOL_MAX: '20', AUTH_RATE_LIMIT_PER_MINUTE: '100000', ...(process.env.EMISSION_SEAL_WORKERS ? { EMISSION_SEAL_WORKERS: process.env.EMISSION_SEAL_WORKERS } : {}) });
  const logger = createLogger(config);
  const database = connectDatabase(dbh.url, { max: config.db.poolMax });
  const mailer = createMailer(config.mail, logger);
  const { app, modules } = await buildApp({ config, logger, database, mailer, jwtSecret: JWT_SECRET });
  let load: LoadGenerator | undefined; // closed in `finally`, also when the run fails
  try {
    await modules.services.users.ensureFirstAdmin(ADMIN.usuario, ADMIN.clave);
    const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: ADMIN });
    const token = login.json().accessToken as string;
    const call = async (tk: string, method: string, url: string, body?: unknown) => {
      const r = await app.inject({ method: method as 'POST', url, payload: body as object, headers: { authorization: `Bearer ${tk}` } });
      return { status: r.statusCode, body: r.json() };
    };
    const issuers: Array<typeof companies.$inferSelect> = [];
    for (let i = 0; i < companyCount; i++) {
      let rut = i === 0 ? '219999830019' : '';
      for (let k = 0; i > 0 && !isValidRut(rut); k++) rut = completeRut(String(21123456000 + i * 7919 + k)) ?? '';
      const [company] = await database.db.insert(companies).values({ rut, razonSocial: `Bench Emisora ${i + 1} S.A.` }).returning();
      await setUpIssuer(database.db, call, token, company, { size: 5_000_000 });
      issuers.push(company);
    }
    // The load is sent as an integrator would: a user with role `emisor` in the companies, not the operator.
    const cashier = { usuario: 'caja@bench.uy', clave: 'bench-password-2' };
    const created = await call(token, 'POST', '/api/v1/usuario/crear', { ...cashier, nombre: 'Caja', empresas: issuers.map((c) => ({ idEmpresa: c.id, rol: 'emisor' })) });
    if (created.status !== 201) throw new Error(`bench user: ${created.status} ${JSON.stringify(created.body)}`);
    const cashierToken = (await app.inject({ method: 'POST', url: '/api/auth/login', payload: cashier })).json().accessToken as string;

    const bodyOf = (company: { id: number }) => eTicketBody(company.id);

    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const request = { url: `${address}/api/v1/comprobante/emitir`, method: 'POST', headers: { authorization: `Bearer ${cashierToken}`, 'content-type': 'application/json' }, bodies: issuers.map(bodyOf) };
    // Warm-up at the same concurrency: JIT, XSD schema, signing context and caches, pool connections.
    // 8 s, not 2: V8 keeps optimising the hot JavaScript and tiering libxml2's WebAssembly up to
    // optimised code for several seconds, and measured after 2 s the first seconds of the run were
    // still ~20 % slower with a p99 of 70-110 ms (this machine, session 7: 1,238 vs 1,537 receipts/s).
    // A service runs for hours; the figure is its steady state.
    const warmUpSeconds = opts.warmUpSeconds ?? Number(process.env.BENCH_EMISSION_WARMUP_SECONDS ?? 8);
    // The raw RSA rate is measured right before the warm-up and right after the run and averaged: on
    // this shared VM one core's speed drifts by 10-20 % within a minute, and the ratio compares like
    // with like. Not between warm-up and run: those 2 s without requests let the lane's numbering
    // forecast lapse (issued-cfe.batcher.ts, 1 s), and the run then started on the locked path, whose
    // row objects have other hidden classes; V8 dropped the optimised emission code (--trace-deopt:
    // "wrong map" in emittedEvent and issuedCfeView) and recompiled it during the run. 3 alternating
    // pairs: 1,169-1,227 -> 1,325-1,380 receipts/s, CPU 1.41-1.47 -> 1.26-1.33 ms per receipt.
    const rawSignSeconds = opts.rawSignSeconds ?? 2;
    const rawSignsBefore = rawSignsPerSecond(rawSignSeconds);
    load = await openLoad(request, { connections });
    await load.run(warmUpSeconds);

    // The load generator runs on its own thread, as a separate client process would: on the
    // server's event loop it would take CPU from the requests it measures (bench/load.ts).
    const cpuBefore = process.cpuUsage();
    const threadsBefore = cpuSnapshot([load.tid]);
    const machineBefore = machineSnapshot();
    const wallBefore = process.hrtime.bigint();
    const r = await load.run(seconds);
    const cpu = process.cpuUsage(cpuBefore);
    const wallMs = Number(process.hrtime.bigint() - wallBefore) / 1e6;
    const cpuRows = cpuReport(threadsBefore, cpuSnapshot([load.tid]), wallMs, r.ok2xx);
    const machine = machineReport(machineBefore, machineSnapshot());
    cpuRows.push({ name: 'load generator thread', pctOfCore: Math.round((r.cpuMs / wallMs) * 100), msPerUnit: Math.round((r.cpuMs / Math.max(r.ok2xx, 1)) * 1000) / 1000 });
    const processCpuPct = Math.round(((cpu.user + cpu.system) / 1000 / wallMs) * 100);
    const receiptsPerSecond = Math.round((r.ok2xx / r.seconds) * 10) / 10;

    const series = (await database.db.execute(sql`select company_id, count(*)::int as n, count(distinct numero)::int as d, min(numero)::int as lo, max(numero)::int as hi from issued_cfes where tipo_cfe = 101 and serie = 'A' group by company_id order by company_id`)).rows as Array<{ n: number; d: number; lo: number; hi: number }>;
    const contiguous = series.length === companyCount && series.every((x) => x.n === x.d && x.n === x.hi - x.lo + 1);
    const row = { n: series.reduce((a, x) => a + x.n, 0), lo: Math.min(...series.map((x) => x.lo)), hi: Math.max(...series.map((x) => x.hi)) };

    const rawSignsAfter = rawSignsPerSecond(rawSignSeconds);
    const rawSigns = Math.round((rawSignsBefore + rawSignsAfter) / 2);
    const cores = os.cpus().length;
    const cpuMsPerReceipt = cpuRows.reduce((a, c) => a + c.msPerUnit, 0);
    const result = {
      receiptsPerSecond,
      latencyP50Ms: r.latencyMs.p50,
      latencyP99Ms: r.latencyMs.p99,
      non2xx: r.non2xx,
      errors: r.errors,
      connections,
      companies: companyCount,
      seconds: Math.round(r.seconds * 10) / 10,
      rawRsaSignsPerSecondOneCore: rawSigns,
      ratioReceiptsToRawSigns: Math.round((receiptsPerSecond / rawSigns) * 1000) / 1000,
      nodeProcessCpuPercent: processCpuPct,
      machineStealPercent: machine.steal,
      cpuMsPerReceipt: Math.round(cpuMsPerReceipt * 1000) / 1000,
      issuedOnSerie: row.n,
      serieContiguousNoDuplicates: contiguous ? 1 : 0,
    };
    console.log(`emission: ${r.ok2xx} e-Tickets in ${r.seconds.toFixed(1)} s over ${connections} connections${companyCount > 1 ? ` spread over ${companyCount} companies` : ''} = ${receiptsPerSecond} receipts/s`);
    console.log(`emission: latency p50 ${r.latencyMs.p50} ms, p90 ${r.latencyMs.p90} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms; non-2xx ${r.non2xx}, socket errors ${r.errors}`);
    console.log(`emission: p99 latency per second of the run (ms): ${r.p99PerSecond.join(' ')}`);
    for (const [status, sample] of Object.entries(r.sampleErrors)) console.log(`emission: HTTP ${status} e.g. ${sample}`);
    console.log(`emission: raw RSA-2048 sha256 sign (600 B) on one core ${rawSigns}/s (${rawSignsBefore} before the warm-up, ${rawSignsAfter} after the run); ratio receipts/s ÷ raw signs/s = ${result.ratioReceiptsToRawSigns} (target ≥ 0.5, p99 < 50 ms)`);
    const pool = process.execArgv.find((a) => a.startsWith('--v8-pool-size'));
    console.log(`emission: V8 helper threads: ${pool ? pool.split('=')[1] : '4 (Node default; npm start runs with --v8-pool-size=1)'}`);
    console.log(`emission: this Node process (API + load-generator thread + any worker threads) used ${processCpuPct}% of one core during the run`);
    for (const c of cpuRows) console.log(`emission: cpu ${c.name}: ${c.pctOfCore}% of a core, ${c.msPerUnit} ms per receipt`);
    console.log(`emission: machine's ${cores} cores during the run: ${machine.busy}% busy, ${machine.idle}% idle, ${machine.steal}% stolen by the hypervisor (a shared VM's steal slows every figure above)`);
    // What the ratio target asks of this machine: with every thread's and PostgreSQL's CPU per receipt
    // measured above, the cores bound receipts/s whatever the scheduling. The raw RSA rate varies far
    // more between VMs (AVX-512 or not) than the rest of a receipt's work does, so the same code meets
    // the 0.5 ratio on one VM and cannot on another; this line shows which case a run is.
    const ceiling = Math.round((cores * 1000) / cpuMsPerReceipt);
    const needed = Math.round(rawSigns / 2);
    console.log(`emission: CPU budget: ${cpuMsPerReceipt.toFixed(3)} ms of CPU per receipt in all (one RSA signature is ${(1000 / rawSigns).toFixed(3)} ms of it); ${cores} cores allow at most ${ceiling} receipts/s with every core 100% busy; this run reached ${Math.round((receiptsPerSecond / ceiling) * 100)}% of that, and ratio 0.5 needs ${needed}/s, ${Math.round((needed / ceiling) * 100)}% of it`);
    const st = modules.services.issuedCfe.emissionStats();
    console.log(`emission: pipeline ${st.batches} batches, ${(st.receipts / Math.max(st.batches, 1)).toFixed(1)} receipts per batch; forecasts held ${st.forecastsHeld}, missed ${st.forecastsMissed}; one-by-one fallbacks ${st.fallbacks}; seal workers ${config.emission.sealWorkers}`);
    console.log(`emission: serie A of ${companyCount} ${companyCount > 1 ? 'companies' : 'company'}: ${row.n} rows, numbers ${row.lo}..${row.hi}: ${contiguous ? 'contiguous, no duplicates' : 'GAPS OR DUPLICATES'}`);
    return result;
  } finally {
    await load?.close();
    await app.close();
    mailer.close();
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    await dbh.stop();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runEmissionBench().then(() => process.exit(0), (err) => {
    console.error(err);
    process.exit(1);
  });
}
