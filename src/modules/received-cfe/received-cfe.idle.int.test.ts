/**
 * Issue 42 point 5 against a real Dovecot: the IMAP IDLE watcher reads a mailed envelope as soon as
 * the server announces it (no cron runs in this test: only the IDLE notification can read it), the
 * mailbox log lists every mail with its outcome, and deactivating a mailbox closes its connection.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { startMailSystem, type MailSystem } from '../../../test/support/mail-system.js';
import { waitFor } from '../dgi-submission/dgi-submission.test-helpers.js';

let t: TestApp;
let ms: MailSystem;
let admin: string;
let b: { id: number; rut: string };

const watcher = () => t.modules.services.receivedCfeMailboxWatcher;
const configure = (activo = true) =>
  t.call(admin, 'PUT', '/api/v1/empresa/correoEntrante', { idEmpresa: b.id, host: '127.0.0.1', puerto: ms.imapPort, tls: false, usuario: 'b', clave: 'clave-b', direccion: 'b@test.uy', activo });
const mail = (subject: string, name: string, content: string) =>
  `From: emisor@otro.uy\r\nTo: b@test.uy\r\nSubject: ${subject}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=XX\r\n\r\n--XX\r\nContent-Type: text/plain\r\n\r\nadjunto\r\n--XX\r\nContent-Type: application/xml; name="${name}"\r\nContent-Disposition: attachment; filename="${name}"\r\n\r\n${content}\r\n--XX--\r\n`;
const logged = async (subject: string) => (await t.db.execute(sql`select clase from inbound_mails where company_id = ${b.id} and asunto = ${subject}`)).rows[0] as { clase: string } | undefined;

before(async () => {
  ms = await startMailSystem({ b: 'clave-b' });
  t = await createTestApp();
  admin = await t.adminToken();
  b = await insertCompany(t);
  assert.equal((await configure()).status, 200);
});
after(async () => {
  await watcher()?.stop();
  await t?.close();
  await ms?.stop();
});

describe('happy path', () => {
  test('a mailed envelope is read on the IDLE notification, without any poll; the log lists it with its outcome', async () => {
    await ms.append('b', mail('antes', 'a.xml', '<Factura/>'));
    watcher().start();
    await watcher().refresh();
    assert.deepEqual(watcher().watching(), [b.id]);
    // The catch-up read on connect takes what arrived before; then the connection sits in IDLE.
    await waitFor('catch-up read', () => logged('antes'));
    await new Promise((r) => setTimeout(r, 1500));

    await ms.append('b', mail('sobre por correo', 'Sob_roto.xml', '<EnvioCFE_entreEmpresas><roto'));
    const row = await waitFor('the IDLE notification reads the mail', () => logged('sobre por correo'));
    assert.equal(row.clase, 'sobre');

    const log = await t.call(admin, 'GET', `/api/v1/empresa/correoEntrante/correos?idEmpresa=${b.id}`);
    assert.equal(log.status, 200, JSON.stringify(log.body));
    assert.equal(log.body.total, 2);
    const [last, first] = log.body.data;
    assert.deepEqual({ asunto: last.asunto, clase: last.clase, remitente: last.remitente, sobres: last.idsSobre.length }, { asunto: 'sobre por correo', clase: 'sobre', remitente: 'emisor@otro.uy', sobres: 1 });
    assert.equal(first.clase, 'otro');
    assert.match(first.detalle, /raíz Factura/);
    const sobres = await t.call(admin, 'GET', `/api/v1/empresa/correoEntrante/correos?idEmpresa=${b.id}&clase=sobre`);
    assert.deepEqual(sobres.body.data.map((m: { asunto: string }) => m.asunto), ['sobre por correo']);
  });

  test('deactivating the mailbox closes its IDLE connection; reactivating opens it again', async () => {
    assert.equal((await configure(false)).status, 200);
    await watcher().refresh();
    assert.deepEqual(watcher().watching(), []);
    assert.equal((await configure(true)).status, 200);
    await watcher().refresh();
    assert.deepEqual(watcher().watching(), [b.id]);
  });
});

describe('errors and access', () => {
  test('an unknown clase is 400; another company\'s log is 404; lectura of the company may read it', async () => {
    assert.equal((await t.call(admin, 'GET', `/api/v1/empresa/correoEntrante/correos?idEmpresa=${b.id}&clase=nada`)).status, 400);
    const other = await insertCompany(t);
    const outsider = await createUser(t, admin, 'log-ajeno@test.uy', [{ idEmpresa: other.id, rol: 'administrador' }]);
    assert.equal((await t.call(outsider.token, 'GET', `/api/v1/empresa/correoEntrante/correos?idEmpresa=${b.id}`)).status, 404);
    const reader = await createUser(t, admin, 'log-lector@test.uy', [{ idEmpresa: b.id, rol: 'lectura' }]);
    const r = await t.call(reader.token, 'GET', `/api/v1/empresa/correoEntrante/correos?idEmpresa=${b.id}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.total, 2);
  });
});
