/**
 * The continuous delivery loop (start/stop) against the real app: what must never stop it or make
 * it spin. delivery.int.test.ts covers the delivery rules through tick().
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { fanOut } from './deliveries.repository.js';
import { createDeliveryEngine } from './delivery-engine.js';
import { webhookEndpoints } from './webhooks.tables.js';
import { silentLogger, startReceiver } from './webhooks.test-helpers.js';

let t: TestApp;
let admin: string;
const receiver = await startReceiver();

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
});
after(async () => {
  await receiver.close();
  await t.close();
});

async function endpoint(tag: string, extra: Record<string, unknown> = {}) {
  const company = await insertCompany(t);
  const res = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${company.id}`, { url: receiver.url, events: ['Cfe.Emitido'], headers: { 'X-Tag': tag }, ...extra });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { companyId: company.id, endpointId: res.body.id as number, received: () => receiver.received.filter((r) => r.headers['x-tag'] === tag) };
}

async function emit(companyId: number, n = 1) {
  await t.db.transaction(async (tx) => {
    for (let i = 0; i < n; i++) await t.modules.services.events.record(tx, { type: 'Cfe.Emitido', companyId, resource: { i } });
  });
}

async function statuses(endpointId: number): Promise<string[]> {
  const res = await t.db.execute(sql`select status from webhook_deliveries where endpoint_id = ${endpointId} order by id`);
  return (res.rows as Array<{ status: string }>).map((r) => r.status);
}

async function until(what: string, check: () => Promise<boolean> | boolean, ms: number) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('happy path', () => {
  it('wakes on the NOTIFY of an event an endpoint subscribes to, and not for events nobody subscribes to (migration 0047)', { timeout: 30_000 }, async () => {
    const subscribed = await endpoint('notify');
    const unsubscribed = await insertCompany(t);
    // No poll within the test: only a notification can wake the loop. Every iteration reads the clock.
    let clockReads = 0;
    const engine = createDeliveryEngine({ database: t.database, logger: silentLogger, secrets: t.modules.services.secretBox, timeoutMs: 2000, allowPrivateUrls: true, pollIntervalMs: 60_000, now: () => (clockReads++, new Date()) });
    await engine.start();
    try {
      await until('the engine is idle after its first pass', () => clockReads > 0, 5000);
      await new Promise((r) => setTimeout(r, 300));
      const idle = clockReads;
      for (let i = 0; i < 10; i++) await emit(unsubscribed.id, 3);
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(clockReads, idle, 'ten transactions of events nobody subscribes to woke the engine');
      await emit(subscribed.companyId);
      await until('the subscribed event is delivered without waiting for the poll', () => subscribed.received().length === 1, 5000);
    } finally {
      await engine.stop();
    }
    assert.deepEqual(await statuses(subscribed.endpointId), ['entregado']);
  });
});

describe('errors', () => {
  it('endpoints stored with headers undici refuses (more than its 128 connections per origin) fail at once and never stop deliveries to other companies', { timeout: 60_000 }, async () => {
    const bad = await endpoint('bad');
    // Rows stored before registration validated header names and values.
    await t.db.update(webhookEndpoints).set({ headers: { 'X Bad': 'v', 'X-Tag': 'bad' } }).where(eq(webhookEndpoints.id, bad.endpointId));
    const good = await endpoint('good');
    await emit(bad.companyId, 140);
    const engine = createDeliveryEngine({ database: t.database, logger: silentLogger, secrets: t.modules.services.secretBox, timeoutMs: 2000, allowPrivateUrls: true, pollIntervalMs: 100 });
    await engine.start();
    try {
      await until('the 140 deliveries of the bad endpoint end', async () => (await statuses(bad.endpointId)).filter((s) => s === 'fallido').length === 140, 20_000);
      await emit(good.companyId, 3);
      await until('the other company receives its events', () => good.received().length === 3, 10_000);
    } finally {
      await engine.stop();
    }
    assert.equal(bad.received().length, 0);
    const list = await t.call(admin, 'GET', `/api/v1/webhooks/${bad.endpointId}/entregas?length=1`);
    assert.equal(list.body.data[0].status, 'fallido');
    assert.match(list.body.data[0].intentos[0].error, /Encabezados no válidos en el webhook \(X Bad\)/);
    assert.deepEqual(await statuses(good.endpointId), ['entregado', 'entregado', 'entregado']);
  });

  it('an attempt that throws unexpectedly gives its in-flight slot back (maxInFlight 1: one leaked slot would stop the loop)', { timeout: 30_000 }, async () => {
    const first = await endpoint('throws');
    const second = await endpoint('after-throw');
    await emit(first.companyId);
    // The clock throws once, when read by the attempt itself (deliverOne), not by the loop.
    let armed = true;
    const now = () => {
      if (armed && new Error().stack?.includes('deliverOne')) {
        armed = false;
        throw new Error('clock failure inside an attempt');
      }
      return new Date();
    };
    const engine = createDeliveryEngine({ database: t.database, logger: silentLogger, secrets: t.modules.services.secretBox, timeoutMs: 2000, allowPrivateUrls: true, pollIntervalMs: 100, maxInFlight: 1, now });
    await engine.start();
    try {
      await until('the throwing attempt happened', () => !armed, 5000);
      await emit(second.companyId);
      await until('the next delivery still goes out', () => second.received().length === 1, 5000);
    } finally {
      await engine.stop();
    }
    // The failed attempt sent nothing and recorded nothing: its row stays leased and falls due again after the lease.
    assert.equal(first.received().length, 0);
    assert.deepEqual(await statuses(first.endpointId), ['pendiente']);
  });

  it('an endpoint stored with a whsec_ secret that does not decode fails without sending (never signed with an empty key)', async () => {
    const ep = await endpoint('bad-secret');
    await t.db.update(webhookEndpoints).set({ secret: 'whsec_!!!!????' }).where(eq(webhookEndpoints.id, ep.endpointId));
    await emit(ep.companyId);
    const engine = createDeliveryEngine({ database: t.database, logger: silentLogger, secrets: t.modules.services.secretBox, timeoutMs: 2000, allowPrivateUrls: true });
    try {
      await engine.drain();
    } finally {
      await engine.close();
    }
    assert.equal(ep.received().length, 0);
    const list = await t.call(admin, 'GET', `/api/v1/webhooks/${ep.endpointId}/entregas`);
    assert.equal(list.body.data[0].status, 'fallido');
    assert.match(list.body.data[0].intentos[0].error, /secreto whsec_/);
  });

  it('a pending delivery of a disabled endpoint does not make the loop spin; it is sent when the endpoint is enabled again', { timeout: 30_000 }, async () => {
    const ep = await endpoint('paused');
    await emit(ep.companyId);
    await fanOut(t.db, new Date(), 1000);
    assert.equal((await t.call(admin, 'PATCH', `/api/v1/webhooks/${ep.endpointId}`, { enabled: false })).status, 200);
    assert.deepEqual(await statuses(ep.endpointId), ['pendiente']);
    // Every loop iteration reads the clock: count the reads.
    let clockReads = 0;
    const engine = createDeliveryEngine({ database: t.database, logger: silentLogger, secrets: t.modules.services.secretBox, timeoutMs: 2000, allowPrivateUrls: true, pollIntervalMs: 500, now: () => (clockReads++, new Date()) });
    await engine.start();
    try {
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(clockReads < 60, `the loop ran ${clockReads} clock reads in 1.5 s (spinning)`);
      assert.equal(ep.received().length, 0);
      assert.deepEqual(await statuses(ep.endpointId), ['pendiente']);
      assert.equal((await t.call(admin, 'PATCH', `/api/v1/webhooks/${ep.endpointId}`, { enabled: true })).status, 200);
      await until('the paused delivery is sent after re-enabling', () => ep.received().length === 1, 5000);
    } finally {
      await engine.stop();
    }
    assert.deepEqual(await statuses(ep.endpointId), ['entregado']);
  });
});
