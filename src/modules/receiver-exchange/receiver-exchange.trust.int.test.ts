/**
 * Issue 42 points 1 and 2, through a real mail system (Dovecot + SMTP relay, test/support/mail-system.ts).
 * Company A issues e-Facturas to C (an electronic issuer); B, a third company with its own valid
 * certificate, forges answers. Only C's word counts: B's ACKCFE / ACKSobre are refused on upload (422)
 * and by mail (logged as respuesta_rechazada), recorded, with no state change and no event.
 * Exchange mail leaves through A's own SMTP server and sender when A configured one, the service's
 * otherwise (here none: the outbox), and the CFE history says which and how it went.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany, validRut } from '../../../test/support/factories.js';
import { startMailSystem, type MailSystem } from '../../../test/support/mail-system.js';
import { createTestCa, issueTestCertificate } from '../../platform/crypto/pki.js';
import { ackCfeXml, ackSobreXml, motivo, type CfeResult } from '../dgi/simulator/ack-xml.js';
import { signEnveloped } from '../dgi/simulator/xmldsig.js';
import { setUpDgiIssuer, today } from '../dgi-submission/dgi-submission.test-helpers.js';

let t: TestApp;
let ms: MailSystem;
let admin: string;
let a: { id: number; rut: string };
let customerC: number;
const ca = createTestCa();
const cRut = validRut();
const bRut = validRut();
const cKeys = issueTestCertificate(ca, { rut: cRut, name: 'Empresa C SA' });
const bKeys = issueTestCertificate(ca, { rut: bRut, name: 'Empresa B SA' });
const now = `${today}T12:00:00-03:00`;

const job = (name: string) => t.modules.jobs.find((j) => j.job.name === name)!;
const runJob = (name: string, payload: unknown) => job(name).handle(payload as never, { logger: t.app.log as never, attempt: 1, maxAttempts: 10 });
const car = (rucReceptor: string, idEmisor = '1') => ({ RUCReceptor: rucReceptor, RUCEmisor: a.rut, IDRespuesta: '55', NomArch: '', FecHRecibido: now, IDEmisor: idEmisor, IDReceptor: '7001', Tmst: now });
const det = (cfe: { serie: string; numero: number }, Estado: 'AE' | 'BE', codes: string[] = []): CfeResult =>
  ({ Nro_ordinal: 1, TipoCFE: '111', Serie: cfe.serie, NroCFE: String(cfe.numero), FechaCFE: today, TmstCFE: now, Estado, motivos: codes.map((c) => ({ ...motivo(c), Glosa: 'Mercadería en mal estado' })) });
const ackCfeBy = (keys: typeof bKeys, ruc: string, cfe: { serie: string; numero: number }, estado: 'AE' | 'BE') =>
  signEnveloped(ackCfeXml({ ...car(ruc), CantenSobre: 1 }, [det(cfe, estado, estado === 'BE' ? ['E21'] : [])]), keys.keyPem, keys.certPem, 'sha256');
const ackSobreBy = (keys: typeof bKeys, ruc: string, envelopeId: number, estado: 'AS' | 'BS') =>
  signEnveloped(ackSobreXml({ ...car(ruc, String(envelopeId)), CantidadCFE: 1 }, estado, estado === 'BS' ? [motivo('S02')] : [], null), keys.keyPem, keys.certPem, 'sha256');
const upload = (xml: string) => t.call(admin, 'POST', '/api/v1/cfeemitido/respuestaReceptor', { idEmpresa: a.id, xml });
const stateOf = async (id: number) => ((await t.db.execute(sql`select estado_receptor from issued_cfes where id = ${id}`)).rows[0] as { estado_receptor: string | null }).estado_receptor;
const receiverEvents = async () => ((await t.db.execute(sql`select count(*)::int as n from outbox_events where company_id = ${a.id} and type like 'Cfe.%Receptor'`)).rows[0] as { n: number }).n;
const history = async (id: number) => ((await t.call(admin, 'GET', `/api/v1/cfeemitido/${id}`)).body.historial as Array<{ lado: string; estado: string; mensaje: string | null }>).filter((h) => h.lado === 'receptor');
/** A mail with one XML attachment (base64: signed XML carries long certificate lines). */
const mailWith = (from: string, name: string, xml: string) => {
  const b64 = Buffer.from(xml, 'utf8').toString('base64').replace(/.{76}/g, '$&\r\n');
  return `From: ${from}\r\nTo: a@test.uy\r\nSubject: ${name}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=XX\r\n\r\n--XX\r\nContent-Type: text/plain\r\n\r\nRespuesta\r\n--XX\r\nContent-Type: application/xml; name="${name}"\r\nContent-Disposition: attachment; filename="${name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${b64}\r\n--XX--\r\n`;
};

