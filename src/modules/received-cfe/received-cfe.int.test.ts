/**
 * Received CFEs through the upload door (issue 30): company A of this service issues an e-Factura to
 * company B; A's envelope (generarSobreReceptor) is registered by B; B's signed answers (ACKSobre,
 * ACKCFE) are accepted by A's own receiver-exchange upload, which proves they are what an issuer reads.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { createTestCa, issueTestCertificate } from '../../platform/crypto/pki.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { buildEnvioCfeEntreEmpresas, createSigningContext, formatTmstFirma, sampleCfe, signCfe } from '../emission/index.js';
import { setUpDgiIssuer, today } from '../dgi-submission/dgi-submission.test-helpers.js';

let t: TestApp;
let admin: string;
let a: { id: number; rut: string };
let b: { id: number; rut: string };
let customerOfA: number;

async function issueToB(nombreItem = 'Yerba') {
  const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', {
    idEmpresa: a.id, codComercio: 'C1', codTerminal: 'T1',
    cfe: { idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { idCliente: customerOfA }, detalles: [{ indicadorFacturacion: 3, nombreItem, cantidad: 1, precioUnitario: '100' }], adenda: 'OC 55' },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { id: number; serie: string; numero: number };
}

/** A's envelope to B for its CFEs, after DGI received them (BRIEF 1: DGI first). */
async function envelopeFromA(ids: number[]) {
  const w = t.modules.services.dgiSubmissionWorker;
  const env = await w.createEnvelope(a.id);
  if (env) assert.equal(await w.sendEnvelope(env.id), 'recibido');
  const r = await t.app.inject({ method: 'POST', url: '/api/v1/cfeemitido/generarSobreReceptor', payload: { idEmpresa: a.id, idsCfe: ids }, headers: { authorization: `Bearer ${admin}` } });
  assert.equal(r.statusCode, 200, r.body);
  return r.body;
}

const importar = (xml: string, token = admin, idEmpresa = b.id, extra: Record<string, unknown> = {}) =>
  t.call(token, 'POST', '/api/v1/cferecibido/importar', { idEmpresa, xml, ...extra });
const answerXml = async (id: number) => (await t.app.inject({ method: 'GET', url: `/api/v1/cferecibido/respuesta/${id}`, headers: { authorization: `Bearer ${admin}` } })).body;

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  ({ company: a } = await setUpDgiIssuer(t, admin));
  ({ company: b } = await setUpDgiIssuer(t, admin));
  const c = await t.call(admin, 'POST', '/api/v1/cliente/crear', { idEmpresa: a.id, tipoDocumento: 2, documento: b.rut, razonSocial: 'Empresa B', direccion: 'Calle 1', ciudad: 'Montevideo', emisorElectronico: true, emailIntercambio: 'cfe@b.uy' });
  assert.equal(c.status, 201, JSON.stringify(c.body));
  customerOfA = c.body.id;
});
after(async () => t.close());

