/**
 * `npm run fleet` (issue 45 point 3): the fleet topology on the machine's PostgreSQL, twice on fresh
 * databases: 1 API process, then 3, each with 2 workers and the DGI simulator as its own process,
 * run from the production build as `npm start` / `npm run worker` run them, with a pool of 12
 * connections each (the test keeps 6: it shares the server with the rest of the suite). First a throughput phase
 * (emitir only, the connections split over the API processes, --seconds measured), then the
 * scenario: drives emission (Idempotency-Key replays on another process), usage events (each batch to two
 * processes) and webhooks round-robin; at 15 % of the load the periods of --contracts usage
 * contracts become due and their close is queued on both workers (scripts/fleet/periods.ts); in the
 * 3-process run, once the close is issuing (at 40 % of the load or later: the rest of the load waits
 * for it), kills one API process and one worker with SIGKILL; prints the invariants and receipts/s
 * side by side with the raw single-core RSA-2048 signing rate measured in this run, and their ratio.
 * Options: --seconds 20 --receipts 600 --concurrency 32 --contracts 100 --port 3106 (APIs on port..port+2, or --ports a,b,c) --sim-port 3116.
 * DATABASE_URL: the server to create the throw-away databases on (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startFleet } from './fleet/topology.ts';
import { closeUnderWay, startClose } from './fleet/periods.ts';
import { audit, drive, queueJobs, revocationAcrossProcesses, usageDefinitionsAcrossProcesses, settle, setUp, ticket, type Invariant } from './fleet/scenario.ts';
import { openLoad, type LoadResult as SpeedResult } from '../bench/load.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '20' }, receipts: { type: 'string', default: '600' }, concurrency: { type: 'string', default: '32' }, contracts: { type: 'string', default: '100' }, port: { type: 'string', default: '3106' }, 'sim-port': { type: 'string', default: '3116' }, ports: { type: 'string' } } });
const receipts = Number(values.receipts);
const concurrency = Number(values.concurrency);
const basePort = Number(values.port);
/** The 3 API ports: --ports a,b,c, else --port and the next two. */
const apiPorts = values.ports ? values.ports.split(',').map(Number) : [basePort, basePort + 1, basePort + 2];
const server = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');

/** RSA-2048 PKCS#1 v1.5 SHA-256 signatures per second on this thread (one core), for 2 s. */
function rawRsaRate(): number {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const data = Buffer.alloc(512, 7);
  const t0 = process.hrtime.bigint();
  let n = 0;
  while (process.hrtime.bigint() - t0 < 2_000_000_000n) {
    sign('sha256', data, privateKey);
    n++;
  }
  return n / (Number(process.hrtime.bigint() - t0) / 1e9);
}

async function admin(text: string) {
  const c = new pg.Client({ connectionString: server.toString() });
  await c.connect();
  try { await c.query(text); } finally { await c.end(); }
}

const METRICS_TOKEN = randomBytes(16).toString('hex');
/**
 * The emission batcher's counters summed over the API processes' /metrics: receipts sealed ahead
 * (forecast) or under the CAE range lock (locked), and forecasts missed because another process took
 * the numbers, and the blocks contended lanes claimed by how their turn came: what several processes issuing for the
 * same series cost each other (docs/DEPLOYMENT.md).
 */
