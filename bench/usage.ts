/**
 * Usage metering bench (issue 33 point 6), over real HTTP on a throw-away database:
 * 1. Ingestion against the service as `npm start` runs it (issue 40 point 8: its own process, job
 *    worker in process, logs at the default level, embedded PostgreSQL; bench/service.ts): 16 clients
 *    each sending batches of 100 events to POST /api/v1/usage-events, 10 % of each batch exact
 *    repeats of earlier events; prints accepted events/s, p99 batch latency (and per second of the
 *    run, to tell spikes from a steady tail), CPU per event (service threads, its PostgreSQL, load
 *    generator apart), a raw baseline measured in the same run (openssl speed rsa2048, one core) with
 *    the ratio, the load average, and checks that the rollups, the raw events and the dedup keys each
 *    count exactly the distinct events sent.
 * 2. The usage query over a contract with 10,000,000 events in a month, grouped by day (and by day and
 *    region): p50/p95 over 40 calls. The month is seeded with generate_series, not HTTP: hourly
 *    rollups whose counts add up to the events (the query reads only rollups), and with
 *    BENCH_USAGE_RAW=1 also the raw events, the rollups then aggregated from them by SQL.
 * Run: `npm run bench -- --usage` or `npx tsx bench/usage.ts`.
 * Env: BENCH_USAGE_SECONDS (10), BENCH_USAGE_CLIENTS (16), BENCH_USAGE_QUERY_EVENTS (10000000; 0 skips the query), BENCH_USAGE_RAW (0).
 */
import fs from 'node:fs';
import os from 'node:os';
import { sql } from 'drizzle-orm';
import { companies } from '../src/modules/companies/companies.tables.js';
import { foldSlots } from '../src/modules/usage/ingestion.repository.js';
import { connectDatabase, type Db } from '../src/platform/db/client.js';
import { rsaBaseline } from './baseline.js';
import { machineReport, machineSnapshot } from './cpu.js';
import { cpuDelta, startService } from './service.js';
import { openUsageLoad } from './usage-client.js';

const ADMIN = { usuario: 'admin@bench.uy', clave: 'bench-password-1' };
const REGIONS = ['norte', 'sur', 'este', 'oeste'];
const QUERY_MONTH = { start: '2026-10-01T03:00:00Z', end: '2026-11-01T03:00:00Z', hours: 744 };

async function seedQueryContract(db: Db, contractId: number, metricId: number, companyId: number, events: number, raw: boolean) {
  const regions = 10;
  const plans = 5;
  const rows = QUERY_MONTH.hours * regions * plans;
  if (raw) {
    await db.execute(sql`select usage_events_ensure_partitions(${QUERY_MONTH.start}::timestamptz, ${QUERY_MONTH.end}::timestamptz)`);
    for (let from = 0; from < events; from += 1_000_000) {
      const to = Math.min(events, from + 1_000_000) - 1;
      await db.execute(sql`
        insert into usage_events (company_id, contract_id, metric_id, transaction_id, occurred_at, properties, value)
        select ${companyId}, ${contractId}, ${metricId}, 'q-' || g, ${QUERY_MONTH.start}::timestamptz + (g::float8 / ${events} * ${QUERY_MONTH.hours}) * interval '1 hour',
          jsonb_build_object('region', 'r' || (g % ${regions}), 'plan', 'p' || (g / ${regions} % ${plans})), null
        from generate_series(${from}::int, ${to}::int) g`);
    }
    await db.execute(sql`
      insert into usage_rollups (contract_id, metric_id, bucket, group_key, company_id, groups, event_count, latest_at, latest_transaction_id)
      select ${contractId}, ${metricId}, date_trunc('hour', occurred_at at time zone 'UTC') at time zone 'UTC', gk, ${companyId}, gk::jsonb, count(*), max(occurred_at), max(transaction_id)
      from (select occurred_at, transaction_id, jsonb_build_object('plan', properties->>'plan', 'region', properties->>'region')::text as gk from usage_events where contract_id = ${contractId}) e
      group by 3, 4`);
  } else {
    // The same shape without the raw rows: the counts of all rows add up to `events` exactly.
    await db.execute(sql`
      insert into usage_rollups (contract_id, metric_id, bucket, group_key, company_id, groups, event_count, latest_at, latest_transaction_id)
      select ${contractId}, ${metricId}, ${QUERY_MONTH.start}::timestamptz + (g / ${regions * plans}) * interval '1 hour', gk, ${companyId}, gk::jsonb,
        ${Math.floor(events / rows)} + case when g < ${events % rows} then 1 else 0 end, ${QUERY_MONTH.start}::timestamptz + (g / ${regions * plans}) * interval '1 hour', 'q-' || g
      from generate_series(0, ${rows - 1}) g, lateral (select jsonb_build_object('plan', 'p' || (g / ${regions} % ${plans}), 'region', 'r' || (g % ${regions}))::text as gk) k`);
  }
  await db.execute(sql`vacuum analyze usage_rollups`);
}