/** An e-Factura of A to `customer`, through DGI (ACKSobre AS), then dispatched and its envelope mailed by the job. */
async function issueAndMail(customer: number) {
  const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', {
    idEmpresa: a.id, codComercio: 'C1', codTerminal: 'T1',
    cfe: { idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { idCliente: customer }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '100' }] },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const w = t.modules.services.dgiSubmissionWorker;
  const env = (await w.createEnvelope(a.id))!;
  assert.equal(await w.sendEnvelope(env.id), 'recibido');
  const [envelopeId] = await t.modules.services.receiverExchange.dispatch();
  assert.ok(envelopeId, 'an envelope to the receiver');
  await runJob('receiverExchange.mail', { id: envelopeId });
  return { cfe: r.body as { id: number; serie: string; numero: number }, envelopeId };
}
const envelopeRow = async (id: number) => (await t.db.execute(sql`select estado, transporte, ultimo_error from receiver_envelopes where id = ${id}`)).rows[0] as { estado: string; transporte: string; ultimo_error: string | null };

let toC: { cfe: { id: number; serie: string; numero: number }; envelopeId: number };

before(async () => {
  ms = await startMailSystem({ a: 'clave-a', c: 'clave-c' });
  // No SMTP_URL: the service's own transport is the outbox.
  t = await createTestApp();
  admin = await t.adminToken();
  ({ company: a } = await setUpDgiIssuer(t, admin));
  const c = await t.call(admin, 'POST', '/api/v1/cliente/crear', { idEmpresa: a.id, tipoDocumento: 2, documento: cRut, razonSocial: 'Empresa C SA', direccion: 'Calle 1', ciudad: 'Montevideo', emisorElectronico: true, emailIntercambio: 'c@test.uy' });
  assert.equal(c.status, 201, JSON.stringify(c.body));
  customerC = c.body.id;
  const box = await t.call(admin, 'PUT', '/api/v1/empresa/correoEntrante', { idEmpresa: a.id, host: '127.0.0.1', puerto: ms.imapPort, tls: false, usuario: 'a', clave: 'clave-a', direccion: 'a@test.uy' });
  assert.equal(box.status, 200, JSON.stringify(box.body));
});
after(async () => {
  await t?.close();
  await ms?.stop();
});

