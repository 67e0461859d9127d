/**
 * Per-company outbound mail (issue 7 point 5) through the real app: settings with a sealed password,
 * CFE e-mails through the company's own SMTP server (AUTH checked by a loopback smtp-server) instead
 * of the service's, and the verificar-email-saliente test send.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { startJobRunner, type JobRunner } from '../../platform/jobs/runner.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';
import { startTestSmtp, type TestSmtp } from '../cfe-documents/cfe-documents.test-helpers.js';

const USER = 'cfe@almacen.uy';
const PASS = 'cl4ve-secreta-SMTP';

let t: TestApp;
let serviceSmtp: TestSmtp;
let companySmtp: TestSmtp;
let runner: JobRunner;
let admin: string;
let company: { id: number; rut: string };
let other: { id: number; rut: string };
let lectura: string;
let outsider: string;
const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);

const settings = (over: Record<string, unknown> = {}) => ({
  idEmpresa: company.id, smtpHost: '127.0.0.1', smtpPuerto: companySmtp.port, smtpSeguro: false, smtpUsuario: USER, smtpClave: PASS, remitente: 'Almacén <cfe@almacen.uy>', ...over,
});

async function waitForSend(idCfe: number, id: number, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await t.call(admin, 'GET', `/api/v1/cfeemitido/emailenvios?idCfe=${idCfe}`);
    const send = r.body.data.find((s: any) => s.id === id);
    if (send && (send.estado === 'enviado' || send.estado === 'fallido')) return send;
    if (Date.now() > deadline) throw new Error(`send ${id} still ${send?.estado}`);
    await new Promise((r2) => setTimeout(r2, 150));
  }
}

before(async () => {
  serviceSmtp = await startTestSmtp();
  companySmtp = await startTestSmtp({ auth: { user: USER, pass: PASS } });
  t = await createTestApp({ SMTP_URL: `smtp://127.0.0.1:${serviceSmtp.port}`, MAIL_FROM: 'Servicio <no-reply@servicio.uy>' });
  admin = await t.adminToken();
  company = await insertCompany(t, { razonSocial: 'Almacén Correo S.A.' });
  other = await insertCompany(t);
  await setUpIssuer(t.db, t.call, admin, company);
  lectura = (await createUser(t, admin, 'lectura-smtp@test.uy', [{ idEmpresa: company.id, rol: 'lectura' }])).token;
  outsider = (await createUser(t, admin, 'otra-smtp@test.uy', [{ idEmpresa: other.id, rol: 'administrador' }])).token;
  runner = await startJobRunner({ pool: t.database.pool, jobs: t.modules.jobs, concurrency: 2, logger: t.app.log as never });
});

after(async () => {
  await runner?.stop();
  await t?.close();
  await serviceSmtp?.close();
  await companySmtp?.close();
});

describe('happy path', () => {
  test('without settings: GET says configurado false and the test message goes through the service transport', async () => {
    const g = await t.call(admin, 'GET', `/api/v1/empresa/correoSaliente?idEmpresa=${company.id}`);
    assert.equal(g.status, 200, JSON.stringify(g.body));
    assert.equal(g.body.configurado, false);
    assert.equal(g.body.smtpClaveConfigurada, false);
    const v = await t.call(admin, 'POST', '/api/v1/empresa/verificar-email-saliente', { idEmpresa: company.id, destinatario: 'prueba@cliente.uy' });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    assert.equal(v.body.transporte, 'servicio');
    assert.ok(v.body.messageId);
    const mail = serviceSmtp.received.find((m) => m.rcptTo.includes('prueba@cliente.uy'));
    assert.ok(mail, 'the service server received the test message');
    assert.equal(mail.from?.value[0]?.address, 'no-reply@servicio.uy');
  });

  test('settings saved: the password is never returned and is stored sealed, not in clear', async () => {
    const p = await t.call(admin, 'PUT', '/api/v1/empresa/correoSaliente', settings());
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.equal(p.body.configurado, true);
    assert.equal(p.body.smtpClaveConfigurada, true);
    assert.equal(p.body.smtpUsuario, USER);
    assert.equal('smtpClave' in p.body, false);
    assert.ok(!JSON.stringify(p.body).includes(PASS));
    const g = await t.call(admin, 'GET', `/api/v1/empresa/correoSaliente?idEmpresa=${company.id}`);
    assert.deepEqual(g.body, p.body);
    const row = (await t.db.execute(sql`select * from company_outbound_mail where company_id = ${company.id}`)).rows[0] as Record<string, unknown>;
    assert.ok(row.smtp_clave_cifrada);
    assert.ok(!JSON.stringify(row).includes(PASS));
    // Omitting smtpClave keeps the stored password.
    const keep = await t.call(admin, 'PUT', '/api/v1/empresa/correoSaliente', settings({ smtpClave: undefined }));
    assert.equal(keep.body.smtpClaveConfigurada, true);
  });

  test('a CFE e-mail goes through the company SMTP server (AUTH user/password), From = remitente, not the service server', async () => {
    const before = serviceSmtp.received.length;
    const cfe = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', {
      idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1',
      cfe: { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '150' }] },
    });
    assert.equal(cfe.status, 200, JSON.stringify(cfe.body));
    const r = await t.call(admin, 'POST', '/api/v1/cfeemitido/enviarPdfPorCorreo', { idCfe: cfe.body.id, destinatarios: ['cliente@final.uy'] });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const sent = await waitForSend(cfe.body.id, r.body.id);
    assert.equal(sent.estado, 'enviado', JSON.stringify(sent));
    assert.equal(sent.transporte, 'empresa');
    const mail = companySmtp.received.find((m) => m.rcptTo.includes('cliente@final.uy'));
    assert.ok(mail, 'the company server received the CFE');
    assert.equal(mail.from?.value[0]?.address, 'cfe@almacen.uy');
    assert.equal(mail.attachments.length, 2);
    assert.equal(serviceSmtp.received.length, before, 'nothing went through the service server');
  });

  test('verificar-email-saliente through the company settings; default recipient missing → 422', async () => {
    const v = await t.call(admin, 'POST', '/api/v1/empresa/verificar-email-saliente', { idEmpresa: company.id, destinatario: 'admin@almacen.uy' });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    assert.equal(v.body.transporte, 'empresa');
    assert.ok(companySmtp.received.some((m) => m.rcptTo.includes('admin@almacen.uy')));
    const none = await t.call(admin, 'POST', '/api/v1/empresa/verificar-email-saliente', { idEmpresa: company.id });
    assert.equal(none.status, 422);
    assert.equal(none.body.code, 'DESTINATARIO_PRUEBA_REQUERIDO');
  });

  test('smtpHost null clears the settings: back to the service transport', async () => {
    const c = await t.call(admin, 'PUT', '/api/v1/empresa/correoSaliente', { idEmpresa: company.id, smtpHost: null });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    assert.equal(c.body.configurado, false);
    const v = await t.call(admin, 'POST', '/api/v1/empresa/verificar-email-saliente', { idEmpresa: company.id, destinatario: 'x@cliente.uy' });
    assert.equal(v.body.transporte, 'servicio');
    await t.call(admin, 'PUT', '/api/v1/empresa/correoSaliente', settings());
  });
});

describe('errors', () => {
  test('wrong password: verificar-email-saliente answers 422 SMTP_FALLO with the server reply, never 500', async () => {
    await t.call(admin, 'PUT', '/api/v1/empresa/correoSaliente', settings({ smtpClave: 'equivocada' }));
    const v = await t.call(admin, 'POST', '/api/v1/empresa/verificar-email-saliente', { idEmpresa: company.id, destinatario: 'x@cliente.uy' });
    assert.equal(v.status, 422, JSON.stringify(v.body));
    assert.equal(v.body.code, 'SMTP_FALLO');
    assert.match(v.body.error, /Invalid username or password/);
    assert.equal(v.body.codigoSmtp, 535);
    await t.call(admin, 'PUT', '/api/v1/empresa/correoSaliente', settings());
  });

  test('unreachable server: 422 SMTP_FALLO', async () => {
    const closed = await startTestSmtp();
    const port = closed.port;
    await closed.close();
    await t.call(admin, 'PUT', '/api/v1/empresa/correoSaliente', settings({ smtpPuerto: port }));
    const v = await t.call(admin, 'POST', '/api/v1/empresa/verificar-email-saliente', { idEmpresa: company.id, destinatario: 'x@cliente.uy' });
    assert.equal(v.status, 422, JSON.stringify(v.body));
    assert.equal(v.body.code, 'SMTP_FALLO');
    await t.call(admin, 'PUT', '/api/v1/empresa/correoSaliente', settings());
  });

  test('invalid settings: 400 and nothing changed', async () => {
    for (const bad of [settings({ smtpPuerto: undefined }), settings({ remitente: 'no-es-correo' }), settings({ smtpPuerto: 70000 }), { ...settings(), extra: 1 }]) {
      const r = await t.call(admin, 'PUT', '/api/v1/empresa/correoSaliente', bad);
      assert.equal(r.status, 400, JSON.stringify(r.body));
    }
    const g = await t.call(admin, 'GET', `/api/v1/empresa/correoSaliente?idEmpresa=${company.id}`);
    assert.equal(g.body.smtpPuerto, companySmtp.port);
  });
});

describe('access', () => {
  test('another company administrator: 404 on every endpoint; lectura: 403; anonymous: 401', async () => {
    assert.equal((await t.call(outsider, 'GET', `/api/v1/empresa/correoSaliente?idEmpresa=${company.id}`)).status, 404);
    assert.equal((await t.call(outsider, 'PUT', '/api/v1/empresa/correoSaliente', settings({ smtpHost: 'evil.example' }))).status, 404);
    assert.equal((await t.call(outsider, 'POST', '/api/v1/empresa/verificar-email-saliente', { idEmpresa: company.id, destinatario: 'a@b.uy' })).status, 404);
    assert.equal((await t.call(lectura, 'GET', `/api/v1/empresa/correoSaliente?idEmpresa=${company.id}`)).status, 403);
    assert.equal((await t.call(lectura, 'PUT', '/api/v1/empresa/correoSaliente', settings())).status, 403);
    assert.equal((await t.call(lectura, 'POST', '/api/v1/empresa/verificar-email-saliente', { idEmpresa: company.id, destinatario: 'a@b.uy' })).status, 403);
    assert.equal((await t.call(undefined, 'GET', `/api/v1/empresa/correoSaliente?idEmpresa=${company.id}`)).status, 401);
    const g = await t.call(admin, 'GET', `/api/v1/empresa/correoSaliente?idEmpresa=${company.id}`);
    assert.equal(g.body.smtpHost, '127.0.0.1');
  });
});
