/**
 * The stored receipts' XML kept for this process's DGI submission worker (issued-cfe.xml-cache.ts):
 * the claim takes a cached text only when its byte length is the stored one and reads the rest from
 * the table, and with the worker in process the envelopes built from it are accepted by DGI.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { emitTicket, setUpDgiIssuer, startRunner, waitFor } from '../dgi-submission/dgi-submission.test-helpers.js';
import { claimPending } from './issued-cfe.handoff.js';
import { setUpIssuer } from './issued-cfe.test-setup.js';
import { createSealedXmlCache } from './issued-cfe.xml-cache.js';

let t: TestApp;
let admin: string;

before(async () => {
  // WORKER_IN_PROCESS: the app keeps a cache, as `npm start` does (the tests' default runs without one).
  t = await createTestApp({ WORKER_IN_PROCESS: 'true', DGI_WAKE_DEBOUNCE_MS: '0' });
  admin = await t.adminToken();
});
after(async () => t.close());

async function storedXml(companyId: number): Promise<Array<{ id: number; xml: string }>> {
  const r = await t.db.execute(sql`select id, xml from issued_cfes where company_id = ${companyId} order by id`);
  return (r.rows as Array<{ id: number; xml: string }>).map((x) => ({ id: Number(x.id), xml: x.xml }));
}

describe('happy path', () => {
  test('a cached text of the stored byte length is taken; one of another length, and a miss, come from the table', async () => {
    const company = await insertCompany(t);
    await setUpIssuer(t.db, t.call, admin, company);
    for (let i = 0; i < 3; i++) await emitTicket(t, admin, company.id);
    const [a, b, c] = await storedXml(company.id);
    const cache = createSealedXmlCache();
    // Same byte length as a's XML (one-byte characters), different text: seen only if the cache is used.
    const marker = 'x'.repeat(Buffer.byteLength(a.xml, 'utf8'));
    cache.remember([{ id: a.id, xml: marker }, { id: b.id, xml: 'short' }]);
    const claimed = await t.db.transaction((tx) => claimPending(tx, company.id, 10, undefined, cache));
    assert.deepEqual(claimed.map((p) => p.id), [a.id, b.id, c.id]);
    assert.equal(claimed[0].xml, marker);
    assert.equal(claimed[1].xml, b.xml);
    assert.equal(claimed[2].xml, c.xml);
    assert.deepEqual(claimed.map((p) => p.bytes), [a, b, c].map((x) => Buffer.byteLength(x.xml, 'utf8')));
    assert.equal(cache.size, 0, 'what was claimed left the cache');
    const plain = await t.db.transaction((tx) => claimPending(tx, company.id, 10));
    assert.deepEqual(plain.map((p) => p.xml), [a.xml, b.xml, c.xml]);
  });

  test('with the worker in process, receipts go to DGI in envelopes built from the cache and are accepted', async () => {
    const { company } = await setUpDgiIssuer(t, admin);
    const runner = await startRunner(t);
    await t.modules.services.dgiSubmissionWaker.start();
    const ids: number[] = [];
    try {
      for (let i = 0; i < 5; i++) ids.push((await emitTicket(t, admin, company.id)).id);
      await waitFor('all accepted', async () => {
        const r = await t.db.execute(sql`select count(*)::int as n from issued_cfes where company_id = ${company.id} and estado = 'aceptado'`);
        return Number((r.rows[0] as { n: number }).n) === ids.length;
      });
    } finally {
      await t.modules.services.dgiSubmissionWaker.stop();
      await runner.stop();
    }
  });
});

describe('errors', () => {
  test('a full cache drops its oldest texts first', () => {
    const cache = createSealedXmlCache(10);
    cache.remember([{ id: 1, xml: 'aaaa' }, { id: 2, xml: 'bbbb' }, { id: 3, xml: 'cccc' }, { id: 4, xml: 'x'.repeat(11) }]);
    assert.equal(cache.size, 8);
    assert.deepEqual([...cache.take([1, 2, 3, 4])], [[2, 'bbbb'], [3, 'cccc']]);
  });
});