async function emissionPaths(fleet: Awaited<ReturnType<typeof startFleet>>) {
  const sum = { forecast: 0, locked: 0, missed: 0, now: 0, passed: 0, timeout: 0, failed: 0 };
  for (const api of fleet.apis) {
    const text = await (await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const sample = (name: string) => Number(/ (\S+)$/.exec(text.split('\n').find((l) => l.startsWith(`${name} `)) ?? '')?.[1] ?? 0);
    sum.forecast += sample('cfe_emission_receipts_total{path="forecast"}');
    sum.locked += sample('cfe_emission_receipts_total{path="locked"}');
    sum.missed += sample('cfe_emission_forecasts_missed_total');
    for (const turn of ['now', 'passed', 'timeout', 'failed'] as const) sum[turn] += sample(`cfe_emission_claims_total{turn="${turn}"}`);
  }
  return sum;
}

/**
 * The throughput phase, before the faults: emitir only, `concurrency` keep-alive connections split
 * evenly over the API processes (what a load balancer does), bench/load.ts's lean client, 3 s of
 * warm-up then `seconds` measured. p99 is the highest of the processes' p99s (an upper bound).
 */
async function throughput(fleet: Awaited<ReturnType<typeof startFleet>>, s: Awaited<ReturnType<typeof setUp>>, seconds: number) {
  const per = Math.ceil(concurrency / fleet.apis.length);
  const bodies = s.issuers.map((c, i) => JSON.stringify(ticket(c.id, i)));
  const loads = await Promise.all(fleet.apis.map((api) => openLoad({ url: `${api.url}/api/v1/comprobante/emitir`, method: 'POST', headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' }, bodies }, { connections: per })));
  try {
    await Promise.all(loads.map((l) => l.run(3)));
    const before = await emissionPaths(fleet);
    const results: SpeedResult[] = await Promise.all(loads.map((l) => l.run(seconds)));
    const after = await emissionPaths(fleet);
    const ok = results.reduce((a, r) => a + r.ok2xx, 0);
    const paths = Object.fromEntries(Object.keys(after).map((k) => [k, after[k as keyof typeof after] - before[k as keyof typeof before]])) as typeof after;
    return { perSecond: ok / Math.max(...results.map((r) => r.seconds)), p99: Math.max(...results.map((r) => r.latencyMs.p99)), failed: results.reduce((a, r) => a + r.non2xx + r.errors, 0), connections: per * fleet.apis.length, paths };
  } finally {
    await Promise.all(loads.map((l) => l.close()));
  }
}

async function run(apis: number, kill: boolean) {
  const name = `cfe_fleet_${process.pid}_${apis}`;
  await admin(`create database "${name}"`);
  const url = new URL(server.toString());
  url.pathname = `/${name}`;
  let fleet: Awaited<ReturnType<typeof startFleet>> | undefined;
  try {
    const f = (fleet = await startFleet({ databaseUrl: url.toString(), ports: apiPorts.slice(0, apis), simulatorPort: Number(values['sim-port']), workers: 2, entry: 'dist', env: { DB_POOL_MAX: '12', METRICS_TOKEN } }));
    const s = await setUp(f, 4, { contracts: Number(values.contracts) });
    try {
      const speed = await throughput(f, s, Number(values.seconds));
      let takeover = '';
      let killedAt: number | undefined;
      let reached!: () => void;
      const started = new Promise<void>((r) => (reached = r));
      const w = f.workers[0]!;
      const victimPool = (await s.database.pool.query('select job_pool_id from service_processes where pid = $1', [w.child.pid])).rows[0]?.job_pool_id as string | undefined;
      const killing = (async () => {
        await started;
        // The contract periods made due and their close queued on both workers; once it issues
        // CFEs (on the worker about to die, if it takes an issue job), the other jobs, then the kills.
        await startClose(s.database.db, s.call, s.token, s.periods);
        if (kill) await closeUnderWay(s.database.db, s.periods, victimPool);
        await queueJobs(s, 'recurring_tick', 3);
        await queueJobs(s, 'dailyReport_daily', 3);
        await queueJobs(s, 'issuerRegistry_sync', 3);
        if (kill) {
          const t0 = (killedAt = Date.now());
          f.apis[1]!.child.kill('SIGKILL');
          w.child.kill('SIGKILL');
          void (async () => {
            for (;;) {
              const r = await s.database.pool.query('select count(*)::int as n from service_processes where pid = $1', [w.child.pid]);
              if (r.rows[0].n === 0) return void (takeover = `${((Date.now() - t0) / 1000).toFixed(1)} s`);
              await new Promise((res) => setTimeout(res, 200));
            }
          })();
        }
      })();
      killing.catch(() => undefined); // awaited below
      const load = await drive(fleet, s, {
        receipts, concurrency, tag: `fleet-${apis}`,
        onProgress: (done) => { if (done === Math.max(1, Math.floor(receipts * 0.15))) reached(); },
        hold: { from: Math.floor(receipts * 0.4), until: killing },
      });
      await killing;
      await settle(s, 180_000);
      const invariants: Invariant[] = await audit(fleet, s, { ...load, killedAt });
      invariants.push(await revocationAcrossProcesses(fleet, s), await usageDefinitionsAcrossProcesses(fleet, s));
      // Table and index bytes per issued CFE of this sample (docs/DEPLOYMENT.md extrapolates them).
      const cfes = (await s.database.pool.query('select count(*)::int as n from issued_cfes')).rows[0].n as number;
      // Dead row versions count too: each state change of a receipt rewrites its row (estado is indexed, so no HOT update).
      const sizes = (await s.database.pool.query(`select c.relname as t, pg_relation_size(c.oid)::bigint as heap, pg_indexes_size(c.oid)::bigint as idx, pg_total_relation_size(c.oid)::bigint as total,
          coalesce(st.n_live_tup, 0)::bigint as live, coalesce(st.n_dead_tup, 0)::bigint as dead
        from pg_class c left join pg_stat_user_tables st on st.relid = c.oid
        where c.relkind = 'r' and c.relnamespace = 'public'::regnamespace order by total desc limit 10`)).rows;
      const [row] = (await s.database.pool.query(`select avg(pg_column_size(c.*))::int as row_bytes, avg(pg_column_size(c.xml))::int as xml_stored, avg(octet_length(c.xml))::int as xml_raw from issued_cfes c`)).rows;
      const rowNotes = [`issued_cfes live row ${row.row_bytes} B (xml ${row.xml_raw} B raw, ${row.xml_stored} B stored)`];
      // An envelope's live rows (head, DGI's two signed answers; TOAST included) per CFE it holds: no dead versions.
      const [env] = (await s.database.pool.query(`select (sum(pg_column_size(e.*)) / nullif(sum(e.cant_cfe), 0))::int as per_cfe, avg(e.cant_cfe)::numeric(6,1) as cfes from dgi_envelopes e`)).rows;
      rowNotes.push(`dgi_envelopes live rows ${env.per_cfe} B per CFE (${env.cfes} CFEs per envelope)`);
      return { load, invariants, takeover, cfes, sizes, rowNotes, speed };
    } finally {
      await s.receiver.close();
      await s.database.close();
    }
  } finally {
    await fleet?.stop();
    await admin(`drop database if exists "${name}" with (force)`);
  }
}

const rsa = rawRsaRate();
console.log(`raw RSA-2048 signing, one core: ${rsa.toFixed(0)} signatures/s`);
const one = await run(1, false);
const three = await run(3, true);
const rate = (r: typeof one) => r.speed.perSecond;
const nameWidth = Math.max(...three.invariants.map((r) => r.name.length));
console.log(`\n${'invariant'.padEnd(nameWidth)} | 1 API | 3 APIs (1 API + 1 worker killed)`);
for (let i = 0; i < three.invariants.length; i++) {
  const a = one.invariants[i]!;
  const b = three.invariants[i]!;
  console.log(`${b.name.padEnd(nameWidth)} | ${(a.ok ? 'ok' : 'FAIL').padEnd(5)} | ${b.ok ? 'ok' : 'FAIL'}: ${b.detail}`);
}
const lockedShare = (r: typeof one) => `${r.speed.paths.locked}/${r.speed.paths.locked + r.speed.paths.forecast} (${r.speed.paths.missed} missed)`;
const claimTurns = (r: typeof one) => { const p = r.speed.paths; return p.now + p.passed + p.timeout + p.failed ? `${p.now} in turn, ${p.passed} passed, ${p.timeout} timed out, ${p.failed} failed` : 'none'; };
const figures: Array<[label: string, oneApi: string, threeApis: string]> = [
  [`receipts/s, emitir only (${one.speed.connections} / ${three.speed.connections} conn.)`, rate(one).toFixed(1), rate(three).toFixed(1)],
  ['p99 ms (highest of the processes)', one.speed.p99.toFixed(1), three.speed.p99.toFixed(1)],
  ['receipts sealed under the CAE lock', lockedShare(one), lockedShare(three)],
  ['blocks claimed by contended lanes', claimTurns(one), claimTurns(three)],
  ['requests failed in that phase', String(one.speed.failed), String(three.speed.failed)],
  ['receipts/s, mixed scenario (with waits)', (one.load.receipts / one.load.seconds).toFixed(1), (three.load.receipts / three.load.seconds).toFixed(1)],
  ['ratio to raw RSA-2048 (one core)', (rate(one) / rsa).toFixed(3), (rate(three) / rsa).toFixed(3)],
  ['requests retried on another process', String(one.load.retriedOnAnotherApi), String(three.load.retriedOnAnotherApi)],
  ['dead worker swept (jobs back in queue)', '-', three.takeover || 'not seen'],
];
const labelWidth = Math.max(...figures.map(([label]) => label.length));
const oneWidth = Math.max(5, ...figures.map(([, a]) => a.length));
console.log(`\n${'figure'.padEnd(labelWidth)} | ${'1 API'.padEnd(oneWidth)} | 3 APIs`);
for (const [label, a, b] of figures) console.log(`${label.padEnd(labelWidth)} | ${a.padEnd(oneWidth)} | ${b}`);
console.log(`\nbytes per issued CFE (3-API run, ${three.cfes} CFEs; small samples overstate the fixed pages):`);
for (const r of three.sizes) console.log(`  ${String(r.t).padEnd(32)} heap ${(Number(r.heap) / three.cfes).toFixed(0).padStart(6)}  indexes ${(Number(r.idx) / three.cfes).toFixed(0).padStart(6)}  total ${(Number(r.total) / three.cfes).toFixed(0).padStart(6)}  rows live ${r.live} dead ${r.dead}`);
for (const note of three.rowNotes) console.log(`  ${note}`);
const failed = [...one.invariants, ...three.invariants].filter((r) => !r.ok);
process.exit(failed.length ? 1 : 0);