/**
 * p50/p99 of the time the service itself reports for POST /usage-events (`responseTime` of its
 * "request completed" log lines written after `from`): from routing to the reply, so the difference
 * to the client's figure is time spent before the request reached a handler (CPU, accept queue).
 */
function serverTimes(logFile: string, from: number): { p50: number | null; p99: number | null } {
  const times: number[] = [];
  const fd = fs.openSync(logFile, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(Math.max(0, size - from));
    fs.readSync(fd, buf, 0, buf.length, from);
    for (const line of buf.toString('utf8').split('\n')) {
      if (!line.includes('/api/v1/usage-events')) continue;
      try {
        const j = JSON.parse(line) as { responseTime?: number };
        if (typeof j.responseTime === 'number') times.push(j.responseTime);
      } catch { /* a partial line */ }
    }
  } finally {
    fs.closeSync(fd);
  }
  if (!times.length) return { p50: null, p99: null };
  return { p50: Number(pct(times, 0.5)!.toFixed(1)), p99: Number(pct(times, 0.99)!.toFixed(1)) };
}

const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

/** Options exist for the smoke test (bench/bench-smoke.int.test.ts), which runs a second of it. */
export async function runUsageBench(opts: { seconds?: number; clients?: number; warmUpSeconds?: number; queryEvents?: number } = {}) {
  const seconds = opts.seconds ?? Number(process.env.BENCH_USAGE_SECONDS ?? 10);
  const clients = opts.clients ?? Number(process.env.BENCH_USAGE_CLIENTS ?? 16);
  const queryEvents = opts.queryEvents ?? Number(process.env.BENCH_USAGE_QUERY_EVENTS ?? 10_000_000);
  const raw = process.env.BENCH_USAGE_RAW === '1';
  // The product as `npm start` runs it (worker in process, logs on, embedded PostgreSQL), in a process of its own.
  const service = await startService({ prefix: 'bench-usage', env: { ADMIN_USER: ADMIN.usuario, ADMIN_PASSWORD: ADMIN.clave, AUTH_RATE_LIMIT_PER_MINUTE: '100000' } });
  const database = connectDatabase(service.dbUrl, { max: 2 });
  const db = database.db;
  const address = service.base;
  let load: Awaited<ReturnType<typeof openUsageLoad>> | undefined;
  try {
    const fetchJson = async (method: string, url: string, body?: unknown, token?: string) => {
      const r = await fetch(address + url, { method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      const text = await r.text();
      if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${text}`);
      return text ? JSON.parse(text) : null;
    };
    const admin = (await fetchJson('POST', '/api/auth/login', ADMIN)).accessToken as string;
    const call = (method: string, url: string, body?: unknown, token = admin) => fetchJson(method, url, body, token);
    const [company] = await db.insert(companies).values({ rut: '219999830019', razonSocial: 'Consumo Bench S.A.' }).returning();
    const q = `?idEmpresa=${company.id}`;
    const customer = await call('POST', '/api/v1/cliente/crear', { idEmpresa: company.id, tipoDocumento: 2, codPais: 'UY', documento: '214844360018', razonSocial: 'Cliente SA' });
    await call('POST', `/api/v1/metrics${q}`, { codigo: 'calls', nombre: 'Llamadas', unidad: 'llamadas', agregacion: 'count', clavesAgrupacion: ['region'] });
    const msgs = await call('POST', `/api/v1/metrics${q}`, { codigo: 'msgs', nombre: 'Mensajes', unidad: 'mensajes', agregacion: 'count', clavesAgrupacion: ['region', 'plan'] });
    const contracts: number[] = [];
    for (let i = 0; i < 64; i++) contracts.push((await call('POST', `/api/v1/contracts${q}`, { idCliente: customer.id, idExterno: `B-${i}`, metricas: ['calls'], inicio: '2026-01-01T00:00:00Z' })).id);
    // The load is sent as an integrator would: a user with role emisor, not the operator.
    await call('POST', '/api/v1/usuario/crear', { usuario: 'ingesta@bench.uy', nombre: 'Ingesta', clave: 'bench-password-2', empresas: [{ idEmpresa: company.id, rol: 'emisor' }] });
    const token = (await fetchJson('POST', '/api/auth/login', { usuario: 'ingesta@bench.uy', clave: 'bench-password-2' })).accessToken as string;

    load = await openUsageLoad({ url: `${address}/api/v1/usage-events`, token, clients, batchSize: 100, repeatPct: 10, contracts, regions: REGIONS });
    const warm = await load.run(opts.warmUpSeconds ?? 3);
    // The raw baseline, in this run, just before the measured load (the machine as it is now).
    const baseline = rsaBaseline(opts.seconds !== undefined && opts.seconds < 3 ? 1 : 3);
    const load0 = os.loadavg()[0]!;
    const logFrom = fs.statSync(service.logFile).size;
    const cpu0 = service.cpu();
    const m0 = machineSnapshot();
    const run = await load.run(seconds);
    const serverSide = serverTimes(service.logFile, logFrom);
    const spent = cpuDelta(cpu0, service.cpu());
    const machine = machineReport(m0, machineSnapshot());
    const perEvent = (ms: number) => Number((ms / Math.max(run.aceptados, 1)).toFixed(4));
    const pgMs = spent.get('postgres (this cluster)') ?? 0;
    const apiMs = [...spent].filter(([k]) => k !== 'postgres (this cluster)').reduce((n, [, ms]) => n + ms, 0);
    const cpu = [...spent].sort((a, b) => b[1] - a[1]).map(([name, ms]) => ({ name, pctOfCore: Math.round((ms / (run.seconds * 1000)) * 100), msPerEvent: perEvent(ms) }));
    const unique = warm.uniqueSent + run.uniqueSent;
    const [counted] = (await db.execute(sql`
      select (select coalesce(sum(event_count), 0) from usage_rollups where metric_id <> ${msgs.id})::bigint as rollups,
        (select count(*) from usage_events)::bigint as raw, (select count(*) from usage_event_keys)::bigint as keys`)).rows as Array<{ rollups: string; raw: string; keys: string }>;
    const httpUnique = await Promise.all(contracts.map((c) => call('GET', `/api/v1/contracts/${c}/usage?start=2026-01-01T03:00:00Z&end=${new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 3_600_000).toISOString()}`)));
    const viaApi = httpUnique.reduce((n, a) => n + Number(a.datos[0]?.cantidad ?? 0), 0);
    // The compaction job's fold keeps every total (checked again after it).
    const t1 = Date.now();
    while (await foldSlots(db, new Date(Date.now() + 7_200_000)) > 0);
    const foldSeconds = (Date.now() - t1) / 1000;
    const [afterFold] = (await db.execute(sql`select coalesce(sum(event_count), 0)::bigint as n, count(*)::int as rows from usage_rollups where metric_id <> ${msgs.id}`)).rows as Array<{ n: string; rows: number }>;
    const totalsOk = [Number(afterFold.n), Number(counted.rollups), Number(counted.raw), Number(counted.keys), viaApi, warm.aceptados + run.aceptados].every((n) => n === unique);
    const serverCpuMs = perEvent(apiMs + pgMs);
    const logLines = fs.readFileSync(service.logFile, 'utf8').split('\n').length - 1;
    const ingestion = {
      asRun: 'npm start (own process, worker in process, default log level into a file, embedded PostgreSQL)',
      acceptedEventsPerSec: Math.round(run.aceptados / run.seconds), eventsSentPerSec: Math.round(run.eventsSent / run.seconds), batches: run.batches,
      p50BatchMs: run.latencyMs.p50, p99BatchMs: run.latencyMs.p99, serverP50Ms: serverSide.p50, serverP99Ms: serverSide.p99, perSecond: run.perSecond, maxBatchMs: run.latencyMs.max, duplicates: run.duplicados, non200: run.non200 + run.errors,
      uniqueSent: unique, counted, countedViaApi: viaApi, totalsOk, rollupRowsAfterFold: afterFold.rows, foldSeconds,
      cpuMsPerAcceptedEvent: serverCpuMs, apiCpuMsPerEvent: perEvent(apiMs), ourPostgresCpuMsPerEvent: perEvent(pgMs),
      loadGeneratorCpuMsPerEvent: Number((run.cpuMs / Math.max(run.eventsSent, 1)).toFixed(4)), cpu, machine, loadAverage1m: load0, serviceLogLines: logLines,
      baseline, eventsPerRsaSign: baseline ? Number((baseline.msPerSign / serverCpuMs).toFixed(2)) : null,
    };
    console.log(`ingestion (${ingestion.asRun}): ${ingestion.acceptedEventsPerSec} accepted events/s (${ingestion.eventsSentPerSec} sent/s incl. 10 % repeats) from ${clients} clients, batch p50 ${run.latencyMs.p50} ms p99 ${run.latencyMs.p99} ms max ${run.latencyMs.max} ms (inside the service, from its log's responseTime: p50 ${serverSide.p50} ms p99 ${serverSide.p99} ms; the rest waits for the CPU or the socket); non-2xx ${ingestion.non200}${run.sampleError ? ` (${run.sampleError})` : ''}; totals ${totalsOk ? 'OK' : 'MISMATCH'} (unique ${unique}, rollups ${counted.rollups}, raw ${counted.raw}, keys ${counted.keys}, API ${viaApi})`);
    console.log(`  CPU ${serverCpuMs} ms per accepted event (service ${ingestion.apiCpuMsPerEvent} + its PostgreSQL ${ingestion.ourPostgresCpuMsPerEvent}; load generator ${ingestion.loadGeneratorCpuMsPerEvent} apart); baseline ${baseline ? `${baseline.what}: ${baseline.signsPerSec} signs/s, ${baseline.msPerSign} ms per sign → one event costs 1/${ingestion.eventsPerRsaSign} of an RSA-2048 signature` : 'unavailable (no openssl)'}; machine ${JSON.stringify(machine)}, load average ${load0.toFixed(2)} on ${os.cpus().length} cores; service log ${logLines} lines`);
    console.log(cpu);
    console.log(`per second (batches/p99 ms): ${run.perSecond.map((x) => `${x.batches}/${x.p99}`).join(' ')}`);
    if (!queryEvents) return { ingestion };

    const qc = (await call('POST', `/api/v1/contracts${q}`, { idCliente: customer.id, idExterno: 'Q-1', metricas: ['msgs'], inicio: '2026-01-01T00:00:00Z' })).id as number;
    const t0 = Date.now();
    await seedQueryContract(db, qc, msgs.id, company.id, queryEvents, raw);
    const seedSeconds = (Date.now() - t0) / 1000;
    const timeQuery = async (extra: string) => {
      const url = `${address}/api/v1/contracts/${qc}/usage?start=${QUERY_MONTH.start}&end=${QUERY_MONTH.end}&ventana=dia${extra}`;
      const times: number[] = [];
      let body: any;
      const c0 = service.cpu();
      for (let i = 0; i < 40; i++) {
        const s = performance.now();
        const r = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        body = await r.json();
        times.push(performance.now() - s);
      }
      // CPU of the service and its PostgreSQL per query: what a query costs on a core of its own, whatever the machine's load.
      const cpuMsPerQuery = Number(([...cpuDelta(c0, service.cpu()).values()].reduce((a, b) => a + b, 0) / 40).toFixed(1));
      const total = body.datos.reduce((n: number, d: { cantidad: string }) => n + Number(d.cantidad), 0);
      return { p50Ms: Number(pct(times, 0.5).toFixed(1)), p95Ms: Number(pct(times, 0.95).toFixed(1)), cpuMsPerQuery, rows: body.datos.length, total };
    };
    const byDay = await timeQuery('');
    const byDayRegion = await timeQuery('&group_by=region');
    const query = { events: queryEvents, rawSeeded: raw, seedSeconds, byDay, byDayRegion, totalsOk: byDay.total === queryEvents && byDayRegion.total === queryEvents };
    console.log(`usage query over ${queryEvents} events (${raw ? 'raw events + rollups' : 'rollups'} seeded in ${seedSeconds.toFixed(1)} s), a month by day: p50 ${byDay.p50Ms} ms p95 ${byDay.p95Ms} ms, CPU ${byDay.cpuMsPerQuery} ms per query (${byDay.rows} rows); by day and region: p50 ${byDayRegion.p50Ms} ms p95 ${byDayRegion.p95Ms} ms, CPU ${byDayRegion.cpuMsPerQuery} ms per query (${byDayRegion.rows} rows); totals ${query.totalsOk ? 'OK' : 'MISMATCH'}`);
    return { ingestion, query };
  } finally {
    await load?.close();
    await database.close();
    await service.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runUsageBench();
  process.exit(0);
}
