/**
 * Webhook delivery bench (issue 8 point 5): deliveries/s to a local receiver that answers 200 at
 * once, and the time from event (commit) to first attempt, p50/p99.
 * Standalone: `npx tsx bench/webhooks.ts` (throw-away embedded PostgreSQL, or DATABASE_URL).
 * Env: BENCH_WEBHOOK_EVENTS (default 20000), BENCH_WEBHOOK_ENDPOINTS (default 2), BENCH_LATENCY_EVENTS (default 1000).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { connectDatabase } from '../src/platform/db/client.js';
import { openBenchDatabase } from './support.js';
import { companies } from '../src/modules/companies/companies.tables.js';
import { insertEvents } from '../src/modules/events/events.repository.js';
import { insertEndpoint } from '../src/modules/webhooks/webhooks.repository.js';
import { createDeliveryEngine } from '../src/modules/webhooks/delivery-engine.js';
import { decryptSecret, encryptSecret } from '../src/modules/certificates/certificates.crypto.js';
import { silentLogger } from '../src/modules/webhooks/webhooks.test-helpers.js';

/** How long a phase may wait for its deliveries before the bench reports what the attempts say. */
const WAIT_LIMIT_MS = 120_000;

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

export async function runWebhookBench(opts: { events?: number; endpoints?: number; latencyEvents?: number; waitLimitMs?: number } = {}) {
  const waitLimitMs = opts.waitLimitMs ?? WAIT_LIMIT_MS;
  const events = opts.events ?? Number(process.env.BENCH_WEBHOOK_EVENTS ?? 20_000);
  const endpoints = opts.endpoints ?? Number(process.env.BENCH_WEBHOOK_ENDPOINTS ?? 2);
  const latencyEvents = opts.latencyEvents ?? Number(process.env.BENCH_LATENCY_EVENTS ?? 1000);
  const dbh = await openBenchDatabase('bench_webhooks');
  const database = connectDatabase(dbh.url, { max: 20 });
  const stop = async () => {
    await database.close();
    await dbh.stop();
  };

  const firstSeen = new Map<string, number>();
  let received = 0;
  let onReceived: (() => void) | undefined;
  const server = http.createServer((req, res) => {
    const id = req.headers['webhook-id'] as string;
    if (!firstSeen.has(id)) firstSeen.set(id, Date.now());
    received++;
    req.resume();
    req.on('end', () => {
      res.writeHead(200).end();
      onReceived?.();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
  // Bounded: a delivery that fails for good (a refused secret, say) is never retried to this
  // receiver, and an unbounded wait hung `npm run bench` here instead of reporting it.
  const waitFor = (n: number, what: string) => new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: ${received} of ${n} deliveries received after ${WAIT_LIMIT_MS / 1000} s`)), WAIT_LIMIT_MS);
    onReceived = () => { if (received >= n) { clearTimeout(timer); resolve(); } };
    onReceived();
  });

  const db = database.db;
  const [company] = await db.insert(companies).values({ rut: '219999830019', razonSocial: 'Bench S.A.' }).returning();
  // Standard Webhooks secrets must decode to at least 24 bytes (the engine refuses shorter ones).
  for (let i = 0; i < endpoints; i++) await insertEndpoint(db, { companyId: company.id, url, events: ['Cfe.Emitido'], secret: 'whsec_' + Buffer.from(`bench-secret-${i}`.padEnd(32, '.')).toString('base64') });
  const data = { idCfeEmitido: 1, tipoCfe: 111, serie: 'A', numero: 1, total: '1220.00' };

  // 1. Throughput: a backlog of events, then the engine drains it.
  for (let i = 0; i < events; i += 1000) {
    await insertEvents(db, Array.from({ length: Math.min(1000, events - i) }, () => ({ companyId: company.id, type: 'Cfe.Emitido', data })));
  }
  // Secrets sealed as in production (the rows above are stored in clear, as before issue 28: start() seals them).
  const key = randomBytes(32);
  const secrets = { seal: (x: string) => encryptSecret(key, x), unseal: (x: string) => decryptSecret(key, x) };
  const engine = createDeliveryEngine({ database, logger: silentLogger, secrets, timeoutMs: 10_000, allowPrivateUrls: true, maxInFlight: Number(process.env.BENCH_WEBHOOK_IN_FLIGHT ?? 512), pollIntervalMs: 200 });
  const closeAll = async () => {
    await engine.stop();
    await new Promise<void>((r) => server.close(() => r()));
    server.closeAllConnections();
    await stop();
  };
  const failWith = async (err: Error): Promise<never> => {
    const attempts = (await db.execute(sql`select outcome, error, count(*)::int as n from webhook_attempts group by 1, 2 order by 3 desc limit 3`)).rows;
    await closeAll();
    throw new Error(`${err.message}; attempts by outcome: ${JSON.stringify(attempts)}`);
  };
  const t0 = Date.now();
  await engine.start();
  await waitFor(events * endpoints, 'throughput').catch(failWith);
  const seconds = (Date.now() - t0) / 1000;
  const perSecond = Math.round((events * endpoints) / seconds);

  // 2. Latency: events committed one by one at ~200/s while the engine idles between them.
  firstSeen.clear();
  const created = new Map<string, number>();
  const base = received;
  for (let i = 0; i < latencyEvents; i++) {
    const [row] = await insertEvents(db, [{ companyId: company.id, type: 'Cfe.Emitido', data }]);
    created.set(`evt_${row.id}`, Date.now());
    await new Promise((r) => setTimeout(r, 5));
  }
  await waitFor(base + latencyEvents * endpoints, 'latency').catch(failWith);
  const latencies = [...created].map(([id, at]) => (firstSeen.get(id) ?? NaN) - at).sort((a, b) => a - b);

  await closeAll();
  const result = { deliveries: events * endpoints, seconds, deliveriesPerSecond: perSecond, latencyP50Ms: percentile(latencies, 50), latencyP99Ms: percentile(latencies, 99) };
  console.log(`webhooks: ${result.deliveries} deliveries in ${seconds.toFixed(2)} s = ${perSecond} deliveries/s`);
  console.log(`webhooks: event → first attempt over ${latencies.length} events: p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms`);
  return result;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runWebhookBench().then(() => process.exit(0), (err) => {
    console.error(err);
    process.exit(1);
  });
}
