/**
 * Received CFEs through a real mail system (issue 30 point 7): Dovecot IMAP + an SMTP server relaying
 * into it (test/support/mail-system.ts). Company A issues an e-Factura to company B; the envelope
 * travels by SMTP into B's mailbox; B's poller registers it and its ACKSobre AS reaches A's mailbox
 * (Reply-To of A's envelope); B rejects with E24; A's poller applies the ACKCFE and A's issued CFE
 * becomes receptor_rechazado with event Cfe.RechazadoReceptor. Then bad mails, each recorded, none lost.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser } from '../../../test/support/factories.js';
import { startMailSystem, type MailSystem } from '../../../test/support/mail-system.js';
import { setUpDgiIssuer, today } from '../dgi-submission/dgi-submission.test-helpers.js';
import { createDeliveryEngine } from '../webhooks/delivery-engine.js';
import { silentLogger, startReceiver } from '../webhooks/webhooks.test-helpers.js';

let t: TestApp;
let ms: MailSystem;
let admin: string;
let a: { id: number; rut: string };
let b: { id: number; rut: string };
let customerOfA: number;
const hooks = await startReceiver();

const job = (name: string) => t.modules.jobs.find((j) => j.job.name === name)!;
const runJob = (name: string, payload: unknown) => job(name).handle(payload as never, { logger: t.app.log as never, attempt: 1, maxAttempts: 10 });
const mailbox = () => t.modules.services.receivedCfeMailbox;
/** Our answers waiting for their mail job: run them as the worker would. */
async function sendPendingAnswers(companyId: number) {
  const rows = (await t.db.execute(sql`select id from received_answers where company_id = ${companyId} and estado = 'pendiente' order by id`)).rows as Array<{ id: string }>;
  for (const r of rows) await runJob('receivedCfe.answerMail', { id: Number(r.id) });
  return rows.length;
}
const configure = (companyId: number, user: string) =>
  t.call(admin, 'PUT', '/api/v1/empresa/correoEntrante', { idEmpresa: companyId, host: '127.0.0.1', puerto: ms.imapPort, tls: false, usuario: user, clave: ms.users[user], direccion: `${user}@test.uy` });

before(async () => {
  ms = await startMailSystem({ a: 'clave-a', b: 'clave-b' });
  t = await createTestApp({ SMTP_URL: ms.smtpUrl, RECEIVED_MAX_ATTACHMENT_BYTES: '30000' });
  admin = await t.adminToken();
  ({ company: a } = await setUpDgiIssuer(t, admin));
  ({ company: b } = await setUpDgiIssuer(t, admin));
  const c = await t.call(admin, 'POST', '/api/v1/cliente/crear', { idEmpresa: a.id, tipoDocumento: 2, documento: b.rut, razonSocial: 'Empresa B', direccion: 'Calle 1', ciudad: 'Montevideo', emisorElectronico: true, emailIntercambio: 'b@test.uy' });
  assert.equal(c.status, 201, JSON.stringify(c.body));
  customerOfA = c.body.id;
  assert.equal((await configure(a.id, 'a')).status, 200);
  assert.equal((await configure(b.id, 'b')).status, 200);
});
after(async () => {
  await hooks.close();
  await t?.close();
  await ms?.stop();
});

