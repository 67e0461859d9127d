/**
 * GET /api/v1/eventos under concurrent writers: event ids are taken before commit and transactions
 * commit out of order, and a poller following the cursor must still see every event exactly once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { cloneTemplate, createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';

let t: TestApp;
let admin: string;
// Recorded from the file's start: util.deprecate warns once per process, at the first call.
const deprecations: string[] = [];
process.on('warning', (w) => w.name === 'DeprecationWarning' && deprecations.push(w.message));

before(async () => {
  t = await createTestApp({ DB_POOL_MAX: '20' });
  admin = await t.adminToken();
});
after(() => t.close());

const record = (tx: Parameters<Parameters<TestApp['db']['transaction']>[0]>[0], companyId: number, resource: Record<string, unknown>) =>
  t.modules.services.events.record(tx, { type: 'Cfe.Emitido', companyId, resource });

/** A poller: follows `cursor` and remembers every event id it was given. */
function poller(companyId: number) {
  let cursor: string | undefined;
  const seen: string[] = [];
  return {
    seen,
    get cursor() {
      return cursor;
    },
    async poll(): Promise<string[]> {
      const res = await t.call(admin, 'GET', `/api/v1/eventos?idEmpresa=${companyId}&length=500${cursor === undefined ? '' : `&after=${cursor}`}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      cursor = res.body.cursor;
      const ids = res.body.data.map((e: { id: string }) => e.id);
      seen.push(...ids);
      return ids;
    },
    /** Polls until `n` events were seen (another writing transaction of this database may hold the feed back briefly). */
    async until(n: number) {
      const end = Date.now() + 10_000;
      while (seen.length < n && Date.now() < end) {
        if ((await this.poll()).length === 0) await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

/** A transaction that runs `body`, then waits for `release()` before committing. */
function heldTransaction(body: (tx: Parameters<Parameters<TestApp['db']['transaction']>[0]>[0]) => Promise<unknown>) {
  let release!: () => void;
  let ready!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const started = new Promise<void>((r) => (ready = r));
  const done = t.db.transaction(async (tx) => {
    await body(tx);
    ready();
    await gate;
  });
  return { started, release, done };
}

describe('happy path', () => {
  it('an event that commits after a later one is not skipped by the cursor', async () => {
    const { id: companyId } = await insertCompany(t);
    const p = poller(companyId);
    const slow = heldTransaction((tx) => record(tx, companyId, { n: 'slow' }));
    await slow.started;
    let early: string[];
    try {
      await t.db.transaction((tx) => record(tx, companyId, { n: 'fast' }));
      early = await p.poll();
    } finally {
      slow.release();
      await slow.done;
    }
    // The slow event has the smaller id but was not committed: the fast one had to wait behind it.
    assert.deepEqual(early, [], `seen before the slow commit: ${JSON.stringify(early)}`);
    await p.until(2);
    assert.equal(p.seen.length, 2);
    assert.equal(new Set(p.seen).size, 2);
  });

  it('an event of an older transaction that takes its id after a newer one does not let the cursor pass the newer one', async () => {
    const { id: companyId } = await insertCompany(t);
    const p = poller(companyId);
    // `early` starts writing first (the older transaction id) but records its event after `late`.
    let go!: () => void;
    let tookXid!: () => void;
    const proceed = new Promise<void>((r) => (go = r));
    const took = new Promise<void>((r) => (tookXid = r));
    const early = t.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_current_xact_id()`);
      tookXid();
      await proceed;
      return record(tx, companyId, { n: 'early' });
    });
    await took;
    const late = heldTransaction((tx) => record(tx, companyId, { n: 'late' }));
    try {
      await late.started;
    } finally {
      go();
    }
    try {
      await early;
      // `early` (larger event id, older transaction) is committed; `late` (smaller event id) is not yet.
      await p.poll();
    } finally {
      late.release();
      await late.done;
    }
    await p.until(2);
    assert.equal(p.seen.length, 2);
    assert.equal(new Set(p.seen).size, 2);
  });

  it('600 events from concurrent writers that commit out of order: a poller sees every one exactly once', { timeout: 60_000 }, async () => {
    const { id: companyId } = await insertCompany(t);
    const p = poller(companyId);
    const written: string[] = [];
    let writing = true;
    const writers = Array.from({ length: 12 }, async (_, w) => {
      for (let i = 0; i < 50; i++) {
        await t.db.transaction(async (tx) => {
          written.push((await record(tx, companyId, { w, i })).id);
          await new Promise((r) => setTimeout(r, Math.random() * 15));
        });
      }
    });
    const polling = (async () => {
      while (writing) await p.poll();
    })();
    await Promise.all(writers);
    writing = false;
    await polling;
    await p.until(600);
    assert.equal(written.length, 600);
    assert.equal(new Set(p.seen).size, p.seen.length, 'no event twice');
    assert.deepEqual([...p.seen].sort(), [...written].sort(), 'every event once');
  });

  it("a write held open in another database of the cluster does not hold the feed back; one in this database does", async () => {
    const { id: companyId } = await insertCompany(t);
    // Transaction ids are cluster-wide: without the per-database horizon, this one (as a CREATE
    // DATABASE of another tenant, or of a parallel test file) held every reader back.
    const other = new pg.Client({ connectionString: await cloneTemplate() });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select pg_current_xact_id()');
      await t.db.transaction((tx) => record(tx, companyId, { n: 'mine' }));
      const res = await t.call(admin, 'GET', `/api/v1/eventos?idEmpresa=${companyId}`);
      assert.deepEqual(res.body.data.map((e: { data: { n: string } }) => e.data.n), ['mine']);
    } finally {
      await other.query('rollback');
      await other.end();
    }
    const p = poller(companyId);
    await p.poll();
    const held = heldTransaction((tx) => tx.execute(sql`select pg_current_xact_id()`));
    await held.started;
    try {
      await t.db.transaction((tx) => record(tx, companyId, { n: 'behind' }));
      assert.deepEqual(await p.poll(), [], 'an older write of this database holds it back');
    } finally {
      held.release();
      await held.done;
    }
    await p.until(2);
  });

  it('reading the feed never queues a query on a busy connection (pg deprecates it; pg 9 will fail it)', async () => {
    const { id: companyId } = await insertCompany(t);
    await t.db.transaction((tx) => record(tx, companyId, { x: 1 }));
    assert.equal((await t.call(admin, 'GET', `/api/v1/eventos?idEmpresa=${companyId}`)).status, 200);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(deprecations.filter((m) => m.includes('client.query()')), []);
  });

  it('accepts an earlier plain-id cursor and resumes after that event', async () => {
    const { id: companyId } = await insertCompany(t);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await t.db.transaction((tx) => record(tx, companyId, { i }))).id);
    const p = poller(companyId);
    await p.until(3);
    const legacy = ids[0].replace('evt_', '');
    const res = await t.call(admin, 'GET', `/api/v1/eventos?idEmpresa=${companyId}&after=${legacy}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.map((e: { id: string }) => e.id), ids.slice(1));
    assert.match(res.body.cursor, /^\d+\.\d+$/);
  });
});

describe('errors', () => {
  it('a malformed cursor is 400 CURSOR_INVALIDO; an idEmpresa beyond integer is 400 on the field', async () => {
    const { id: companyId } = await insertCompany(t);
    for (const after of ['abc', '1.', '.1', '1.2.3', '99999999999999999999999.1']) {
      const res = await t.call(admin, 'GET', `/api/v1/eventos?idEmpresa=${companyId}&after=${after}`);
      assert.equal(res.status, 400, after);
      assert.equal(res.body.code, 'CURSOR_INVALIDO', after);
    }
    const res = await t.call(admin, 'GET', '/api/v1/eventos?idEmpresa=99999999999');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.campos.map((c: { campo: string }) => c.campo), ['query.idEmpresa']);
  });
});

describe('access', () => {
  it("another company's events are invisible (404), a lectura user reads its own", async () => {
    const a = await insertCompany(t);
    const b = await insertCompany(t);
    await t.db.transaction((tx) => record(tx, a.id, { x: 1 }));
    const reader = await createUser(t, admin, 'lectura-eventos@test.uy', [{ idEmpresa: b.id, rol: 'lectura' }]);
    assert.equal((await t.call(reader.token, 'GET', `/api/v1/eventos?idEmpresa=${a.id}`)).status, 404);
    const own = await t.call(reader.token, 'GET', `/api/v1/eventos?idEmpresa=${b.id}`);
    assert.equal(own.status, 200);
    assert.equal(own.body.total, 0);
  });
});