describe('exchange mail leaves the company\'s way (point 2)', () => {
  test('no correoSaliente and no SMTP_URL: written to the outbox, and the CFE history says it was NOT sent', async () => {
    const { cfe, envelopeId } = await issueAndMail(customerC);
    assert.deepEqual(await envelopeRow(envelopeId), { estado: 'enviado', transporte: 'outbox', ultimo_error: null });
    const h = await history(cfe.id);
    assert.match(h[0].mensaje!, new RegExp(`Sobre ${envelopeId} en cola para enviarse por correo a c@test.uy`));
    assert.match(h.at(-1)!.mensaje!, /NO enviado: sin servidor SMTP configurado .*bandeja de salida/);
    assert.equal((await ms.messages('c')).length, 0, 'nothing reached C');
  });

  test('with correoSaliente: the envelope goes through the company\'s SMTP server with its sender; the history says so', async () => {
    const smtpPort = Number(new URL(ms.smtpUrl).port);
    const put = await t.call(admin, 'PUT', '/api/v1/empresa/correoSaliente', { idEmpresa: a.id, smtpHost: '127.0.0.1', smtpPuerto: smtpPort, smtpSeguro: false, remitente: 'Facturas A <facturas@empresa-a.uy>' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    toC = await issueAndMail(customerC);
    assert.deepEqual(await envelopeRow(toC.envelopeId), { estado: 'enviado', transporte: 'empresa', ultimo_error: null });
    const [mail] = await ms.messages('c');
    assert.ok(mail, 'the envelope reached C\'s mailbox');
    assert.match(mail.toString('utf8'), /^From: Facturas A <facturas@empresa-a\.uy>/m);
    assert.match(mail.toString('utf8'), /^Reply-To: a@test\.uy/m);
    assert.match((await history(toC.cfe.id)).at(-1)!.mensaje!, /enviado por correo a c@test\.uy por el servidor SMTP de la empresa/);
  });

  test('a recipient the company\'s server refuses (550): the envelope is in error and the history says why', async () => {
    const d = await t.call(admin, 'POST', '/api/v1/cliente/crear', { idEmpresa: a.id, tipoDocumento: 2, documento: validRut(), razonSocial: 'Empresa D SA', direccion: 'Calle 2', ciudad: 'Montevideo', emisorElectronico: true, emailIntercambio: 'nadie@test.uy' });
    assert.equal(d.status, 201, JSON.stringify(d.body));
    const { cfe, envelopeId } = await issueAndMail(d.body.id);
    const row = await envelopeRow(envelopeId);
    assert.equal(row.estado, 'error');
    assert.equal(row.transporte, 'empresa');
    assert.match(row.ultimo_error!, /No such user|550/);
    assert.match((await history(cfe.id)).at(-1)!.mensaje!, /NO enviado a nadie@test\.uy .*550/);
  });
});

describe('only the receiver\'s word counts (point 1)', () => {
  test('upload: B\'s signed ACKCFE BE and ACKSobre BS for A\'s envelope to C are refused 422, recorded, nothing changes', async () => {
    const forged = await upload(ackCfeBy(bKeys, bRut, toC.cfe, 'BE'));
    assert.equal(forged.status, 422, JSON.stringify(forged.body));
    assert.equal(forged.body.code, 'RESPUESTA_RECEPTOR_NO_ES_RECEPTOR');
    assert.match(forged.body.error, new RegExp(`RUT ${cRut}.*RUT ${bRut}`));
    assert.equal(forged.body.enlace, `/api/v1/cfeemitido/respuestaReceptor/${forged.body.idRespuesta}`);
    const sobre = await upload(ackSobreBy(bKeys, bRut, toC.envelopeId, 'BS'));
    assert.equal(sobre.status, 422, JSON.stringify(sobre.body));
    assert.equal(sobre.body.code, 'RESPUESTA_RECEPTOR_NO_ES_RECEPTOR');
    assert.equal(await stateOf(toC.cfe.id), 'receptor_pendiente');
    assert.equal((await envelopeRow(toC.envelopeId)).estado, 'enviado');
    assert.equal(await receiverEvents(), 0);
    const acks = (await t.db.execute(sql`select tipo, estado, canal, codigo, rut_receptor from receiver_acks where company_id = ${a.id} order by id`)).rows;
    assert.deepEqual(acks, [
      { tipo: 'ACKCFE', estado: 'rechazada', canal: 'importacion', codigo: 'RESPUESTA_RECEPTOR_NO_ES_RECEPTOR', rut_receptor: bRut },
      { tipo: 'ACKSobre', estado: 'rechazada', canal: 'importacion', codigo: 'RESPUESTA_RECEPTOR_NO_ES_RECEPTOR', rut_receptor: bRut },
    ]);
  });

  test('mailbox: B\'s forged ACKCFE is logged respuesta_rechazada with no state change; C\'s own answers then apply', async () => {
    await ms.append('a', mailWith('b@empresa-b.uy', 'ME_forjada.xml', ackCfeBy(bKeys, bRut, toC.cfe, 'BE')));
    assert.equal(await t.modules.services.receivedCfeMailbox.poll(a.id), 1);
    const [logged] = (await t.db.execute(sql`select clase, detalle from inbound_mails where company_id = ${a.id} order by uid desc limit 1`)).rows as Array<{ clase: string; detalle: string }>;
    assert.equal(logged.clase, 'respuesta_rechazada');
    assert.match(logged.detalle, /RESPUESTA_RECEPTOR_NO_ES_RECEPTOR/);
    assert.equal(await stateOf(toC.cfe.id), 'receptor_pendiente');
    assert.equal(await receiverEvents(), 0);
    const [rec] = (await t.db.execute(sql`select estado, canal from receiver_acks where company_id = ${a.id} order by id desc limit 1`)).rows;
    assert.deepEqual(rec, { estado: 'rechazada', canal: 'correo' });

    await ms.append('a', mailWith('c@test.uy', 'M_sobre.xml', ackSobreBy(cKeys, cRut, toC.envelopeId, 'AS')));
    await ms.append('a', mailWith('c@test.uy', 'ME_cfe.xml', ackCfeBy(cKeys, cRut, toC.cfe, 'BE')));
    assert.equal(await t.modules.services.receivedCfeMailbox.poll(a.id), 2);
    const clases = (await t.db.execute(sql`select clase from inbound_mails where company_id = ${a.id} order by uid`)).rows.map((r) => (r as { clase: string }).clase);
    assert.deepEqual(clases, ['respuesta_rechazada', 'respuesta', 'respuesta']);
    assert.equal((await envelopeRow(toC.envelopeId)).estado, 'recibido');
    assert.equal(await stateOf(toC.cfe.id), 'receptor_rechazado');
    assert.equal(await receiverEvents(), 1);
  });
});

describe('the issuer sees its side of the exchange (point 4)', () => {
  test('envelopes with how they went and their answers; answers received, refused ones included; per CFE; downloads', async () => {
    const envs = await t.call(admin, 'GET', `/api/v1/cfeemitido/sobresReceptor?idEmpresa=${a.id}&idCfe=${toC.cfe.id}`);
    assert.equal(envs.status, 200, JSON.stringify(envs.body));
    assert.equal(envs.body.total, 1);
    const [env] = envs.body.data;
    assert.deepEqual({ id: env.id, medio: env.medio, email: env.email, estado: env.estado, transporte: env.transporte, rutReceptor: env.rutReceptor, idsCfe: env.idsCfe },
      { id: toC.envelopeId, medio: 'correo', email: 'c@test.uy', estado: 'recibido', transporte: 'empresa', rutReceptor: cRut, idsCfe: [toC.cfe.id] });
    assert.deepEqual(env.respuestas.map((r: { rutReceptor: string; estado: string; canal: string }) => [r.rutReceptor, r.estado, r.canal]), [[bRut, 'rechazada', 'importacion'], [cRut, 'aplicada', 'correo']]);
    const all = await t.call(admin, 'GET', `/api/v1/cfeemitido/sobresReceptor?idEmpresa=${a.id}&length=2`);
    assert.equal(all.body.total, 3);
    assert.equal(all.body.data.length, 2);
    assert.deepEqual((await t.call(admin, 'GET', `/api/v1/cfeemitido/sobresReceptor?idEmpresa=${a.id}&estado=error`)).body.data.map((e: { email: string }) => e.email), ['nadie@test.uy']);

    const refused = await t.call(admin, 'GET', `/api/v1/cfeemitido/respuestasReceptor?idEmpresa=${a.id}&estado=rechazada`);
    assert.equal(refused.status, 200, JSON.stringify(refused.body));
    assert.deepEqual(refused.body.data.map((r: { tipo: string; canal: string; codigo: string; rutReceptor: string }) => [r.tipo, r.canal, r.codigo, r.rutReceptor]), [
      ['ACKCFE', 'correo', 'RESPUESTA_RECEPTOR_NO_ES_RECEPTOR', bRut],
      ['ACKSobre', 'importacion', 'RESPUESTA_RECEPTOR_NO_ES_RECEPTOR', bRut],
      ['ACKCFE', 'importacion', 'RESPUESTA_RECEPTOR_NO_ES_RECEPTOR', bRut],
    ]);

    const view = await t.call(admin, 'GET', `/api/v1/cfeemitido/${toC.cfe.id}/intercambio`);
    assert.equal(view.status, 200, JSON.stringify(view.body));
    assert.equal(view.body.estadoReceptor, 'receptor_rechazado');
    assert.equal(view.body.rutReceptor, cRut);
    assert.deepEqual(view.body.sobres.map((e: { id: number }) => e.id), [toC.envelopeId]);
    assert.deepEqual(view.body.respuestas.map((r: { tipo: string; rutReceptor: string; estado: string }) => `${r.tipo} ${r.rutReceptor === cRut ? 'C' : 'B'} ${r.estado}`).sort(),
      ['ACKCFE B rechazada', 'ACKCFE B rechazada', 'ACKCFE C aplicada', 'ACKSobre B rechazada', 'ACKSobre C aplicada']);
    assert.deepEqual(view.body.avisosAnulacion, []);

    const xml = await t.app.inject({ method: 'GET', url: env.enlace, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(xml.statusCode, 200);
    assert.match(xml.body, /EnvioCFE_entreEmpresas/);
    const forged = refused.body.data.at(-1);
    const ack = await t.app.inject({ method: 'GET', url: forged.enlace, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(ack.statusCode, 200);
    assert.equal(ack.headers['x-estado'], 'rechazada');
    assert.match(ack.body, new RegExp(`<RUCReceptor>${bRut}</RUCReceptor>`));
  });

  test('access: another company\'s user sees none of it', async () => {
    const other = await insertCompany(t);
    const outsider = await createUser(t, admin, 'intercambio-ajeno@test.uy', [{ idEmpresa: other.id, rol: 'administrador' }]);
    assert.equal((await t.call(outsider.token, 'GET', `/api/v1/cfeemitido/sobresReceptor?idEmpresa=${a.id}`)).status, 404);
    assert.equal((await t.call(outsider.token, 'GET', `/api/v1/cfeemitido/respuestasReceptor?idEmpresa=${a.id}`)).status, 404);
    assert.equal((await t.call(outsider.token, 'GET', `/api/v1/cfeemitido/${toC.cfe.id}/intercambio`)).body.code, 'CFE_NO_ENCONTRADO_SOBRE');
    assert.equal((await t.call(outsider.token, 'GET', `/api/v1/cfeemitido/sobreReceptor/${toC.envelopeId}`)).status, 404);
    const [ackId] = (await t.db.execute(sql`select id::int from receiver_acks where company_id = ${a.id} limit 1`)).rows.map((r) => (r as { id: number }).id);
    assert.equal((await t.call(outsider.token, 'GET', `/api/v1/cfeemitido/respuestaReceptor/${ackId}`)).status, 404);
    const own = await t.call(outsider.token, 'GET', `/api/v1/cfeemitido/respuestasReceptor?idEmpresa=${other.id}`);
    assert.deepEqual({ status: own.status, total: own.body.total }, { status: 200, total: 0 });
  });
});