describe('happy path', () => {
  test('verificar-email-entrante reports the folder; the password is never returned', async () => {
    const v = await t.call(admin, 'POST', '/api/v1/empresa/verificar-email-entrante', { idEmpresa: b.id });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    assert.equal(v.body.ok, true);
    assert.equal(v.body.mensajes, 0);
    const g = await t.call(admin, 'GET', `/api/v1/empresa/correoEntrante?idEmpresa=${b.id}`);
    assert.equal(g.body.claveConfigurada, true);
    assert.doesNotMatch(JSON.stringify(g.body), /clave-b/);
  });

  test('A → B by e-mail: B registers the envelope, ACKSobre AS reaches A; B rejects E24 and A\'s CFE shows it, its webhook gets event 10', async () => {
    const hook = await t.call(admin, 'POST', `/api/v1/webhooks?idEmpresa=${a.id}`, { url: hooks.url, events: ['Cfe.RechazadoReceptor'] });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', {
      idEmpresa: a.id, codComercio: 'C1', codTerminal: 'T1',
      cfe: { idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { idCliente: customerOfA }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '100' }] },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const w = t.modules.services.dgiSubmissionWorker;
    const env = (await w.createEnvelope(a.id))!;
    assert.equal(await w.sendEnvelope(env.id), 'recibido');
    const [sent] = await t.modules.services.receiverExchange.dispatch();
    await runJob('receiverExchange.mail', { id: sent });
    assert.equal((await ms.messages('b')).length, 1, 'the envelope reached B\'s mailbox');

    assert.equal(await mailbox().poll(b.id), 1);
    const [rc] = (await t.db.execute(sql`select id, estado, canal from received_cfes where company_id = ${b.id}`)).rows as Array<{ id: string; estado: string; canal: string }>;
    assert.deepEqual({ estado: rc.estado, canal: rc.canal }, { estado: 'pendiente', canal: 'correo' });
    assert.equal(await mailbox().poll(b.id), 0, 'read once');
    assert.equal(await sendPendingAnswers(b.id), 1);
    assert.equal((await ms.messages('a')).length, 1, 'ACKSobre reached A\'s mailbox');
    assert.equal(await mailbox().poll(a.id), 1);
    const envRow = (await t.db.execute(sql`select estado from receiver_envelopes where id = ${sent}`)).rows[0] as { estado: string };
    assert.equal(envRow.estado, 'recibido');

    const rej = await t.call(admin, 'POST', '/api/v1/cferecibido/rechazar', { idEmpresa: b.id, ids: [Number(rc.id)], motivo: { codigo: 'E24' } });
    assert.equal(rej.body.resultados[0].resultado, 'hecho');
    assert.equal(await sendPendingAnswers(b.id), 1);
    assert.equal(await mailbox().poll(a.id), 1);
    const issued = (await t.db.execute(sql`select estado_receptor from issued_cfes where id = ${r.body.id}`)).rows[0] as { estado_receptor: string };
    assert.equal(issued.estado_receptor, 'receptor_rechazado');
    const ev = (await t.db.execute(sql`select count(*)::int as n from outbox_events where company_id = ${a.id} and type = 'Cfe.RechazadoReceptor'`)).rows[0] as { n: number };
    assert.equal(ev.n, 1);
    const mails = (await t.db.execute(sql`select clase from inbound_mails where company_id = ${a.id} order by uid`)).rows.map((x) => (x as { clase: string }).clase);
    assert.deepEqual(mails, ['respuesta', 'respuesta']);
    // Event 10 of the spec reaches A's webhook through the delivery engine.
    const engine = createDeliveryEngine({ database: t.database, logger: silentLogger, secrets: t.modules.services.secretBox, timeoutMs: 2000, allowPrivateUrls: true });
    try {
      await engine.drain();
    } finally {
      await engine.close();
    }
    const delivered = hooks.received.map((x) => JSON.parse(x.body) as { type: string; data: { id: number; motivos: Array<{ codigo: string }> } });
    assert.deepEqual(delivered.map((d) => [d.type, d.data.id, d.data.motivos[0].codigo]), [['Cfe.RechazadoReceptor', r.body.id, 'E24']]);
  });
});

