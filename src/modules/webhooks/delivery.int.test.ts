import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { createDeliveryEngine, type DeliveryEngine } from './delivery-engine.js';
import { RETRY_DELAYS_SECONDS } from './retry-policy.js';
import { silentLogger, startReceiver, type Answer } from './webhooks.test-helpers.js';
import { sealLegacySecrets } from './webhooks.repository.js';
import { webhookEndpoints } from './webhooks.tables.js';
import { eq, sql } from 'drizzle-orm';
import { pino } from 'pino';

let t: TestApp;
let admin: string;
let clock: Date;
let engine: DeliveryEngine;
const receiver = await startReceiver();
const SECRET = 'whsec_' + Buffer.from('a-very-secret-key-for-tests').toString('base64');

function newEngine(timeoutMs = 400) {
  return createDeliveryEngine({ database: t.database, logger: silentLogger, secrets: t.modules.services.secretBox, timeoutMs, allowPrivateUrls: true, now: () => clock });
}

/** A company with one endpoint subscribed to Cfe.Emitido, answering with `answer`. */
async function setup(answer: (n: number) => Answer, extra: Record<string, unknown> = {}) {
  const company = await insertCompany(t);
  let n = 0;
  const tag = `c${company.id}`;
  receiver.answer = (r) => (r.headers['x-tag'] === tag ? answer(++n) : 200);
  const res = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${company.id}`, { url: receiver.url, events: ['Cfe.Emitido'], secret: SECRET, headers: { 'X-Tag': tag }, ...extra });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const mine = () => receiver.received.filter((r) => r.headers['x-tag'] === tag);
  return { companyId: company.id, endpointId: res.body.id as number, mine };
}

async function emit(companyId: number, resource: Record<string, unknown> = { idCfeEmitido: 1 }) {
  return t.db.transaction((tx) => t.modules.services.events.record(tx, { type: 'Cfe.Emitido', companyId, resource }));
}

async function deliveries(endpointId: number) {
  const res = await t.call(admin, 'GET', `/api/v1/webhooks/${endpointId}/entregas`);
  assert.equal(res.status, 200);
  return res.body.data as any[];
}

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  clock = new Date();
  engine = newEngine();
});
after(async () => {
  await engine.close();
  await receiver.close();
  await t.close();
});

describe('happy path', () => {
  it('stores the secret sealed under MASTER_KEY; a row left in clear is sealed by the startup data step and still signs', async () => {
    const { companyId, endpointId, mine } = await setup(() => 200);
    const [row] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId));
    assert.equal(row.secret, null);
    assert.ok(row.secretSealed && !row.secretSealed.includes(SECRET) && !row.secretSealed.includes(SECRET.slice(6)));
    assert.equal(t.modules.services.secretBox.unseal(row.secretSealed), SECRET);

    // As migration 0024 leaves a row registered before it: clear secret, nothing sealed.
    await t.db.update(webhookEndpoints).set({ secret: SECRET, secretSealed: null }).where(eq(webhookEndpoints.id, endpointId));
    assert.equal((await t.call(admin, 'GET', `/api/v1/webhooks/${endpointId}`)).body.hasSecret, true);
    assert.equal(await sealLegacySecrets(t.db, t.modules.services.secretBox), 1);
    assert.equal(await sealLegacySecrets(t.db, t.modules.services.secretBox), 0);
    const [after] = await t.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId));
    assert.equal(after.secret, null);
    assert.equal(t.modules.services.secretBox.unseal(after.secretSealed!), SECRET);

    await emit(companyId);
    await engine.tick();
    const [r] = mine();
    const expected = createHmac('sha256', Buffer.from(SECRET.slice(6), 'base64')).update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`).digest('base64');
    assert.equal(r.headers['webhook-signature'], `v1,${expected}`);
  });

  it('delivers a signed Cfe.Emitido verifiable with node crypto, with the documented headers', async () => {
    const { companyId, endpointId, mine } = await setup(() => 200);
    const event = await emit(companyId, { idCfeEmitido: 42, serie: 'A', numero: 7 });
    assert.equal((await engine.tick()).attempted, 1);
    const [r] = mine();
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers['webhook-id'], event.id);
    const body = JSON.parse(r.body);
    assert.deepEqual({ id: body.id, type: body.type, idEmpresa: body.idEmpresa, data: body.data }, { id: event.id, type: 'Cfe.Emitido', idEmpresa: companyId, data: { idCfeEmitido: 42, serie: 'A', numero: 7 } });
    const key = Buffer.from(SECRET.slice(6), 'base64');
    const expected = createHmac('sha256', key).update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`).digest('base64');
    assert.equal(r.headers['webhook-signature'], `v1,${expected}`);
    const [d] = await deliveries(endpointId);
    assert.equal(d.status, 'entregado');
    assert.equal(d.intentos.length, 1);
    assert.equal(d.intentos[0].statusCode, 200);
    assert.equal(d.intentos[0].responseExcerpt, 'answer 200');
    assert.equal(r.headers['idempotency-key'], d.idempotencyKey);
  });

  it('any 2xx is delivered at once: 202 and 204', async () => {
    for (const code of [202, 204]) {
      const { companyId, endpointId } = await setup(() => code);
      await emit(companyId);
      await engine.tick();
      const [d] = await deliveries(endpointId);
      assert.equal(d.status, 'entregado');
      assert.equal(d.attempts, 1);
    }
  });

  it('follows the exact delay sequence and is exhausted at the default 8 attempts; Idempotency-Key stable', async () => {
    const { companyId, endpointId, mine } = await setup(() => 503);
    await emit(companyId);
    await engine.tick();
    for (let k = 1; k < 8; k++) {
      const [d] = await deliveries(endpointId);
      assert.equal(d.status, 'pendiente');
      assert.equal(new Date(d.nextAttemptAt).getTime() - clock.getTime(), RETRY_DELAYS_SECONDS[k - 1] * 1000, `delay after attempt ${k}`);
      clock = new Date(new Date(d.nextAttemptAt).getTime() - 1);
      assert.equal((await engine.tick()).attempted, 0, 'not due 1 ms early');
      clock = new Date(d.nextAttemptAt);
      assert.equal((await engine.tick()).attempted, 1);
    }
    const [d] = await deliveries(endpointId);
    assert.equal(d.status, 'agotado');
    assert.equal(d.intentos.length, 8);
    assert.deepEqual(d.intentos.map((a: any) => a.outcome), [...Array(7).fill('reintento'), 'agotado']);
    clock = new Date(clock.getTime() + 86_400_000);
    assert.equal((await engine.tick()).attempted, 0);
    const keys = new Set(mine().map((r) => r.headers['idempotency-key']));
    assert.equal(mine().length, 8);
    assert.deepEqual([...keys], [d.idempotencyKey]);
    assert.equal(new Set(mine().map((r) => r.headers['webhook-id'])).size, 1);
  });

  it('exhausts at a configured maximum (3), with one warn line naming the company and endpoint', async () => {
    const { companyId, endpointId } = await setup(() => 500, { maxAttempts: 3 });
    const lines: any[] = [];
    const logger = pino({ level: 'warn' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const own = createDeliveryEngine({ database: t.database, logger: logger as any, secrets: t.modules.services.secretBox, timeoutMs: 400, allowPrivateUrls: true, now: () => clock });
    try {
      await emit(companyId);
      for (let i = 0; i < 3; i++) {
        await own.tick();
        clock = new Date(clock.getTime() + 3600_000);
      }
    } finally {
      await own.close();
    }
    const [d] = await deliveries(endpointId);
    assert.equal(d.status, 'agotado');
    assert.equal(d.intentos.length, 3);
    const mine = lines.filter((l) => l.endpointId === endpointId);
    assert.equal(mine.length, 1, JSON.stringify(lines));
    assert.equal(mine[0].level, 40);
    assert.equal(mine[0].companyId, companyId);
    assert.match(mine[0].msg, new RegExp(`webhook delivery exhausted its attempts: endpoint ${endpointId} of company ${companyId}`));
  });
});

describe('delivery table (spec 3)', () => {
  for (const [code, status] of [[429, 'pendiente'], [500, 'pendiente'], [503, 'pendiente'], [400, 'fallido'], [404, 'fallido'], [410, 'fallido']] as const) {
    it(`${code} → ${status}`, async () => {
      const { companyId, endpointId } = await setup(() => code);
      await emit(companyId);
      await engine.tick();
      const [d] = await deliveries(endpointId);
      assert.equal(d.status, status);
      assert.equal(d.intentos[0].statusCode, code);
      assert.equal(d.intentos[0].outcome, status === 'fallido' ? 'fallido' : 'reintento');
      if (status === 'pendiente') assert.equal(new Date(d.nextAttemptAt).getTime() - clock.getTime(), 5000);
    });
  }

  it('a timeout is retried, then a 200 delivers with the same Idempotency-Key', async () => {
    const { companyId, endpointId, mine } = await setup((n) => (n === 1 ? 'hang' : 200));
    await emit(companyId);
    await engine.tick();
    let [d] = await deliveries(endpointId);
    assert.equal(d.status, 'pendiente');
    assert.equal(d.intentos[0].statusCode, null);
    assert.match(d.intentos[0].error, /Tiempo de espera/);
    clock = new Date(clock.getTime() + 5000);
    await engine.tick();
    [d] = await deliveries(endpointId);
    assert.equal(d.status, 'entregado');
    assert.equal(mine().length, 2);
    assert.equal(mine()[0].headers['idempotency-key'], mine()[1].headers['idempotency-key']);
  });

  it('a network error (closed port) is retried', async () => {
    const { endpointId, companyId } = await setup(() => 200);
    await t.call(admin, 'PATCH', `/api/v1/webhooks/${endpointId}`, { url: 'http://127.0.0.1:1/nothing' });
    await emit(companyId);
    await engine.tick();
    const [d] = await deliveries(endpointId);
    assert.equal(d.status, 'pendiente');
    assert.equal(d.intentos[0].statusCode, null);
    assert.ok(d.intentos[0].error);
  });

  it('re-delivers one exhausted delivery and all failed ones in a window', async () => {
    const { companyId, endpointId, mine } = await setup((n) => (n === 1 ? 410 : 200));
    await emit(companyId);
    await engine.tick();
    let [d] = await deliveries(endpointId);
    assert.equal(d.status, 'fallido');
    const res = await t.call(admin, 'POST', `/api/v1/webhooks/${endpointId}/entregas/${d.id}/reenviar`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'pendiente');
    clock = new Date(Math.max(clock.getTime(), Date.now()) + 1000);
    await engine.tick();
    [d] = await deliveries(endpointId);
    assert.equal(d.status, 'entregado');
    assert.equal(d.intentos.length, 2);
    assert.equal(mine()[0].headers['idempotency-key'], mine()[1].headers['idempotency-key']);
    const again = await t.call(admin, 'POST', `/api/v1/webhooks/${endpointId}/reenviar`, { desde: new Date(Date.now() - 3600_000).toISOString(), hasta: new Date(Date.now() + 3600_000).toISOString() });
    assert.deepEqual(again.body, { reenviadas: 0 });
  });
});

describe('durability', () => {
  it('the outbox does not publish an event whose transaction rolled back', async () => {
    const { companyId, mine } = await setup(() => 200);
    await assert.rejects(t.db.transaction(async (tx) => {
      await t.modules.services.events.record(tx, { type: 'Cfe.Emitido', companyId, resource: { x: 1 } });
      throw new Error('rollback');
    }));
    await engine.tick();
    assert.equal(mine().length, 0);
    const feed = await t.call(admin, 'GET', `/api/v1/eventos?idEmpresa=${companyId}`);
    assert.equal(feed.body.total, 0);
  });

  it('two workers ticking at once never deliver an attempt twice', async () => {
    const { companyId, mine } = await setup(() => 200);
    for (let i = 0; i < 60; i++) await emit(companyId, { i });
    // A generous timeout: on a loaded machine a 400 ms one turned answered attempts into retries
    // scheduled later (33 of 60 seen), which says nothing about the race this test is about.
    const [one, other] = [newEngine(10_000), newEngine(10_000)];
    await Promise.all([one.drain(), other.drain(), one.drain()]);
    await Promise.all([one.close(), other.close()]);
    assert.equal(mine().length, 60);
    assert.equal(new Set(mine().map((r) => r.headers['idempotency-key'])).size, 60);
  });

  it('a delivery claimed by a worker that died falls due again after its lease', async () => {
    const { companyId, endpointId, mine } = await setup(() => 200);
    await emit(companyId);
    // Fan out, then simulate a worker that claimed the row and was killed before sending.
    const { fanOut, claimDue } = await import('./deliveries.repository.js');
    await fanOut(t.db, clock, 100);
    const leaseEnd = new Date(clock.getTime() + 70_000);
    const claimed = await claimDue(t.db, clock, leaseEnd, '00000000-0000-4000-8000-000000000000', 100);
    assert.equal(claimed.filter((c) => c.endpointId === endpointId).length, 1);
    await engine.tick();
    assert.equal(mine().length, 0, 'a leased row is not taken by another worker');
    clock = new Date(leaseEnd.getTime() + 1);
    await engine.tick();
    assert.equal(mine().length, 1);
    assert.equal((await deliveries(endpointId))[0].status, 'entregado');
  });
});

describe('fan-out at insert (migration 0045)', () => {
  /** fanned_out_at of the company's events, oldest first: null = left for the engine's fan-out. */
  async function fannedOut(companyId: number): Promise<boolean[]> {
    const res = await t.db.execute(sql`select fanned_out_at is not null as done from outbox_events where company_id = ${companyId} order by id`);
    return (res.rows as Array<{ done: boolean }>).map((r) => r.done);
  }

  it('an event no enabled endpoint subscribes to is written fanned out; one with a subscriber is left to the engine and delivered', async () => {
    const { companyId, endpointId, mine } = await setup(() => 200);
    const bare = (await insertCompany(t)).id;
    await emit(bare); // no endpoint at all
    await t.db.transaction((tx) => t.modules.services.events.record(tx, { type: 'Cfe.RechazadoDgi', companyId, resource: { x: 1 } })); // not subscribed to
    await emit(companyId);
    assert.deepEqual(await fannedOut(bare), [true]);
    assert.deepEqual(await fannedOut(companyId), [true, false]);
    await engine.tick();
    assert.equal(mine().length, 1);
    assert.equal((await deliveries(endpointId)).length, 1, 'one delivery: the subscribed event only');
    assert.deepEqual(await fannedOut(companyId), [true, true]);
  });

  it('a disabled endpoint subscribes to nothing: its events are written fanned out and not delivered when it is enabled again', async () => {
    const { companyId, endpointId, mine } = await setup(() => 200);
    await t.db.update(webhookEndpoints).set({ enabled: false }).where(eq(webhookEndpoints.id, endpointId));
    await emit(companyId);
    assert.deepEqual(await fannedOut(companyId), [true]);
    await t.db.update(webhookEndpoints).set({ enabled: true }).where(eq(webhookEndpoints.id, endpointId));
    await emit(companyId, { after: true });
    assert.deepEqual(await fannedOut(companyId), [true, false]);
    await engine.tick();
    assert.deepEqual(mine().map((r) => JSON.parse(r.body).data), [{ after: true }]);
  });
});
