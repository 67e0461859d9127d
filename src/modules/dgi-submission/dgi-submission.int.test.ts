/**
 * The DGI round trip through the real app, the real job runner, the real SOAP client with
 * WS-Security and the in-process DGI simulator: one test per outcome, crash recovery, the API.
 */
import { Writable } from 'node:stream';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import type { JobRunner } from '../../platform/jobs/runner.js';
import { loadPatchedXsdSet, validateXml } from '../../platform/xml/xsd.js';
import { caeVoidedNumbers } from '../cae/cae.tables.js';
import { DgiSoapReceptionClient } from '../dgi/dgi.soap-client.js';
import { signedCfc } from '../dgi/dgi.test-helpers.js';
import type { DgiSimulator } from '../dgi/dgi.simulator.js';
import { issuedCfes } from '../issued-cfe/issued-cfe.tables.js';
import { enqueueSubmitPending } from './dgi-submission.jobs.js';
import { dgiEnvelopeItems, dgiEnvelopes } from './dgi-submission.tables.js';
import { emitTicket, setUpDgiIssuer, simulatorOf, startRunner, today, waitFor, waitForEvent, waitForState } from './dgi-submission.test-helpers.js';

let t: TestApp;
let admin: string;
let sim: DgiSimulator;
let runner: JobRunner | undefined;
let issuer: Awaited<ReturnType<typeof setUpDgiIssuer>>;
/** The app's warn and error lines (issue 44 point 7: what an operator alerts on). */
let log = '';

const envelopesOf = (companyId: number) => t.db.select().from(dgiEnvelopes).where(eq(dgiEnvelopes.companyId, companyId)).orderBy(dgiEnvelopes.id);
const sobreSubmissions = (idEmisor: number, rut: string) =>
  sim.control.submissions().filter((s) => s.service === 'EFACRECEPCIONSOBRE' && s.xmlData.includes(`<DGICFE:RUCEmisor>${rut}<`) && s.xmlData.includes(`<DGICFE:Idemisor>${idEmisor}<`));

before(async () => {
  t = await createTestApp({ DGI_RETRY_BASE_MS: '50', DGI_RETRY_MAX_MS: '200', DGI_WAKE_DEBOUNCE_MS: '0', LOG_LEVEL: 'warn' }, { logStream: new Writable({ write(chunk, _enc, cb) { log += String(chunk); cb(); } }) });
  admin = await t.adminToken();
  sim = await simulatorOf(t);
  issuer = await setUpDgiIssuer(t, admin);
  runner = await startRunner(t);
});
after(async () => {
  await t.modules.services.dgiSubmissionWaker.stop();
  await runner?.stop();
  await t.close();
});