describe('errors', () => {
  test('bad mails are recorded and skipped, nothing is lost, the poller goes on', async () => {
    const mk = (subject: string, body: string) => `From: x@otro.uy\r\nTo: b@test.uy\r\nSubject: ${subject}\r\nMIME-Version: 1.0\r\n${body}`;
    const att = (name: string, content: string) => mk(name, `Content-Type: multipart/mixed; boundary=XX\r\n\r\n--XX\r\nContent-Type: text/plain\r\n\r\nadjunto\r\n--XX\r\nContent-Type: application/xml; name="${name}"\r\nContent-Disposition: attachment; filename="${name}"\r\n\r\n${content}\r\n--XX--\r\n`);
    await ms.append('b', mk('sin adjunto', 'Content-Type: text/plain\r\n\r\nhola\r\n'));
    await ms.append('b', att('roto.xml', '<EnvioCFE_entreEmpresas><roto'));
    await ms.append('b', att('bomba.xml', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><EnvioCFE_entreEmpresas>&a;</EnvioCFE_entreEmpresas>'));
    await ms.append('b', att('grande.xml', `<EnvioCFE_entreEmpresas>${'x'.repeat(40_000)}</EnvioCFE_entreEmpresas>`));
    await ms.append('b', att('otro.xml', '<Factura/>'));
    const before = (await t.db.execute(sql`select count(*)::int as n from received_envelopes where company_id = ${b.id}`)).rows[0] as { n: number };
    assert.equal(await mailbox().poll(b.id), 5);
    const rows = (await t.db.execute(sql`select clase, detalle from inbound_mails where company_id = ${b.id} order by uid desc limit 5`)).rows.reverse() as Array<{ clase: string; detalle: string }>;
    assert.deepEqual(rows.map((x) => x.clase), ['sin_adjunto', 'sobre', 'sobre', 'demasiado_grande', 'otro']);
    assert.match(rows[3].detalle, /máximo/);
    const envs = (await t.db.execute(sql`select estado, motivos from received_envelopes where company_id = ${b.id} order by id`)).rows.slice(before.n) as Array<{ estado: string; motivos: Array<{ codigo: string }> }>;
    assert.deepEqual(envs.map((e) => `${e.estado} ${e.motivos[0].codigo}`), ['BS S01', 'BS S01']);
    const status = await t.call(admin, 'GET', `/api/v1/empresa/correoEntrante?idEmpresa=${b.id}`);
    assert.equal(status.body.ultimoError, null);
    assert.ok(status.body.ultimoSondeoOk);
  });

  test('two pollers racing read each mail once; a wrong password is reported in words', async () => {
    await ms.append('b', 'From: x@otro.uy\r\nTo: b@test.uy\r\nSubject: carrera\r\n\r\nhola\r\n');
    const [n1, n2] = await Promise.all([mailbox().poll(b.id), mailbox().poll(b.id)]);
    const handled = (await t.db.execute(sql`select count(*)::int as n from inbound_mails where company_id = ${b.id} and asunto = 'carrera'`)).rows[0] as { n: number };
    assert.equal(handled.n, 1);
    assert.ok(n1 + n2 >= 1);
    await t.call(admin, 'PUT', '/api/v1/empresa/correoEntrante', { idEmpresa: b.id, host: '127.0.0.1', puerto: ms.imapPort, tls: false, usuario: 'b', clave: 'mala', direccion: 'b@test.uy' });
    const v = await t.call(admin, 'POST', '/api/v1/empresa/verificar-email-entrante', { idEmpresa: b.id });
    assert.equal(v.status, 422);
    assert.equal(v.body.code, 'CORREO_ENTRANTE_FALLO');
    assert.equal(v.body.tipoFallo, 'autenticacion');
    const closed = await t.call(admin, 'PUT', '/api/v1/empresa/correoEntrante', { idEmpresa: b.id, host: '127.0.0.1', puerto: 1, tls: false, usuario: 'b', clave: 'x' });
    assert.equal(closed.status, 200);
    const refused = await t.call(admin, 'POST', '/api/v1/empresa/verificar-email-entrante', { idEmpresa: b.id });
    assert.equal(refused.body.tipoFallo, 'conexion');
    await assert.rejects(mailbox().poll(b.id));
    const g = await t.call(admin, 'GET', `/api/v1/empresa/correoEntrante?idEmpresa=${b.id}`);
    assert.match(g.body.ultimoError, /conectar/);
  });
});

describe('access', () => {
  test('another company\'s administrator cannot read or change the mailbox; an emisor cannot either', async () => {
    const outsider = await createUser(t, admin, 'mb-outsider@test.uy', [{ idEmpresa: a.id, rol: 'administrador' }]);
    assert.equal((await t.call(outsider.token, 'GET', `/api/v1/empresa/correoEntrante?idEmpresa=${b.id}`)).status, 404);
    assert.equal((await t.call(outsider.token, 'POST', '/api/v1/empresa/verificar-email-entrante', { idEmpresa: b.id })).status, 404);
    const issuer = await createUser(t, admin, 'mb-emisor@test.uy', [{ idEmpresa: b.id, rol: 'emisor' }]);
    assert.equal((await t.call(issuer.token, 'GET', `/api/v1/empresa/correoEntrante?idEmpresa=${b.id}`)).status, 403);
  });
});
