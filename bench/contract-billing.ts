/**
 * Contract billing bench (issue 34 point 6), on a throw-away database:
 * 1. Ingestion with usage rules vs without: the usage bench's load (16 clients, batches of 100 over
 *    HTTP, 10 % repeats, 64 contracts) with the job runner in process; back-to-back pairs in ABBA order,
 *    without terms (the after-store hook marks nothing) and with warning/suspension rules on every
 *    contract (every 250 ms each contract touched is evaluated once, evaluation-queue.ts). Prints accepted events/s and CPU per accepted event (API + PostgreSQL) of both.
 * 2. Closing 10,000 contracts' periods at once: contracts, terms and a period of rollups seeded by
 *    SQL; `closeDue` claims them all and the job runner issues one CFE each through emission.
 *    Prints the seconds from the claim to the last CFE, and checks 10,000 CFEs, none twice.
 * Run: `npm run bench -- --contracts` or `npx tsx bench/contract-billing.ts`.
 * Env: BENCH_CONTRACTS_SECONDS (8), BENCH_CONTRACTS_CLOSE (10000), BENCH_CONTRACTS_CONCURRENCY (4, WORKER_CONCURRENCY's default).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { periodAt } from '../src/modules/contract-billing/periods.js';
import { companies } from '../src/modules/companies/companies.tables.js';
import { setUpIssuer } from '../src/modules/issued-cfe/issued-cfe.test-setup.js';
import { connectDatabase } from '../src/platform/db/client.js';
import { startJobRunner } from '../src/platform/jobs/runner.js';
import { createLogger } from '../src/platform/logger.js';
import { createMailer } from '../src/platform/mailer.js';
import { cpuReport, cpuSnapshot, machineReport, machineSnapshot } from './cpu.js';
import { openBenchDatabase } from './support.js';
import { openUsageLoad } from './usage-client.js';

const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123';
const ADMIN = { usuario: 'admin@bench.uy', clave: 'bench-password-1' };

export async function runContractBillingBench() {
  const seconds = Number(process.env.BENCH_CONTRACTS_SECONDS ?? 8);
  const closeCount = Number(process.env.BENCH_CONTRACTS_CLOSE ?? 10_000);
  const concurrency = Number(process.env.BENCH_CONTRACTS_CONCURRENCY ?? 4);
  const dbh = await openBenchDatabase('bench_contracts');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-contracts-data-'));
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: dbh.url, DATA_DIR: dataDir, JWT_SECRET, LOG_LEVEL: 'silent', DB_POOL_MAX: '30', AUTH_RATE_LIMIT_PER_MINUTE: '100000' });
  const logger = createLogger(config);
  const database = connectDatabase(dbh.url, { max: config.db.poolMax });
  const { app, modules } = await buildApp({ config, logger, database, mailer: createMailer(config.mail, logger), jwtSecret: JWT_SECRET });
  const db = database.db;
  const runner = await startJobRunner({ pool: db.$client, jobs: modules.jobs, concurrency, logger });
  let load: Awaited<ReturnType<typeof openUsageLoad>> | undefined;
  try {
    await modules.services.users.ensureFirstAdmin(ADMIN.usuario, ADMIN.clave);
    const admin = (await app.inject({ method: 'POST', url: '/api/auth/login', payload: ADMIN })).json().accessToken as string;
    const call = async (method: string, url: string, body?: unknown) => {
      const r = await app.inject({ method: method as 'POST', url, payload: body as object, headers: { authorization: `Bearer ${admin}` } });
      return { status: r.statusCode, body: r.json() };
    };
    const must = async (method: string, url: string, body?: unknown) => {
      const r = await call(method, url, body);
      if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    };
    const [company] = await db.insert(companies).values({ rut: '219999830019', razonSocial: 'Contratos Bench S.A.' }).returning();
    await setUpIssuer(db, (_tk: string, m: string, u: string, b?: unknown) => call(m, u, b), admin, company!, { size: 5_000_000 });
    const q = `?idEmpresa=${company!.id}`;
    const customer = await must('POST', '/api/v1/cliente/crear', { idEmpresa: company!.id, tipoDocumento: 2, codPais: 'UY', documento: '214844360018', razonSocial: 'Cliente SA', direccion: 'Calle 1', ciudad: 'Montevideo' });
    const metric = await must('POST', `/api/v1/metrics${q}`, { codigo: 'calls', nombre: 'Llamadas', unidad: 'llamadas', agregacion: 'count', clavesAgrupacion: ['region'] });
    const book = await must('POST', `/api/v1/price-books${q}`, {
      codigo: 'API', nombre: 'API', moneda: 'UYU', vigenteDesde: '2025-01-01',
      precios: [{ metrica: 'calls', modelo: 'escalonado', tramos: [{ desde: '0', hasta: '1000', precioUnitario: '0.5' }, { desde: '1000', hasta: null, precioUnitario: '0.25' }], indicadorFacturacion: 3, nombreItem: 'Llamadas API' }],
    });
    const terms = { idVersionListaPrecios: book.id, tipoCfe: 111, codComercio: 'C1', codTerminal: 'T1', reglas: [
      { id: 'aviso', objetivo: 'unidades', metrica: 'calls', umbral: '1000000', accion: 'advertir' },
      { id: 'monto', objetivo: 'monto', umbral: '900000', accion: 'suspender' },
    ] };

    // 1. Ingestion with and without rules (BENCH_CONTRACTS_SECONDS=0 skips it).
    let ingestion: Record<string, unknown> = { skipped: true };
    if (seconds > 0) {
      const contracts: number[] = [];
      for (let i = 0; i < 64; i++) contracts.push((await must('POST', `/api/v1/contracts${q}`, { idCliente: customer.id, idExterno: `B-${i}`, metricas: ['calls'], inicio: '2026-01-01T00:00:00Z' })).id);
      for (const c of contracts) await must('PUT', `/api/v1/contracts/${c}/terms`, terms);
      await db.execute(sql`create table bench_terms as select * from contract_terms`);
      await must('POST', '/api/v1/usuario/crear', { usuario: 'ingesta@bench.uy', nombre: 'Ingesta', clave: 'bench-password-2', empresas: [{ idEmpresa: company!.id, rol: 'emisor' }] });
      const token = (await app.inject({ method: 'POST', url: '/api/auth/login', payload: { usuario: 'ingesta@bench.uy', clave: 'bench-password-2' } })).json().accessToken as string;
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      load = await openUsageLoad({ url: `${address}/api/v1/usage-events`, token, clients: 16, batchSize: 100, repeatPct: 10, contracts, regions: ['norte', 'sur'] });
      await load.run(2);
      const measure = async (withRules: boolean) => {
        await db.execute(sql`delete from contract_terms`);
        if (withRules) await db.execute(sql`insert into contract_terms select * from bench_terms`);
        const c0 = cpuSnapshot([load!.tid]);
        const r = await load!.run(seconds);
        const cpu = cpuReport(c0, cpuSnapshot([load!.tid]), r.seconds * 1000, r.aceptados).filter((x) => !x.name.startsWith('busiest')).reduce((n, x) => n + x.msPerUnit, 0);
        return { eventsPerSec: Math.round(r.aceptados / r.seconds), p99BatchMs: r.latencyMs.p99, cpuMsPerEvent: Number(cpu.toFixed(4)) };
      };
      const pairs: Array<{ without: Awaited<ReturnType<typeof measure>>; with: Awaited<ReturnType<typeof measure>> }> = [];
      // ABBA order: rollups grow during the run, so neither mode always runs on the larger tables.
      for (let i = 0; i < 2; i++) {
        if (i % 2 === 0) {
          const without = await measure(false);
          pairs.push({ without, with: await measure(true) });
        } else {
          const withRules = await measure(true);
          pairs.push({ without: await measure(false), with: withRules });
        }
      }
      const evaluations = (await db.execute(sql`select count(*)::int as n from contract_state_history`)).rows[0];
      const avg = (k: 'with' | 'without', f: 'eventsPerSec' | 'cpuMsPerEvent') => pairs.reduce((n, p) => n + p[k][f], 0) / pairs.length;
      ingestion = { pairs, withoutEventsPerSec: Math.round(avg('without', 'eventsPerSec')), withEventsPerSec: Math.round(avg('with', 'eventsPerSec')),
        cpuOverheadPct: Number(((avg('with', 'cpuMsPerEvent') / avg('without', 'cpuMsPerEvent') - 1) * 100).toFixed(1)), transitions: evaluations };
      console.log(`ingestion without rules ${ingestion.withoutEventsPerSec} events/s, with rules ${ingestion.withEventsPerSec} events/s; CPU per accepted event ${ingestion.cpuOverheadPct} % more with rules; pairs ${JSON.stringify(pairs)}`);
      await load.close();
      load = undefined;
    }

    // 2. Close 10,000 contracts' periods at once.
    const period = periodAt(new Date(), 1);
    const bucket = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    await db.execute(sql`
      with c as (
        insert into usage_contracts (company_id, customer_id, external_id, state, starts_at, metric_ids)
        select ${company!.id}, ${customer.id}, 'C-' || g, 'activo', '2026-01-01T00:00:00Z', array[${metric.id}::int] from generate_series(1, ${closeCount}) g
        returning id
      ), t as (
        insert into contract_terms (contract_id, company_id, price_book_version_id, price_book_code, cfe_type, cod_comercio, cod_terminal, rules_state, open_period_start)
        select id, ${company!.id}, ${book.id}, 'API', 111, 'C1', 'T1', jsonb_build_object('estado', 'activo', 'periodo', ${period.desde}::text, 'reglas', '{}'::jsonb), ${period.desde}::date from c
        returning contract_id
      )
      insert into usage_rollups (contract_id, metric_id, bucket, group_key, slot, company_id, groups, event_count)
      select contract_id, ${metric.id}, ${bucket.toISOString()}::timestamptz, '{"region":"norte"}', 0, ${company!.id}, '{"region":"norte"}'::jsonb, 500 + contract_id % 1000 from t`);
    // Past the default grace (USAGE_GRACE_HOURS 72).
    const later = new Date(period.end.getTime() + 80 * 3_600_000);
    const m0 = machineSnapshot();
    const c0 = cpuSnapshot();
    const t0 = Date.now();
    const claimed = await modules.services.contractPeriods.closeDue(later);
    const claimSeconds = (Date.now() - t0) / 1000;
    let pending = claimed;
    while (pending > 0) {
      await new Promise((r) => setTimeout(r, 250));
      pending = Number(((await db.execute(sql`select count(*)::int as n from contract_periods where status = 'pendiente'`)).rows[0] as { n: number }).n);
    }
    const closeSeconds = (Date.now() - t0) / 1000;
    const cpu = cpuReport(c0, cpuSnapshot(), closeSeconds * 1000, claimed);
    const [check] = (await db.execute(sql`select count(*) filter (where status = 'emitido')::int as emitted, count(distinct issued_cfe_id)::int as cfes, count(*) filter (where status = 'error')::int as errors,
      (select count(*)::int from issued_cfes where idempotency_key like 'contrato-%') as keyed from contract_periods`)).rows as Array<{ emitted: number; cfes: number; errors: number; keyed: number }>;
    const cpuMsPerCfe = Number(cpu.reduce((n, r) => n + r.msPerUnit, 0).toFixed(2));
    const close = { contracts: claimed, claimSeconds, closeSeconds, cfesPerSec: Math.round(claimed / closeSeconds), cpuMsPerCfe, ...check, onceEach: check!.cfes === check!.keyed && check!.emitted >= closeCount, under30s: closeSeconds < 30, cpu, machine: machineReport(m0, machineSnapshot()) };
    console.log(`closing ${claimed} contracts' periods: claimed in ${claimSeconds.toFixed(1)} s, all CFEs issued in ${closeSeconds.toFixed(1)} s (${close.cfesPerSec}/s, target < 30 s: ${close.under30s ? 'OK' : 'MISSED'}); emitted ${check!.emitted}, distinct CFEs ${check!.cfes}, errors ${check!.errors}, once each ${close.onceEach ? 'OK' : 'MISMATCH'}; CPU ${cpuMsPerCfe} ms per period (API threads + PostgreSQL), machine ${JSON.stringify(close.machine)}`);
    return { ingestion, close };
  } finally {
    await load?.close();
    await runner.stop();
    await app.close();
    await database.close();
    await dbh.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runContractBillingBench();
  process.exit(0);
}
