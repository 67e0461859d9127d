/** Envelope limits with small settings: more CFEs than fit are split into consecutive envelopes, never lost or repeated. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { cfesForEnvelope } from '../issued-cfe/issued-cfe.handoff.js';
import { envelopeXml } from './dgi-submission.repository.js';
import { dgiEnvelopeItems, dgiEnvelopes } from './dgi-submission.tables.js';
import { emitTicket, setUpDgiIssuer } from './dgi-submission.test-helpers.js';

let t: TestApp;
let admin: string;

before(async () => {
  // 3 CFEs per envelope by count; 7,000 bytes hold the caratula (~1.7 KB) and two e-Tickets (~2.4 KB each), never three.
  t = await createTestApp({ DGI_ENVELOPE_MAX_CFE: '3', DGI_ENVELOPE_MAX_BYTES: '7000' });
  admin = await t.adminToken();
});
after(async () => t.close());

describe('happy path', () => {
  test('7 pending e-Tickets: consecutive envelopes within both limits, increasing Idemisor, each CFE exactly once', async () => {
    const { company } = await setUpDgiIssuer(t, admin);
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) ids.push((await emitTicket(t, admin, company.id)).id);
    await t.modules.services.dgiSubmissionWorker.submitPending();
    const envs = await t.db.select().from(dgiEnvelopes).where(eq(dgiEnvelopes.companyId, company.id)).orderBy(dgiEnvelopes.id);
    assert.ok(envs.length >= 3, `7 CFEs at most 3 per envelope: got ${envs.length} envelopes`);
    assert.deepEqual(envs.map((e) => e.idEmisor), envs.map((_, i) => i + 1));
    const seen: number[] = [];
    for (const env of envs) {
      assert.ok(env.cantCfe <= 3 && env.cantCfe >= 1);
      assert.ok(env.bytes <= 7000, `envelope ${env.id} has ${env.bytes} bytes`);
      assert.equal(env.xml, null, 'the worker stores the head only');
      const xml = await envelopeXml(t.db, env, cfesForEnvelope);
      assert.equal(Buffer.byteLength(xml), env.bytes);
      assert.deepEqual(validateXml('EnvioCFE', xml), { ok: true });
      const items = await t.db.select().from(dgiEnvelopeItems).where(eq(dgiEnvelopeItems.envelopeId, env.id)).orderBy(dgiEnvelopeItems.ordinal);
      assert.equal(items.length, env.cantCfe);
      seen.push(...items.map((i) => i.issuedCfeId));
    }
    assert.deepEqual(seen, ids, 'oldest first, every CFE once');
    assert.deepEqual(envs.map((e) => e.cantCfe), [2, 2, 2, 1], 'the byte limit binds before the count limit');
  });

  test("envioIndividual 'obligatorios': e-Tickets at or below 5,000 UI are not sent (daily report only); 'todos' sends them", async () => {
    const { company } = await setUpDgiIssuer(t, admin);
    const put = await t.call(admin, 'PUT', '/api/v1/empresa/envioDgi', { idEmpresa: company.id, envioIndividual: 'obligatorios' });
    assert.equal(put.status, 200);
    assert.equal((await t.call(admin, 'GET', `/api/v1/empresa/envioDgi?idEmpresa=${company.id}`)).body.envioIndividual, 'obligatorios');
    const cfe = await emitTicket(t, admin, company.id);
    assert.equal(await t.modules.services.dgiSubmissionWorker.createEnvelope(company.id), null);
    await t.call(admin, 'PUT', '/api/v1/empresa/envioDgi', { idEmpresa: company.id, envioIndividual: 'todos' });
    const env = await t.modules.services.dgiSubmissionWorker.createEnvelope(company.id);
    assert.ok(env);
    const items = await t.db.select().from(dgiEnvelopeItems).where(eq(dgiEnvelopeItems.envelopeId, env.id));
    assert.deepEqual(items.map((i) => i.issuedCfeId), [cfe.id]);
  });
});
