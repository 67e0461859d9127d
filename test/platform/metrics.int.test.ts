/** GET /metrics (issue 44 point 5): off without METRICS_TOKEN, bearer-protected, figures that move under a small load. */
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/app.js';
import { send, usageCompany } from '../../src/modules/usage/usage.test-helpers.js';

const TOKEN = 'metrics-token-0123456789';
let t: TestApp;
let admin: string;

async function scrape(): Promise<string> {
  const r = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(r.statusCode, 200, r.body);
  assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return r.body;
}
/** The value of one sample, `name{labels}` exactly as exposed (labels in declaration order); 0 when absent. */
function value(text: string, sample: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

before(async () => {
  t = await createTestApp({ METRICS_TOKEN: TOKEN });
  admin = await t.adminToken();
});
after(() => t.close());

describe('happy path', () => {
  test('request counts, usage outcomes, job queue and pool figures move after a small load', async () => {
    const before = await scrape();
    for (let i = 0; i < 5; i++) assert.equal((await t.call(undefined, 'GET', '/healthz')).status, 200);
    const company = await usageCompany(t, admin, [{ codigo: 'calls', nombre: 'Llamadas', unidad: 'llamadas', agregacion: 'count' }]);
    await company.contract('CTR-M', ['calls']);
    const at = new Date(Date.now() - 60_000).toISOString();
    const batch = [
      ...[1, 2, 3].map((i) => ({ idTransaccion: `m-${i}`, idExternoContrato: 'CTR-M', metrica: 'calls', fechaHora: at })),
      { idTransaccion: 'm-bad', idExternoContrato: 'CTR-M', metrica: 'no-such-metric', fechaHora: at },
    ];
    const r = await send(t, admin, company.companyId, batch);
    assert.equal(r.status, 207, JSON.stringify(r.body)); // multi-status: one refused
    await t.db.execute(sql`select graphile_worker.add_job('metrics.test-task', '{}'::json)`);
    await t.db.execute(sql`select graphile_worker.add_job('metrics.test-task', '{}'::json, run_at => now() + interval '1 hour')`);

    const now = await scrape();
    const healthz = 'cfe_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}';
    assert.equal(value(now, healthz) - value(before, healthz), 5);
    assert.ok(value(now, 'cfe_http_request_duration_seconds_bucket{le="10",method="GET",route="/healthz",status="200"}') >= 5, 'latency buckets by route');
    assert.equal(value(now, 'cfe_usage_events_total{estado="aceptado"}') - value(before, 'cfe_usage_events_total{estado="aceptado"}'), 3);
    assert.equal(value(now, 'cfe_usage_events_total{estado="rechazado"}') - value(before, 'cfe_usage_events_total{estado="rechazado"}'), 1);
    assert.equal(value(now, 'cfe_jobs_queued{task="metrics.test-task",state="ready"}'), 1);
    assert.equal(value(now, 'cfe_jobs_queued{task="metrics.test-task",state="scheduled"}'), 1);
    assert.ok(value(now, 'cfe_db_pool_connections{state="total"}') >= 1);
    assert.ok(value(now, 'process_resident_memory_bytes') > 10_000_000);
    for (const name of ['cfe_issued_receipts_waiting', 'cfe_dgi_envelopes_in_flight', 'cfe_webhook_backlog', 'cfe_mailbox_poll_lag_seconds', 'cfe_mailboxes_failing', 'cfe_webhook_endpoints_exhausted']) {
      assert.match(now, new RegExp(`^# TYPE ${name} gauge$`, 'm'));
    }
    for (const name of ['cfe_emission_receipts_total', 'cfe_emission_forecasts_missed_total', 'cfe_emission_claims_total']) assert.match(now, new RegExp(`^# TYPE ${name} counter$`, 'm'));
    assert.equal(value(now, 'cfe_metrics_collect_errors_total'), 0, 'every database figure was read');
  });
});

describe('access', () => {
  test('without the token: 401 NO_AUTENTICADO; a wrong one too', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: `Bearer ${TOKEN}x` }]) {
      const r = await t.app.inject({ method: 'GET', url: '/metrics', headers });
      assert.equal(r.statusCode, 401);
      assert.equal(r.json().code, 'NO_AUTENTICADO');
    }
  });

  test('off by default: no /metrics without METRICS_TOKEN', async () => {
    const other = await createTestApp();
    try {
      const r = await other.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(r.statusCode, 404);
    } finally {
      await other.close();
    }
  });
});