describe('happy path', () => {
  test('AS + AE: emission wakes the worker (LISTEN), the CFE goes firmado → en_cola_dgi → sobre_recibido → aceptado', async () => {
    await t.modules.services.dgiSubmissionWaker.start();
    const cfe = await emitTicket(t, admin, issuer.company.id);
    const final = await waitForState(t, admin, cfe.id, ['aceptado', 'rechazado', 'sobre_rechazado']);
    await t.modules.services.dgiSubmissionWaker.stop();
    assert.equal(final.estado, 'aceptado');
    assert.deepEqual(final.historial.map((h: any) => [h.estado, h.codigo]), [['firmado', null], ['en_cola_dgi', null], ['sobre_recibido', 'AS'], ['aceptado', 'AE']]);
    assert.match(final.historial[2].referencia, /^sobre:\d+ IDReceptor:\d+$/);
    const [env] = await envelopesOf(issuer.company.id);
    assert.equal(env.estado, 'procesado');
    assert.equal(env.idEmisor, 1);
    assert.ok(env.ackSobreXml?.includes('ACKSobre') && env.ackCfeXml?.includes('ACKCFE'));
    const byId = await t.call(admin, 'GET', `/api/v1/cfeemitido/${cfe.id}`);
    assert.equal(byId.body.estado, 'aceptado');
    const list = await t.call(admin, 'GET', `/api/v1/sobredgi?idEmpresa=${issuer.company.id}`);
    assert.equal(list.status, 200);
    assert.equal(list.body.data[0].estado, 'procesado');
  });

  test('AS + BE (E05): rejected, the number is voided, Cfe.RechazadoDgi in the outbox', async () => {
    const cfe = await emitTicket(t, admin, issuer.company.id);
    sim.control.rejectNext({ tipoCFE: 101, serie: cfe.serie, nro: cfe.numero }, ['E05']);
    await enqueueSubmitPending(t.db);
    const final = await waitForState(t, admin, cfe.id, ['aceptado', 'rechazado']);
    assert.equal(final.estado, 'rechazado');
    const last = final.historial.at(-1);
    assert.equal(last.codigo, 'E05');
    assert.equal(last.motivos[0].codigo, 'E05');
    assert.match(last.motivos[0].glosa, /validaciones/i);
    const voided = await t.db.select().from(caeVoidedNumbers).where(and(eq(caeVoidedNumbers.companyId, issuer.company.id), eq(caeVoidedNumbers.desde, cfe.numero), eq(caeVoidedNumbers.tipoCfe, 101)));
    assert.equal(voided.length, 1);
    assert.equal(voided[0].motivo, 'rechazo');
    const ev = await waitForEvent(t, admin, issuer.company.id, 'Cfe.RechazadoDgi', (e) => e.type === 'Cfe.RechazadoDgi' && e.data.idCfeEmitido === cfe.id);
    assert.equal(ev.data.numeroAnulado, true);
    assert.equal(ev.data.motivos[0].codigo, 'E05');
  });

  test('BS (S04 scripted): the envelope is rejected, its CFEs sobre_rechazado with the S-code, no event, not resent', async () => {
    const cfe = await emitTicket(t, admin, issuer.company.id);
    sim.control.rejectNextEnvelope(['S04']);
    await enqueueSubmitPending(t.db);
    const final = await waitForState(t, admin, cfe.id, ['sobre_rechazado', 'aceptado']);
    assert.equal(final.estado, 'sobre_rechazado');
    assert.equal(final.historial.at(-1).codigo, 'S04');
    const envs = await envelopesOf(issuer.company.id);
    assert.equal(envs.at(-1)!.estado, 'rechazado');
    assert.equal(envs.at(-1)!.errorCodigo, 'S04');
    const refused = log.split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.envelopeId === envs.at(-1)!.id);
    assert.equal(refused.length, 1, log);
    assert.equal(refused[0].level, 40);
    assert.equal(refused[0].companyId, issuer.company.id);
    assert.match(refused[0].msg, new RegExp(`^DGI refused envelope ${envs.at(-1)!.id} of company ${issuer.company.id} \\(ACKSobre BS: S04`));
    const items = await t.db.select().from(dgiEnvelopeItems).where(eq(dgiEnvelopeItems.issuedCfeId, cfe.id));
    assert.deepEqual(items.map((i) => i.live), [false]);
  });

  test('AS + CE: a transcribed contingency CFC (type 281, stored firmado) is sent and observed, Cfe.ObservadoDgi', async () => {
    const [base] = await t.db.select().from(issuedCfes).where(eq(issuedCfes.companyId, issuer.company.id)).limit(1);
    const xml = signedCfc(issuer.signer, issuer.company.rut);
    const [row] = await t.db.insert(issuedCfes).values({
      ...base, id: undefined, caeRangeId: null, tipoCfe: 281, serie: 'XA', numero: 953001, xml, estado: 'firmado', estadoActualizadoEn: null, idempotencyKey: null, requestHash: null,
    } as any).returning({ id: issuedCfes.id });
    sim.control.rejectNext({ tipoCFE: 281 }, ['E05']);
    await enqueueSubmitPending(t.db);
    const final = await waitForState(t, admin, row.id, ['observado', 'aceptado']);
    assert.equal(final.estado, 'observado', JSON.stringify(final));
    assert.equal(final.historial.at(-1).codigo, 'C05');
    const ev = await waitForEvent(t, admin, issuer.company.id, 'Cfe.ObservadoDgi', (e) => e.type === 'Cfe.ObservadoDgi' && e.data.idCfeEmitido === row.id);
    assert.equal(ev.data.numeroAnulado, false);
  });

  test('killed after the envelope commit: on restart the same envelope (same Idemisor) is sent once', async () => {
    await runner!.stop();
    runner = undefined;
    // Three receipts: the envelope is assembled from its stored head and its CFEs in item order.
    const [, , cfe] = [await emitTicket(t, admin, issuer.company.id), await emitTicket(t, admin, issuer.company.id), await emitTicket(t, admin, issuer.company.id)];
    const env = (await t.modules.services.dgiSubmissionWorker.createEnvelope(issuer.company.id))!;
    assert.equal(env.cantCfe, 3);
    // The sender took the envelope and died before the request left: attempt counted, lease expired.
    await t.db.update(dgiEnvelopes).set({ sendAttempts: 1, leaseUntil: sql`now() - interval '1 second'` }).where(eq(dgiEnvelopes.id, env.id));
    assert.equal(sobreSubmissions(env.idEmisor, issuer.company.rut).length, 0);
    runner = await startRunner(t);
    const final = await waitForState(t, admin, cfe.id, ['aceptado', 'rechazado']);
    assert.equal(final.estado, 'aceptado');
    const sent = sobreSubmissions(env.idEmisor, issuer.company.rut);
    assert.equal(sent.length, 1);
    const [stored] = await t.db.select().from(dgiEnvelopes).where(eq(dgiEnvelopes.id, env.id));
    // Only the head is stored; the resend assembled it with its CFEs' XML into the very bytes built before the kill.
    assert.equal(stored.xml, null);
    assert.ok(env.xml.startsWith(stored.xmlHead!));
    assert.equal(sent[0].xmlData, env.xml, 'the bytes built before the kill are what DGI got');
    assert.equal(stored.sendAttempts, 2);
  });

  test('killed after DGI received it: the resend gets S08, DGI is asked (recovery), the CFE reaches its verdict in no other envelope', async () => {
    await runner!.stop();
    runner = undefined;
    const cfe = await emitTicket(t, admin, issuer.company.id);
    const env = (await t.modules.services.dgiSubmissionWorker.createEnvelope(issuer.company.id))!;
    const client = new DgiSoapReceptionClient({ endpoint: sim.urls.efactura, credentials: issuer.signer });
    assert.equal((await client.sendEnvelope(env.xml)).Estado, 'AS'); // DGI got it; our worker never saw the answer
    runner = await startRunner(t);
    const final = await waitForState(t, admin, cfe.id, ['aceptado', 'rechazado']);
    assert.equal(final.estado, 'aceptado');
    const sent = sobreSubmissions(env.idEmisor, issuer.company.rut);
    assert.deepEqual(sent.map((s) => s.ackEstado), ['AS', 'BS']);
    const items = await t.db.select().from(dgiEnvelopeItems).where(eq(dgiEnvelopeItems.issuedCfeId, cfe.id));
    assert.deepEqual(items.map((i) => i.envelopeId), [env.id]);
    const [stored] = await t.db.select().from(dgiEnvelopes).where(eq(dgiEnvelopes.id, env.id));
    assert.equal(stored.estado, 'procesado');
    assert.equal(stored.errorCodigo, null);
  });

  test('simulator down: transient failures are retried with backoff until DGI answers', async () => {
    sim.control.setDown('503');
    const cfe = await emitTicket(t, admin, issuer.company.id);
    await enqueueSubmitPending(t.db);
    const env = await waitFor('a failed attempt', async () => (await envelopesOf(issuer.company.id)).find((e) => e.estado === 'creado' && e.sendAttempts >= 2));
    assert.equal(env.errorCodigo, 'TRANSITORIO');
    sim.control.setDown(false);
    const final = await waitForState(t, admin, cfe.id, ['aceptado']);
    assert.equal(final.estado, 'aceptado');
  });

  test('marcar-aceptado: administrador, from a pending state, audited with user and motivo; the worker never sends it', async () => {
    await runner!.stop();
    runner = undefined;
    const cfe = await emitTicket(t, admin, issuer.company.id);
    const r = await t.call(admin, 'POST', `/api/v1/cfeemitido/${cfe.id}/marcar-aceptado`, { motivo: 'Aceptado en el portal de DGI' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.estado, 'aceptado_manual');
    const last = r.body.historial.at(-1);
    assert.equal(last.codigo, 'MANUAL');
    assert.equal(last.motivo, 'Aceptado en el portal de DGI');
    assert.equal(typeof last.idUsuario, 'number');
    assert.equal(await t.modules.services.dgiSubmissionWorker.createEnvelope(issuer.company.id), null);
    const again = await t.call(admin, 'POST', `/api/v1/cfeemitido/${cfe.id}/marcar-aceptado`, { motivo: 'otra vez' });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'MARCAR_ACEPTADO_ESTADO');
    runner = await startRunner(t);
  });

  test('generarSobreDgi: the stored envelope for its CFEs (even accepted), a new XSD-valid one otherwise', async () => {
    const [env] = await envelopesOf(issuer.company.id);
    const ids = (await t.db.select().from(dgiEnvelopeItems).where(eq(dgiEnvelopeItems.envelopeId, env.id))).map((i) => i.issuedCfeId);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/cfeemitido/generarSobreDgi', payload: { idEmpresa: issuer.company.id, idsCfe: ids }, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, sobreSubmissions(env.idEmisor, issuer.company.rut)[0].xmlData, 'the download is what DGI got, byte for byte');
    assert.equal(res.headers['x-id-sobre'], String(env.id));
    // An envelope stored before migration 0046 holds its whole bytes and no head: served as stored.
    await t.db.update(dgiEnvelopes).set({ xml: res.body, xmlHead: null }).where(eq(dgiEnvelopes.id, env.id));
    const old = await t.app.inject({ method: 'POST', url: '/api/v1/cfeemitido/generarSobreDgi', payload: { idEmpresa: issuer.company.id, idsCfe: ids }, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(old.statusCode, 200);
    assert.equal(old.body, res.body);
    const cfeA = await emitTicket(t, admin, issuer.company.id);
    const cfeB = await emitTicket(t, admin, issuer.company.id);
    const fresh = await t.app.inject({ method: 'POST', url: '/api/v1/cfeemitido/generarSobreDgi', payload: { idEmpresa: issuer.company.id, idsCfe: [cfeA.id, cfeB.id] }, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(fresh.statusCode, 200, fresh.body);
    assert.match(fresh.headers['content-disposition'] as string, new RegExp(`Sob_${issuer.company.rut}_\\d{8}_\\d+\\.xml`));
    assert.deepEqual(validateXml('EnvioCFE', fresh.body), { ok: true });
    assert.match(fresh.body, /<DGICFE:CantCFE>2</);
    // The same check with xmllint (libxml2-utils), as an integrator would run it on the downloaded file.
    try { execFileSync('which', ['xmllint'], { stdio: 'pipe' }); } catch { assert.fail('xmllint not found: install the Debian package libxml2-utils'); }
    const dir = mkdtempSync(path.join(tmpdir(), 'sobre-'));
    // xsd/SOURCE.md: xmldsig types X509SerialNumber as xs:integer and libxml2 rejects long serials: patched copy.
    for (const [name, content] of loadPatchedXsdSet()) writeFileSync(path.join(dir, name), content);
    writeFileSync(path.join(dir, 'sobre.xml'), fresh.body);
    writeFileSync(path.join(dir, 'stored.xml'), res.body);
    for (const f of ['sobre.xml', 'stored.xml']) execFileSync('xmllint', ['--noout', '--nonet', '--schema', path.join(dir, 'EnvioCFE.xsd'), path.join(dir, f)], { stdio: 'pipe' });
  });
});

describe('errors', () => {
  test('marcar-aceptado without motivo is 400; on a final state 409', async () => {
    const cfe = await emitTicket(t, admin, issuer.company.id);
    const r = await t.call(admin, 'POST', `/api/v1/cfeemitido/${cfe.id}/marcar-aceptado`, {});
    assert.equal(r.status, 400);
    await enqueueSubmitPending(t.db);
    const accepted = await waitForState(t, admin, cfe.id, ['aceptado']);
    assert.equal(accepted.estado, 'aceptado');
    const late = await t.call(admin, 'POST', `/api/v1/cfeemitido/${cfe.id}/marcar-aceptado`, { motivo: 'tarde' });
    assert.equal(late.status, 409);
  });

  test('generarSobreDgi: empty list 400, more than 250 400, unknown id 404', async () => {
    assert.equal((await t.call(admin, 'POST', '/api/v1/cfeemitido/generarSobreDgi', { idEmpresa: issuer.company.id, idsCfe: [] })).status, 400);
    assert.equal((await t.call(admin, 'POST', '/api/v1/cfeemitido/generarSobreDgi', { idEmpresa: issuer.company.id, idsCfe: Array.from({ length: 251 }, (_, i) => i + 1) })).status, 400);
    const r = await t.call(admin, 'POST', '/api/v1/cfeemitido/generarSobreDgi', { idEmpresa: issuer.company.id, idsCfe: [99_999_999] });
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'SOBRE_CFE_NO_ENCONTRADO');
  });

  test('generarSobreDgi refuses a new envelope with CFEs DGI rejected (annulled, BRIEF 10) or already has (duplicate): 409 naming them', async () => {
    await runner!.stop(); // each DGI step by hand, so a CFE can be held in sobre_recibido
    runner = undefined;
    const worker = t.modules.services.dgiSubmissionWorker;
    const call = (idsCfe: number[]) => t.call(admin, 'POST', '/api/v1/cfeemitido/generarSobreDgi', { idEmpresa: issuer.company.id, idsCfe });
    const stateOf = async (id: number) => (await t.db.select({ estado: issuedCfes.estado }).from(issuedCfes).where(eq(issuedCfes.id, id)))[0].estado;

    const rejected = await emitTicket(t, admin, issuer.company.id);
    sim.control.rejectNext({ tipoCFE: 101, serie: rejected.serie, nro: rejected.numero }, ['E05']);
    const rejectedEnv = (await worker.createEnvelope(issuer.company.id))!;
    assert.equal(await worker.sendEnvelope(rejectedEnv.id), 'recibido');
    assert.equal(await worker.pollEnvelope(rejectedEnv.id), 'procesado');
    assert.equal(await stateOf(rejected.id), 'rechazado');
    const received = await emitTicket(t, admin, issuer.company.id);
    const receivedEnv = (await worker.createEnvelope(issuer.company.id))!;
    assert.equal(await worker.sendEnvelope(receivedEnv.id), 'recibido');
    assert.equal(await stateOf(received.id), 'sobre_recibido');
    const [accepted] = await t.db.select({ id: issuedCfes.id }).from(issuedCfes).where(and(eq(issuedCfes.companyId, issuer.company.id), eq(issuedCfes.estado, 'aceptado'))).orderBy(issuedCfes.id).limit(1);
    const [manual] = await t.db.select({ id: issuedCfes.id }).from(issuedCfes).where(and(eq(issuedCfes.companyId, issuer.company.id), eq(issuedCfes.estado, 'aceptado_manual'))).limit(1);
    const pending = await emitTicket(t, admin, issuer.company.id);

    const annulled = await call([pending.id, rejected.id]);
    assert.equal(annulled.status, 409, JSON.stringify(annulled.body));
    assert.equal(annulled.body.code, 'SOBRE_CFE_ANULADO');
    assert.deepEqual(annulled.body.idsCfe, [rejected.id]);
    assert.match(annulled.body.error, new RegExp(`${rejected.id} \\(rechazado\\)`));
    // Asked newest first: the refusal lists them in the order of the request, not in storage order.
    const atDgi = await call([pending.id, received.id, manual.id, accepted.id]);
    assert.equal(atDgi.status, 409, JSON.stringify(atDgi.body));
    assert.equal(atDgi.body.code, 'SOBRE_CFE_YA_EN_DGI');
    assert.deepEqual(atDgi.body.idsCfe, [received.id, manual.id, accepted.id]);
    // A signed CFE still goes in a new envelope; the stored envelope of the rejected one is a download of what DGI got.
    assert.equal((await call([pending.id])).status, 200);
    const stored = await t.app.inject({ method: 'POST', url: '/api/v1/cfeemitido/generarSobreDgi', payload: { idEmpresa: issuer.company.id, idsCfe: [rejected.id] }, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(stored.statusCode, 200, stored.body);
    assert.equal(stored.headers['x-id-sobre'], String(rejectedEnv.id));
    assert.equal(stored.body, rejectedEnv.xml);
    runner = await startRunner(t);
  });
});

describe('access', () => {
  test("another company's CFE and envelope answer 404; lectura cannot mark accepted (403)", async () => {
    const other = await insertCompany(t);
    const cfe = await emitTicket(t, admin, issuer.company.id);
    const outsider = await createUser(t, admin, 'fuera-dgi@test.uy', [{ idEmpresa: other.id, rol: 'administrador' }]);
    const tok = await t.login('fuera-dgi@test.uy', 'password-123');
    assert.equal((await t.call(tok, 'GET', `/api/v1/cfeemitido/${cfe.id}/estados`)).status, 404);
    assert.equal((await t.call(tok, 'POST', `/api/v1/cfeemitido/${cfe.id}/marcar-aceptado`, { motivo: 'no es mía' })).status, 404);
    assert.equal((await t.call(tok, 'POST', '/api/v1/cfeemitido/generarSobreDgi', { idEmpresa: other.id, idsCfe: [cfe.id] })).status, 404);
    const [env] = await envelopesOf(issuer.company.id);
    assert.equal((await t.call(tok, 'GET', `/api/v1/sobredgi/${env.id}`)).status, 404);
    assert.equal((await t.call(tok, 'GET', `/api/v1/sobredgi?idEmpresa=${issuer.company.id}`)).status, 404);
    void outsider;
    await createUser(t, admin, 'lector-dgi@test.uy', [{ idEmpresa: issuer.company.id, rol: 'lectura' }]);
    const reader = await t.login('lector-dgi@test.uy', 'password-123');
    assert.equal((await t.call(reader, 'GET', `/api/v1/cfeemitido/${cfe.id}/estados`)).status, 200);
    const denied = await t.call(reader, 'POST', `/api/v1/cfeemitido/${cfe.id}/marcar-aceptado`, { motivo: 'sin permiso' });
    assert.equal(denied.status, 403);
    assert.equal((await t.call(reader, 'PUT', '/api/v1/empresa/envioDgi', { idEmpresa: issuer.company.id, envioIndividual: 'obligatorios' })).status, 403);
  });
});

void today;
