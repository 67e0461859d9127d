/**
 * Issue 29 point 1 through the real app, job runner, SOAP clients (WS-Security) and simulator:
 * the answer to an envelope DGI received is lost, the resend gets S08, and every receipt still
 * reaches DGI's verdict by itself; the stale-receipt sweep with a 1-second threshold.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import type { JobRunner } from '../../platform/jobs/runner.js';
import { caeVoidedNumbers } from '../cae/cae.tables.js';
import { DgiSoapConsultasClient } from '../dgi/dgi.consultas-client.js';
import { DgiSoapReceptionClient } from '../dgi/dgi.soap-client.js';
import type { DgiSimulator } from '../dgi/dgi.simulator.js';
import { enqueueSubmitPending } from './dgi-submission.jobs.js';
import { dgiEnvelopes } from './dgi-submission.tables.js';
import { emitTicket, setUpDgiIssuer, simulatorOf, startRunner, waitForState } from './dgi-submission.test-helpers.js';

let t: TestApp;
let admin: string;
let sim: DgiSimulator;
let runner: JobRunner | undefined;
let issuer: Awaited<ReturnType<typeof setUpDgiIssuer>>;

const envelope = async (id: number) => (await t.db.select().from(dgiEnvelopes).where(eq(dgiEnvelopes.id, id)))[0];
const sobreSubmissions = (idEmisor: number) =>
  sim.control.submissions().filter((s) => s.service === 'EFACRECEPCIONSOBRE' && s.xmlData.includes(`<DGICFE:RUCEmisor>${issuer.company.rut}<`) && s.xmlData.includes(`<DGICFE:Idemisor>${idEmisor}<`));
const envelopeIdOf = (historial: any[]) => Number(/^sobre:(\d+)/.exec(historial.find((h) => h.estado === 'en_cola_dgi').referencia)![1]);

before(async () => {
  t = await createTestApp({ DGI_RETRY_BASE_MS: '50', DGI_RETRY_MAX_MS: '200', DGI_WAKE_DEBOUNCE_MS: '0', DGI_STALE_RECEIPT_SECONDS: '1' });
  admin = await t.adminToken();
  sim = await simulatorOf(t);
  issuer = await setUpDgiIssuer(t, admin);
});
after(async () => {
  await runner?.stop();
  await t.close();
});

describe('happy path', () => {
  test('answer lost after DGI received the envelope: the resend gets S08, DGI is asked, every receipt reaches its verdict', async () => {
    runner = await startRunner(t);
    const cfes = [await emitTicket(t, admin, issuer.company.id), await emitTicket(t, admin, issuer.company.id), await emitTicket(t, admin, issuer.company.id)];
    const rejected = cfes[1];
    sim.control.rejectNext({ tipoCFE: 101, serie: rejected.serie, nro: rejected.numero }, ['E05']);
    sim.control.loseNextAnswers('EFACRECEPCIONSOBRE');
    await enqueueSubmitPending(t.db);
    const finals = await Promise.all(cfes.map((c) => waitForState(t, admin, c.id, ['aceptado', 'rechazado', 'observado'])));
    assert.deepEqual(finals.map((f) => f.estado), ['aceptado', 'rechazado', 'aceptado']);
    const env = await envelope(envelopeIdOf(finals[0].historial));
    assert.equal(env.estado, 'procesado');
    assert.ok(env.recoveredAt, 'DGI state learnt from the consultas service');
    assert.deepEqual(sobreSubmissions(env.idEmisor).map((s) => [s.ackEstado, s.answerLost ?? false]), [['AS', true], ['BS', false]]);
    assert.ok(sim.control.submissions().some((s) => s.service === 'EFACCONSULTARENVIOSCFE'));

    const [accepted, rejectedOne] = finals;
    assert.deepEqual(accepted.historial.map((h: any) => [h.estado, h.codigo]), [['firmado', null], ['en_cola_dgi', null], ['sobre_recibido', 'AS'], ['aceptado', 'AE']]);
    assert.match(accepted.historial[2].referencia, /recuperacion:EFACCONSULTARENVIOSCFE$/);
    assert.match(accepted.historial[2].mensaje, /consulta de recuperación/);
    assert.match(accepted.historial[3].mensaje, /consulta de recuperación/, 'the verdict says where it came from');
    assert.match(accepted.historial[3].referencia, /recuperacion/);
    const verdict = rejectedOne.historial.at(-1);
    assert.equal(verdict.codigo, 'E05');
    assert.match(verdict.mensaje, /consulta de recuperación/);
    const voided = await t.db.select().from(caeVoidedNumbers).where(and(eq(caeVoidedNumbers.companyId, issuer.company.id), eq(caeVoidedNumbers.desde, rejected.numero), eq(caeVoidedNumbers.tipoCfe, 101)));
    assert.equal(voided.length, 1, 'a rejection learnt by recovery voids the number like any other');
    await runner.stop();
    runner = undefined;
  });

  test('the same with fault 108 "Sobre duplicado" on the resend instead of S08', async () => {
    runner = await startRunner(t);
    sim.control.setDuplicateAsFault(true);
    try {
      const cfe = await emitTicket(t, admin, issuer.company.id);
      sim.control.loseNextAnswers('EFACRECEPCIONSOBRE');
      await enqueueSubmitPending(t.db);
      const final = await waitForState(t, admin, cfe.id, ['aceptado', 'rechazado']);
      assert.equal(final.estado, 'aceptado');
      const env = await envelope(envelopeIdOf(final.historial));
      assert.deepEqual(sobreSubmissions(env.idEmisor).map((s) => [s.ackEstado, s.answerLost ?? false]), [['AS', true], ['FAULT', false]]);
      assert.ok(env.recoveredAt);
    } finally {
      sim.control.setDuplicateAsFault(false);
      await runner.stop();
      runner = undefined;
    }
  });

  test('stale-receipt sweep: an envelope given up on (DGI had it) is asked about once its receipts are older than the threshold', async () => {
    const worker = t.modules.services.dgiSubmissionWorker;
    const cfe = await emitTicket(t, admin, issuer.company.id);
    const env = (await worker.createEnvelope(issuer.company.id))!;
    const client = new DgiSoapReceptionClient({ endpoint: sim.urls.efactura, credentials: issuer.signer });
    assert.equal((await client.sendEnvelope(env.xml)).Estado, 'AS'); // DGI got it; the worker never saw the answer
    await t.db.update(dgiEnvelopes).set({ estado: 'error', errorCodigo: 'REINTENTOS_AGOTADOS', sendAttempts: 12 }).where(eq(dgiEnvelopes.id, env.id));
    assert.equal(await worker.recoverStale(), 0, 'younger than the threshold: left alone');
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal(await worker.recoverStale(), 1);
    runner = await startRunner(t);
    const final = await waitForState(t, admin, cfe.id, ['aceptado', 'rechazado']);
    assert.equal(final.estado, 'aceptado');
    assert.match(final.historial.at(-1).mensaje, /consulta de recuperación/);
    assert.equal((await envelope(env.id)).estado, 'procesado');
    await runner.stop();
    runner = undefined;
  });
});

describe('errors', () => {
  test('DGI never got the envelope: recovery finds nothing, says so on the envelope and retries; the receipt stays queued', async () => {
    const worker = t.modules.services.dgiSubmissionWorker;
    const cfe = await emitTicket(t, admin, issuer.company.id);
    const env = (await worker.createEnvelope(issuer.company.id))!;
    await t.db.update(dgiEnvelopes).set({ estado: 'duplicado', sendAttempts: 1 }).where(eq(dgiEnvelopes.id, env.id));
    assert.equal(await worker.recoverEnvelope(env.id), 'retry');
    const after = await envelope(env.id);
    assert.equal(after.estado, 'duplicado');
    assert.equal(after.recoveryAttempts, 1);
    assert.match(after.errorMensaje ?? '', new RegExp(`Idemisor ${env.idEmisor}`));
    assert.equal((await t.call(admin, 'GET', `/api/v1/cfeemitido/${cfe.id}/estados`)).body.estado, 'en_cola_dgi');
  });

  test('consultas client: EFACCONSULTARESTADOCFE gives the state and first envelope; an unknown CFE is null / an empty list', async () => {
    const consultas = new DgiSoapConsultasClient({ endpoint: sim.urls.consultas, credentials: issuer.signer });
    const [first] = await t.db.select().from(dgiEnvelopes).where(and(eq(dgiEnvelopes.companyId, issuer.company.id), eq(dgiEnvelopes.estado, 'procesado'))).orderBy(dgiEnvelopes.id).limit(1);
    const sent = sobreSubmissions(first.idEmisor)[0];
    const nro = Number(/<(?:\w+:)?Nro>(\d+)</.exec(sent.xmlData)![1]);
    const state = await consultas.cfeState({ TipoCFE: 101, Serie: 'A', Nro: nro });
    assert.equal(state?.IdEmisor, String(first.idEmisor));
    assert.equal(state?.IdReceptor, first.idReceptor);
    assert.ok(['AE', 'BE'].includes(state!.EstadoCFE));
    assert.equal(await consultas.cfeState({ TipoCFE: 101, Serie: 'A', Nro: 99_999 }), null);
    assert.deepEqual(await consultas.cfeEnvelopes({ TipoCFE: 101, Serie: 'A', Nro: 99_999 }), []);
  });
});

describe('access', () => {
  test("another issuer's certificate sees none of this company's envelopes", async () => {
    const other = sim.control.issueCompanyCertificate('219999830019', 'Otra SA');
    const consultas = new DgiSoapConsultasClient({ endpoint: sim.urls.consultas, credentials: other });
    const [first] = await t.db.select().from(dgiEnvelopes).where(and(eq(dgiEnvelopes.companyId, issuer.company.id), eq(dgiEnvelopes.estado, 'procesado'))).limit(1);
    const nro = Number(/<(?:\w+:)?Nro>(\d+)</.exec(sobreSubmissions(first.idEmisor)[0].xmlData)![1]);
    assert.deepEqual(await consultas.cfeEnvelopes({ TipoCFE: 101, Serie: 'A', Nro: nro }), []);
  });
});
