/**
 * The database-backed bench scenarios, run for a second each so that `npm test` notices when one of
 * them drifts from the service it measures (in session 16 `bench/webhooks.ts` still made 14-byte
 * secrets the engine had refused for weeks, and `npm run bench` hung). This checks that each one
 * completes and that what it counts is right (every request answered 2xx, every delivery made, the
 * serie contiguous); never how fast: speed is for `npm run bench` to print, not for a test to time.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runEmissionBench } from './emission.js';
import { runLifecycleBench } from './lifecycle.js';
import { runUsageBench } from './usage.js';
import { runWebhookBench } from './webhooks.js';
import { runUsagePricingBench } from './usage-pricing.js';

describe('bench scenarios (one short run each, no timing asserted)', () => {
  test('emission: issues e-Tickets over HTTP, all 2xx, numbering contiguous, figures printed', async () => {
    const r = await runEmissionBench({ seconds: 1, connections: 4, warmUpSeconds: 0.5, rawSignSeconds: 0.2 });
    assert.equal(r.non2xx, 0);
    assert.equal(r.errors, 0);
    assert.ok(r.receiptsPerSecond > 0, 'some receipts were issued');
    assert.ok(r.issuedOnSerie > 0);
    assert.equal(r.serieContiguousNoDuplicates, 1);
    assert.ok(r.rawRsaSignsPerSecondOneCore > 0);
    assert.ok(Number.isFinite(r.ratioReceiptsToRawSigns) && r.ratioReceiptsToRawSigns > 0);
    assert.ok(Number.isFinite(r.cpuMsPerReceipt) && r.cpuMsPerReceipt > 0);
  });

  test('lifecycle: the service as npm start runs it issues, DGI accepts every receipt, the backlog drains, memory is reported', async () => {
    const r = await runLifecycleBench({ seconds: 2, warmUpSeconds: 1, connections: 4, drainLimitSeconds: 60, settleSeconds: 3, threadMemory: true, quiet: true });
    assert.equal(r.non2xx, 0);
    assert.equal(r.errors, 0);
    assert.ok(r.issued > 0, 'some receipts were issued');
    assert.equal(r.rowsStored, r.issued, 'every 2xx receipt is stored, nothing else');
    assert.equal(r.accepted, r.issued, 'the simulated DGI accepted every receipt');
    assert.ok(r.rssStartedMb > 0 && r.rssIdleMb > 0 && r.rssAfterDrainMb > 0 && r.rssSettledMb > 0);
  });

  test('usage: every distinct event counted once (rollups, raw, keys, API), the query totals the seeded month', async () => {
    const { ingestion, query } = await runUsageBench({ seconds: 1, clients: 4, warmUpSeconds: 0.5, queryEvents: 100_000 });
    assert.equal(ingestion.non200, 0);
    assert.ok(ingestion.uniqueSent > 0);
    assert.equal(ingestion.totalsOk, true, JSON.stringify(ingestion.counted));
    assert.ok(ingestion.duplicates > 0, 'the repeats were answered duplicado');
    assert.equal(query?.totalsOk, true);
    assert.ok(ingestion.baseline === undefined || ingestion.eventsPerRsaSign! > 0, 'the baseline ratio is printed when openssl is there');
  });

  test('webhooks: every event is delivered to every endpoint', async () => {
    const r = await runWebhookBench({ events: 300, endpoints: 2, latencyEvents: 20, waitLimitMs: 30_000 });
    assert.equal(r.deliveries, 600);
    assert.ok(r.deliveriesPerSecond > 0);
    assert.ok(Number.isFinite(r.latencyP50Ms) && Number.isFinite(r.latencyP99Ms), 'every latency event was delivered');
  });

  test('usage pricing: rule evaluation and period rating + CFE build report CPU per call', async () => {
    const r = await runUsagePricingBench({ evaluations: 100, periods: 10 });
    assert.ok(Number.isFinite(r.ruleEvaluationCpuMicros) && r.ruleEvaluationCpuMicros >= 0);
    assert.ok(Number.isFinite(r.periodRateAndBuildCpuMicros) && r.periodRateAndBuildCpuMicros > 0);
  });
});
