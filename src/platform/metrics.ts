/**
 * Prometheus metrics (issue 44 point 5), prom-client. Off unless METRICS_TOKEN is set; then
 * `GET /metrics` answers the text format to `Authorization: Bearer <METRICS_TOKEN>` only.
 *
 * Three kinds of figures:
 * - counted as they happen in this process: HTTP requests by route (rate and latency), usage
 *   events by outcome, receipts by how their numbers were taken;
 * - read from the database at scrape time (`collectors`, one cheap query each): they are the same
 *   whichever process (API or `npm run worker`) did the work;
 * - the process itself: prom-client's default metrics (memory, CPU, event loop, GC) and the pool.
 *
 * One registry per app (tests build many apps in one process); process-wide counters are shared
 * by every registry.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import client from 'prom-client';
import type { Pool } from 'pg';
import { errors } from '../lib/errors.js';

/** Usage events received, by the outcome the ingestion gave each (aceptado, duplicado, conflicto, rechazado). */
export const usageEventsCounter = new client.Counter({ name: 'cfe_usage_events_total', help: 'Usage events received, by outcome', labelNames: ['estado'], registers: [] });

/**
 * Receipts stored by the emission batcher (issue 45), by how their number was taken: `forecast`
 * (sealed ahead with a forecast number, stored by one statement) or `locked` (the number reserved
 * under the CAE range's row lock and the receipt sealed while holding it: a lane's first receipts,
 * after a missed forecast, a failure in a batch). API processes issuing for the same series claim
 * disjoint numbers once they miss each other's forecasts, so a `locked` share that stays high points
 * at claims not stored in time (docs/ARCHITECTURE.md, "Several processes on one range").
 */
export const emissionReceiptsCounter = new client.Counter({ name: 'cfe_emission_receipts_total', help: 'Receipts stored by the emission batcher, by how their number was taken (forecast: sealed ahead; locked: sealed under the CAE range lock)', labelNames: ['path'], registers: [] });
/** Batches sealed ahead whose forecast numbers were no longer free (another process or a range change took them). */
export const emissionForecastsMissedCounter = new client.Counter({ name: 'cfe_emission_forecasts_missed_total', help: 'Batches sealed ahead whose forecast numbers had been taken (resealed under the CAE range lock)', registers: [] });
/**
 * Blocks of numbers claimed by contended lanes (several processes on one series), by how their turn came: `now` (every
 * earlier number was stored: stored with one statement), `passed` (another process took the numbers meanwhile),
 * `timeout` (the range's cursor stood still for the turn timeout with an earlier block not stored: its process died, a
 * receipt of it failed) or `failed` (a receipt of the block failed to seal). All but `now` go through the locked path.
 */
export const emissionClaimsCounter = new client.Counter({ name: 'cfe_emission_claims_total', help: 'Blocks of numbers claimed by contended emission lanes, by how their turn came (now, passed, timeout, failed)', labelNames: ['turn'], registers: [] });

/** A figure read from the database at scrape time: gauges named here are set by `collect`. */
export interface StateCollector {
  gauges: Array<{ name: string; help: string; labelNames?: string[] }>;
  /** Returns the values: [gauge name, labels, value]. */
  collect(): Promise<Array<[name: string, labels: Record<string, string>, value: number]>>;
}

export function registerMetrics(app: FastifyInstance, opts: { token: string | undefined; pool: Pool; collectors: StateCollector[] }): void {
  if (!opts.token) return;
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  registry.registerMetric(usageEventsCounter);
  registry.registerMetric(emissionReceiptsCounter);
  registry.registerMetric(emissionForecastsMissedCounter);
  registry.registerMetric(emissionClaimsCounter);

  const requests = new client.Histogram({
    name: 'cfe_http_request_duration_seconds',
    help: 'HTTP requests by route pattern, method and status (count = rate; buckets = latency)',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // The route pattern (`/api/v1/cfeemitido/:id`), never the raw URL: bounded label values.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (route !== '/metrics') requests.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });

  const pool = opts.pool;
  new client.Gauge({
    name: 'cfe_db_pool_connections', help: 'Database pool connections of this process (total, idle, waiting clients)', labelNames: ['state'], registers: [registry],
    collect() {
      this.set({ state: 'total' }, pool.totalCount);
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'waiting' }, pool.waitingCount);
    },
  });

  const gauges = new Map<string, client.Gauge>();
  for (const c of opts.collectors) {
    for (const g of c.gauges) gauges.set(g.name, new client.Gauge({ name: g.name, help: g.help, labelNames: g.labelNames ?? [], registers: [registry] }));
  }
  const scrapeErrors = new client.Counter({ name: 'cfe_metrics_collect_errors_total', help: 'Database figures that could not be read at a scrape', registers: [registry] });
  // Database figures are refreshed once per scrape, before the registry renders.
  async function collectState() {
    await Promise.all(opts.collectors.map(async (c) => {
      try {
        const values = await c.collect();
        for (const g of c.gauges) gauges.get(g.name)!.reset();
        for (const [name, labels, value] of values) gauges.get(name)?.set(labels, value);
      } catch {
        scrapeErrors.inc();
      }
    }));
  }

  const expected = Buffer.from(`Bearer ${opts.token}`);
  app.get('/metrics', {
    config: { public: true },
    schema: {
      tags: ['Salud'],
      summary: 'Prometheus metrics (text format)',
      description: 'Off unless METRICS_TOKEN is set (404 then); requires `Authorization: Bearer <METRICS_TOKEN>` (401 NO_AUTENTICADO otherwise). See README "Metrics".',
      security: [],
      hide: false,
    },
  }, async (request, reply) => {
    const given = Buffer.from(request.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw errors.NO_AUTENTICADO('Las métricas requieren Authorization: Bearer con METRICS_TOKEN.');
    await collectState();
    return reply.header('content-type', registry.contentType).send(await registry.metrics());
  });
}