describe('happy path', () => {
  test('B registers A\'s envelope; its ACKSobre AS is signed, XSD-valid and accepted by A; B rejects with E24 and A sees receptor_rechazado', async () => {
    const cfe = await issueToB();
    const envelope = await envelopeFromA([cfe.id]);
    const r = await importar(envelope, admin, b.id, { emailRespuesta: 'cfe@a.uy' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.sobre.estado, 'AS');
    assert.equal(r.body.sobre.repetido, false);
    assert.equal(r.body.cfes.length, 1);
    const got = r.body.cfes[0];
    assert.equal(got.estado, 'pendiente');
    assert.equal(got.rutEmisor, a.rut);
    assert.equal(got.tipoCfe, 111);
    assert.equal(got.numero, cfe.numero);
    assert.equal(got.adenda, 'OC 55');
    assert.equal(got.mntTotal, '122.00');
    assert.ok(got.verificaciones.every((v: { ok: boolean }) => v.ok), JSON.stringify(got.verificaciones));
    assert.ok(got.vencimientoRespuesta);

    const detail = await t.call(admin, 'GET', `/api/v1/cferecibido/${got.id}`);
    assert.equal(detail.status, 200);
    assert.equal(detail.body.respuestas.length, 1);
    assert.equal(detail.body.respuestas[0].tipo, 'ACKSobre');
    assert.equal(detail.body.respuestas[0].estado, 'pendiente');
    const ackSobre = await answerXml(detail.body.respuestas[0].id);
    assert.deepEqual(validateXml('ACKSobre', ackSobre), { ok: true });
    // The issuer reads it: A's own upload of a receiver answer accepts B's ACKSobre.
    const applied = await t.call(admin, 'POST', '/api/v1/cfeemitido/respuestaReceptor', { idEmpresa: a.id, xml: ackSobre });
    assert.equal(applied.status, 200, JSON.stringify(applied.body));
    assert.equal(applied.body.estadoSobre, 'recibido');

    // The signed XML download is the CFE as A signed it.
    const xml = await t.app.inject({ method: 'GET', url: `/api/v1/cferecibido/${got.id}/xml`, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(xml.statusCode, 200);
    assert.match(xml.body, /<Signature/);

    const rej = await t.call(admin, 'POST', '/api/v1/cferecibido/rechazar', { idEmpresa: b.id, ids: [got.id, 999999], motivo: { codigo: 'E24', detalle: 'Precio pactado 90' } });
    assert.equal(rej.status, 200, JSON.stringify(rej.body));
    assert.deepEqual(rej.body.resultados.map((x: { resultado: string }) => x.resultado), ['hecho', 'no_encontrado']);
    const after1 = await t.call(admin, 'GET', `/api/v1/cferecibido/${got.id}`);
    assert.equal(after1.body.estado, 'rechazado');
    assert.equal(after1.body.motivos[0].codigo, 'E24');
    assert.deepEqual(after1.body.historial.map((h: { estado: string }) => h.estado), ['pendiente', 'rechazado']);
    const ackCfeRow = after1.body.respuestas.find((x: { tipo: string }) => x.tipo === 'ACKCFE');
    const ackCfe = await answerXml(ackCfeRow.id);
    assert.deepEqual(validateXml('ACKCFE_Partes', ackCfe), { ok: true });
    const appliedCfe = await t.call(admin, 'POST', '/api/v1/cfeemitido/respuestaReceptor', { idEmpresa: a.id, xml: ackCfe });
    assert.equal(appliedCfe.status, 200, JSON.stringify(appliedCfe.body));
    const issued = (await t.db.execute(sql`select estado_receptor from issued_cfes where id = ${cfe.id}`)).rows[0] as { estado_receptor: string };
    assert.equal(issued.estado_receptor, 'receptor_rechazado');

    const events = (await t.db.execute(sql`select type from outbox_events where company_id = ${b.id} order by id`)).rows.map((e) => (e as { type: string }).type);
    assert.deepEqual(events.filter((e) => e.startsWith('CfeRecibido')), ['CfeRecibido.Registrado', 'CfeRecibido.Rechazado']);
  });

  test('the same bytes again change nothing; aceptar with an Idempotency-Key replays; a decided CFE is not decided again', async () => {
    const cfe = await issueToB('Mate');
    const envelope = await envelopeFromA([cfe.id]);
    const first = await importar(envelope);
    const again = await importar(envelope);
    assert.equal(again.status, 200);
    assert.equal(again.body.sobre.repetido, true);
    assert.equal(again.body.cfes[0].id, first.body.cfes[0].id);
    const id = first.body.cfes[0].id;
    const call = (body: unknown, key: string) => t.app.inject({ method: 'POST', url: '/api/v1/cferecibido/aceptar', payload: body as object, headers: { authorization: `Bearer ${admin}`, 'idempotency-key': key } });
    const ok = await call({ idEmpresa: b.id, ids: [id] }, 'k-1');
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().resultados[0].resultado, 'hecho');
    const replay = await call({ idEmpresa: b.id, ids: [id] }, 'k-1');
    assert.equal(replay.json().repetida, true);
    assert.equal(replay.json().resultados[0].resultado, 'hecho');
    assert.equal((await call({ idEmpresa: b.id, ids: [id, id] }, 'k-1')).statusCode, 409);
    const twice = await t.call(admin, 'POST', '/api/v1/cferecibido/aceptar', { idEmpresa: b.id, ids: [id] });
    assert.equal(twice.body.resultados[0].resultado, 'ya_decidido');
    const reject = await t.call(admin, 'POST', '/api/v1/cferecibido/rechazar', { idEmpresa: b.id, ids: [id], motivo: { codigo: 'E21' } });
    assert.equal(reject.body.resultados[0].resultado, 'no_permitido');
    assert.equal(reject.body.fallidos, 1);
    // secuencia is gap-free and increasing per company.
    const seqs = (await t.db.execute(sql`select secuencia from received_cfes where company_id = ${b.id} order by id`)).rows.map((r) => Number((r as { secuencia: string }).secuencia));
    assert.deepEqual(seqs, seqs.map((_, i) => i + 1));
  });
  test('a lone CFE (no envelope) stands under an envelope record of its own: no ACKSobre; its rejection\'s ACKCFE is signed, XSD-valid, kept for download and applied by A; the same CFE again is 409', async () => {
    // B knows A's certificate from an envelope A sent before (DGI's CFEs name it only by X509IssuerSerial).
    const before = await issueToB('Sal');
    assert.equal((await importar(await envelopeFromA([before.id]))).status, 200);
    const cfe = await issueToB('Harina');
    await envelopeFromA([cfe.id]); // DGI first (BRIEF 1); this envelope is not given to B
    const signed = (await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/${cfe.id}/xml`, headers: { authorization: `Bearer ${admin}` } })).body;
    assert.match(signed, /<(\w+:)?CFE[\s>]/);
    const r = await importar(signed, admin, b.id, { nombreArchivo: 'factura-harina.xml' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.sobre.sinSobre, true);
    assert.equal(r.body.sobre.repetido, false);
    const got = r.body.cfes[0];
    assert.equal(got.estado, 'pendiente');
    assert.equal(got.numero, cfe.numero);
    assert.ok(got.verificaciones.every((v: { ok: boolean }) => v.ok), JSON.stringify(got.verificaciones));
    assert.equal(got.sobre.sinSobre, true);
    assert.deepEqual((await t.call(admin, 'GET', `/api/v1/cferecibido/${got.id}`)).body.respuestas, [], 'no ACKSobre: no envelope was received');

    const rej = await t.call(admin, 'POST', '/api/v1/cferecibido/rechazar', { idEmpresa: b.id, ids: [got.id], motivo: { codigo: 'E21' } });
    assert.equal(rej.body.resultados[0].resultado, 'hecho');
    const [answer] = (await t.call(admin, 'GET', `/api/v1/cferecibido/${got.id}`)).body.respuestas;
    assert.deepEqual([answer.tipo, answer.estado, answer.email], ['ACKCFE', 'sin_destino', null]);
    const ackCfe = await answerXml(answer.id);
    assert.deepEqual(validateXml('ACKCFE_Partes', ackCfe), { ok: true });
    assert.match(ackCfe, /<IDEmisor>0<\/IDEmisor>/);
    assert.match(ackCfe, /<NomArch>factura-harina\.xml<\/NomArch>/);
    assert.match(ackCfe, /<Signature/);
    const applied = await t.call(admin, 'POST', '/api/v1/cfeemitido/respuestaReceptor', { idEmpresa: a.id, xml: ackCfe });
    assert.equal(applied.status, 200, JSON.stringify(applied.body));
    const issued = (await t.db.execute(sql`select estado_receptor from issued_cfes where id = ${cfe.id}`)).rows[0] as { estado_receptor: string };
    assert.equal(issued.estado_receptor, 'receptor_rechazado');

    const same = await importar(signed, admin, b.id);
    assert.equal(same.status, 200);
    assert.equal(same.body.sobre.repetido, true);
    const copy = await importar(`${signed}\n`, admin, b.id);
    assert.equal(copy.status, 409, JSON.stringify(copy.body));
    assert.equal(copy.body.code, 'CFE_RECIBIDO_YA_REGISTRADO');
    assert.equal(copy.body.idCfeRecibido, got.id);
    const rows = (await t.db.execute(sql`select count(*)::int as n from received_cfes where company_id = ${b.id} and numero = ${cfe.numero} and serie = ${cfe.serie}`)).rows[0] as { n: number };
    assert.equal(rows.n, 1, 'nothing stored for the refused copy');
  });

  test('a 70-CFE envelope, verified and stored slice by slice: secuencia in order, E02 for a repeat across slices and for one received before, E04 for a tampered one, one event each', async () => {
    const ca = createTestCa();
    const cert = issueTestCertificate(ca, { rut: '219999830019', name: 'Empresa Demo S.A.' });
    const ctx = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem });
    const rcv = await insertCompany(t, { rut: '214844360018' }); // sampleCfe's receiver
    const sign = (nro: number) => signCfe(sampleCfe(111, { Nro: nro, lines: 1 }), ctx).xml;
    const envelopeOf = (idEmisor: number, xmls: string[]) => buildEnvioCfeEntreEmpresas({
      rutReceptor: rcv.rut, rucEmisor: '219999830019', idEmisor, fecha: formatTmstFirma(new Date()), certificateDerBase64: ctx.certificate.der.toString('base64'),
      items: xmls.map((cfe, i) => ({ cfe, adenda: `OC ${i}` })),
    });
    assert.equal((await importar(envelopeOf(1, [sign(1000)]), admin, rcv.id)).body.cfes[0].estado, 'pendiente');
    const nros = Array.from({ length: 70 }, (_, i) => i + 1);
    nros[59] = 5; // a repeat of the 5th, two slices later
    nros[65] = 1000; // received in the envelope before
    const xmls = nros.map(sign);
    xmls[30] = xmls[30].replace('<Nro>31</Nro>', '<Nro>310</Nro>');
    const r = await importar(envelopeOf(2, xmls), admin, rcv.id);
    assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 500));
    assert.equal(r.body.sobre.estado, 'AS');
    const cfes = r.body.cfes as Array<{ id: number; secuencia: number; numero: number; estado: string; motivos: Array<{ codigo: string }>; sobre: { nroOrdinal: number } }>;
    assert.deepEqual(cfes.map((c) => c.sobre.nroOrdinal), nros.map((_, i) => i + 1));
    assert.deepEqual(cfes.map((c) => c.secuencia), nros.map((_, i) => i + 2));
    const odd = cfes.filter((c) => c.estado !== 'pendiente').map((c) => [c.sobre.nroOrdinal, c.estado, c.motivos.map((m) => m.codigo).join()]);
    assert.deepEqual(odd, [[31, 'rechazado_formato', 'E04'], [60, 'duplicado', 'E02'], [66, 'duplicado', 'E02']]);
    assert.equal(cfes[0].numero, 1);
    const stored = (await t.db.execute(sql`select count(*)::int as n, max(secuencia)::int as last from received_cfes where company_id = ${rcv.id}`)).rows[0];
    assert.deepEqual(stored, { n: 71, last: 71 });
    const events = (await t.db.execute(sql`select count(*)::int as n from outbox_events where company_id = ${rcv.id} and type = 'CfeRecibido.Registrado'`)).rows[0];
    assert.deepEqual(events, { n: 71 });
    const ackCfe = (await t.db.execute(sql`select count(*)::int as n from received_answers where envelope_id = ${r.body.sobre.id} and tipo = 'ACKCFE'`)).rows[0];
    assert.deepEqual(ackCfe, { n: 1 });
    // A CFE of another issuer in the middle refuses the whole envelope (S02): none of its CFEs is registered.
    const foreign = sampleCfe(111, { Nro: 2001, lines: 1 });
    foreign.Emisor = { ...foreign.Emisor, RUCEmisor: '211111110019' };
    const s02 = await importar(envelopeOf(3, [sign(2000), signCfe(foreign, ctx).xml, sign(2002)]), admin, rcv.id);
    assert.equal(s02.status, 200, JSON.stringify(s02.body).slice(0, 500));
    assert.equal(s02.body.sobre.estado, 'BS');
    assert.equal(s02.body.sobre.motivos[0].codigo, 'S02');
    assert.deepEqual(s02.body.cfes, []);
  });
});

describe('every answer can be obtained (issue 42 point 3)', () => {
  test('a refused upload (BS S02) returns its ACKSobre id and link; a repeat with emailRespuesta mails it, once', async () => {
    const cfe = await issueToB('Fideos');
    const envelope = await envelopeFromA([cfe.id]);
    // A's envelope is addressed to B: uploaded by A itself it is S02 (RutReceptor is not the company).
    const r = await importar(envelope, admin, a.id);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.sobre.estado, 'BS');
    assert.equal(r.body.sobre.motivos[0].codigo, 'S02');
    assert.equal(r.body.respuestas.length, 1);
    const [ans] = r.body.respuestas;
    assert.deepEqual({ tipo: ans.tipo, estado: ans.estado, email: ans.email, enlace: ans.enlace }, { tipo: 'ACKSobre', estado: 'sin_destino', email: null, enlace: `/api/v1/cferecibido/respuesta/${ans.id}` });
    const xml = await answerXml(ans.id);
    assert.match(xml, /<Estado>BS<\/Estado>/);
    assert.equal(validateXml('ACKSobre', xml).ok, true);

    const again = await importar(envelope, admin, a.id, { emailRespuesta: 'cfe@emisor.uy' });
    assert.equal(again.body.sobre.repetido, true);
    assert.deepEqual(again.body.respuestas.map((x: { id: number; estado: string; email: string }) => [x.id, x.estado, x.email]), [[ans.id, 'pendiente', 'cfe@emisor.uy']]);
    const job = t.modules.jobs.find((j) => j.job.name === 'receivedCfe.answerMail')!;
    await job.handle({ id: ans.id }, { logger: t.app.log as never, attempt: 1, maxAttempts: 10 });
    const sent = (await t.db.execute(sql`select estado, transporte, email from received_answers where id = ${ans.id}`)).rows[0];
    // No SMTP anywhere in this test app: written to the outbox, and the answer says so.
    assert.deepEqual(sent, { estado: 'enviado', transporte: 'outbox', email: 'cfe@emisor.uy' });
    const queued = async () => ((await t.db.execute(sql`select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'receivedCfe.answerMail' and j.payload->>'id' = ${String(ans.id)}`)).rows[0] as { n: number }).n;
    const before = await queued();
    const third = await importar(envelope, admin, a.id, { emailRespuesta: 'cfe@emisor.uy' });
    assert.equal(third.body.respuestas[0].estado, 'enviado');
    assert.equal(await queued(), before, 'already sent there: not mailed again');
    // With correoSaliente the answers leave through the company's server (here unreachable: retried, and the row says so).
    const put = await t.call(admin, 'PUT', '/api/v1/empresa/correoSaliente', { idEmpresa: a.id, smtpHost: '127.0.0.1', smtpPuerto: 1, remitente: 'acuses@empresa-a.uy' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal((await importar(envelope, admin, a.id, { emailRespuesta: 'otro@emisor.uy' })).body.respuestas[0].estado, 'pendiente');
    await assert.rejects(job.handle({ id: ans.id }, { logger: t.app.log as never, attempt: 1, maxAttempts: 10 }));
    const failed = (await t.db.execute(sql`select estado, transporte, ultimo_error from received_answers where id = ${ans.id}`)).rows[0] as { estado: string; transporte: string; ultimo_error: string };
    assert.deepEqual([failed.estado, failed.transporte], ['pendiente', 'empresa']);
    assert.match(failed.ultimo_error, /ECONNREFUSED|connect/i);
    await t.call(admin, 'PUT', '/api/v1/empresa/correoSaliente', { idEmpresa: a.id, smtpHost: null });
  });
});

describe('errors', () => {
  test('bad envelopes are answered BS with their S-code and stored; bad CFEs are BE; nothing is a 500', async () => {
    const cfe = await issueToB('Azúcar');
    const envelope = await envelopeFromA([cfe.id]);
    const bs = async (xml: string, code: string) => {
      const r = await importar(xml);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.sobre.estado, 'BS', xml.slice(0, 80));
      assert.equal(r.body.sobre.motivos[0].codigo, code);
      assert.deepEqual(r.body.cfes, []);
    };
    await bs('<EnvioCFE_entreEmpresas><roto', 'S01');
    await bs('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><EnvioCFE_entreEmpresas>&b;</EnvioCFE_entreEmpresas>', 'S01');
    await bs(envelope.replace(/<DGICFE:RutReceptor>\d+</, '<DGICFE:RutReceptor>219999830019<'), 'S02');
    await bs(envelope.replace(/<DGICFE:CantCFE>1</, '<DGICFE:CantCFE>2<'), 'S05');
    // The same envelope registered, then another with the same Idemisor: S20.
    assert.equal((await importar(envelope)).body.sobre.estado, 'AS');
    await bs(envelope.replace('<DGICFE:Adenda>OC 55', '<DGICFE:Adenda>OC 56'), 'S20');

    // A tampered amount breaks the CFE's signature: stored as rechazado_formato, answered BE E04 at once.
    const cfe2 = await issueToB('Café');
    const env2 = await envelopeFromA([cfe2.id]);
    const tampered = env2.replace(/<NomItem>Café<\/NomItem>/, '<NomItem>Cafe</NomItem>');
    assert.notEqual(tampered, env2);
    const r = await importar(tampered);
    assert.equal(r.body.sobre.estado, 'AS');
    assert.equal(r.body.cfes[0].estado, 'rechazado_formato');
    assert.equal(r.body.cfes[0].motivos[0].codigo, 'E04');
    // The genuine one has that Idemisor, already accepted: S20. A new envelope carrying the CFE registers it;
    // a third carrying it again is a duplicate (E02).
    await bs(env2, 'S20');
    const genuine = await importar(await envelopeFromA([cfe2.id]));
    assert.equal(genuine.body.cfes[0].estado, 'pendiente');
    const dup = await importar(await envelopeFromA([cfe2.id]));
    assert.equal(dup.body.cfes[0].estado, 'duplicado');
    assert.equal(dup.body.cfes[0].motivos[0].codigo, 'E02');
  });

  test('CFEs are verified with the Caratula certificate the envelope\'s parse reads, not what the cut before parsing took', async () => {
    const cfe = await issueToB('Arroz');
    const envelope = await envelopeFromA([cfe.id]);
    // A comment inside the certificate's text: the parse reads the certificate without it, the text
    // cut that starts the CFEs' verification reads a truncated one (E04 for all): that work is redone.
    const commented = envelope.replace(/(<(?:\w+:)?X509Certificate>[A-Za-z0-9+/]{10})/, '$1<!-- nota -->');
    assert.notEqual(commented, envelope);
    const r = await importar(commented);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.sobre.estado, 'AS', JSON.stringify(r.body.sobre));
    assert.equal(r.body.cfes[0].estado, 'pendiente', JSON.stringify(r.body.cfes[0].verificaciones));
    assert.ok(r.body.cfes[0].verificaciones.some((v: { control: string; ok: boolean }) => v.control === 'firma' && v.ok));
  });

  test('a company without a certificate still registers the envelope; its answers wait as sin_certificado; a CFE for another receiver is BE E05', async () => {
    const c = await insertCompany(t);
    const cfe = await issueToB('Harina');
    const envelope = (await envelopeFromA([cfe.id])).replace(/<DGICFE:RutReceptor>\d+</, `<DGICFE:RutReceptor>${c.rut}<`);
    const r = await importar(envelope, admin, c.id, { emailRespuesta: 'cfe@a.uy' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.sobre.estado, 'AS');
    assert.equal(r.body.cfes[0].estado, 'rechazado_formato');
    assert.equal(r.body.cfes[0].motivos[0].codigo, 'E05');
    const answers = (await t.db.execute(sql`select tipo, estado from received_answers where envelope_id = ${r.body.sobre.id} order by id`)).rows;
    assert.deepEqual(answers, [{ tipo: 'ACKSobre', estado: 'sin_certificado' }, { tipo: 'ACKCFE', estado: 'sin_certificado' }]);
  });

  test('unknown motives are 422, E27-E60 need a glosa; a lone CFE that fails its checks is 422; unknown fields 400', async () => {
    const u = await t.call(admin, 'POST', '/api/v1/cferecibido/rechazar', { idEmpresa: b.id, ids: [1], motivo: { codigo: 'E99' } });
    assert.equal(u.status, 422);
    assert.equal(u.body.code, 'MOTIVO_RECHAZO_INVALIDO');
    const g = await t.call(admin, 'POST', '/api/v1/cferecibido/rechazar', { idEmpresa: b.id, ids: [1], motivo: { codigo: 'E30' } });
    assert.equal(g.body.code, 'MOTIVO_RECHAZO_SIN_GLOSA');
    const lone = await importar('<CFE xmlns="http://cfe.dgi.gub.uy" version="1.0"><eFact/></CFE>');
    assert.equal(lone.status, 422);
    assert.equal(lone.body.code, 'DOCUMENTO_RECIBIDO_INVALIDO');
    const extra = await t.call(admin, 'POST', '/api/v1/cferecibido/aceptar', { idEmpresa: b.id, ids: [1], otro: 1 });
    assert.equal(extra.status, 400);
  });
});

describe('access', () => {
  test('another company\'s user sees none of it; lectura cannot decide or import', async () => {
    const [row] = (await t.db.execute(sql`select id from received_cfes where company_id = ${b.id} order by id limit 1`)).rows as Array<{ id: number }>;
    const outsider = await createUser(t, admin, 'rc-outsider@test.uy', [{ idEmpresa: a.id, rol: 'administrador' }]);
    assert.equal((await t.call(outsider.token, 'GET', `/api/v1/cferecibido/${row.id}`)).status, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: `/api/v1/cferecibido/${row.id}/xml`, headers: { authorization: `Bearer ${outsider.token}` } })).statusCode, 404);
    const dec = await t.call(outsider.token, 'POST', '/api/v1/cferecibido/aceptar', { idEmpresa: a.id, ids: [Number(row.id)] });
    assert.equal(dec.body.resultados[0].resultado, 'no_encontrado');
    assert.equal((await t.call(outsider.token, 'POST', '/api/v1/cferecibido/aceptar', { idEmpresa: b.id, ids: [Number(row.id)] })).status, 404);
    const reader = await createUser(t, admin, 'rc-reader@test.uy', [{ idEmpresa: b.id, rol: 'lectura' }]);
    assert.equal((await t.call(reader.token, 'GET', `/api/v1/cferecibido/${row.id}`)).status, 200);
    assert.equal((await t.call(reader.token, 'POST', '/api/v1/cferecibido/aceptar', { idEmpresa: b.id, ids: [Number(row.id)] })).status, 403);
    assert.equal((await importar('<x/>', reader.token)).status, 403);
  });
});
