/**
 * Printed representation, e-mail and ZIP of issued CFEs through the real app: PDFs checked with
 * poppler (text, QR decoded from the rendered page), e-mails received by a loopback SMTP server,
 * ZIPs read back through their central directory.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { createRequire } from 'node:module';
import { eq, sql } from 'drizzle-orm';
import { companyLogos } from '../companies/companies.tables.js';
import { cfeEmailSends } from './cfe-documents.tables.js';
import { startJobRunner, type JobRunner } from '../../platform/jobs/runner.js';
import { PREVIEW_TEXT } from '../documents/pdf/index.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';
import { decodeQr, pdfImageCount, pdfPageSize, pdfText, readZip, requirePoppler, startTestSmtp, type TestSmtp } from './cfe-documents.test-helpers.js';

// pngjs: CommonJS test-only helper.
const { PNG } = createRequire(import.meta.url)('pngjs') as { PNG: (new (o: { width: number; height: number }) => { data: Buffer }) & { sync: { write(p: unknown): Buffer } } };

let t: TestApp;
let smtp: TestSmtp;
let runner: JobRunner;
let admin: string;
let company: { id: number; rut: string };
let other: { id: number; rut: string };
let lectura: string;
let outsider: string;
let factura: any;
let ticket: any;
let clienteId: number;
let previewUrl: string;
const previewBody = () => ({ idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { idCliente: clienteId }, detalles: [line], adenda: 'Presupuesto 42' } });
const issuedCount = async () => Number(((await t.db.execute(sql`select count(*)::int as n from issued_cfes where company_id = ${company.id}`)).rows[0] as { n: number }).n);
const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);
const dueDate = new Date(Date.now() - 3 * 3600_000 + 30 * 86_400_000).toISOString().slice(0, 10);
const ddmmyyyy = (iso: string) => iso.split('-').reverse().join('/');
const line = { indicadorFacturacion: 3, nombreItem: 'Yerba mate 1 kg', cantidad: 2, precioUnitario: '1189.90' };

async function emit(cfe: Record<string, unknown>, idEmpresa = company.id) {
  const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', { idEmpresa, codComercio: 'C1', codTerminal: 'T1', cfe: { detalles: [line], ...cfe } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

async function get(token: string | undefined, url: string) {
  const res = await t.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.statusCode, headers: res.headers, raw: res.rawPayload, json: () => res.json() };
}

async function zip(token: string, body: Record<string, unknown>) {
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/cfeemitido/descargarPdfsFiltrados', payload: body, headers: { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, headers: res.headers, raw: res.rawPayload, json: () => res.json() };
}

async function waitForSend(idCfe: number, id: number, until: (estado: string) => boolean, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await t.call(admin, 'GET', `/api/v1/cfeemitido/emailenvios?idCfe=${idCfe}`);
    const send = r.body.data.find((s: any) => s.id === id);
    if (send && until(send.estado)) return send;
    if (Date.now() > deadline) throw new Error(`send ${id} still ${send?.estado}`);
    await new Promise((r2) => setTimeout(r2, 150));
  }
}

before(async () => {
  requirePoppler();
  smtp = await startTestSmtp();
  t = await createTestApp({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'Facturación <cfe@test.uy>' });
  admin = await t.adminToken();
  company = await insertCompany(t, { razonSocial: 'Almacén Demo S.A.' });
  other = await insertCompany(t);
  await setUpIssuer(t.db, t.call, admin, company);
  await setUpIssuer(t.db, t.call, admin, other);
  lectura = (await createUser(t, admin, 'lectura-docs@test.uy', [{ idEmpresa: company.id, rol: 'lectura' }])).token;
  outsider = (await createUser(t, admin, 'otra-docs@test.uy', [{ idEmpresa: other.id, rol: 'administrador' }])).token;
  const cliente = await t.call(admin, 'POST', '/api/v1/cliente/crear', { idEmpresa: company.id, tipoDocumento: 2, documento: '214844360018', razonSocial: 'Cliente Mayorista S.R.L.', email: 'compras@cliente.uy' });
  assert.equal(cliente.status, 201, JSON.stringify(cliente.body));
  clienteId = cliente.body.id;
  factura = await emit({
    idDoc: { tipoCfe: 111, fechaEmision: today, formaPago: 2, fechaVencimiento: dueDate },
    receptor: { idCliente: cliente.body.id },
    detalles: [{ ...line, unidadMedida: 'unid', codigoItem: [{ tpoCod: 'INT1', cod: 'YER-1KG' }] }],
    adenda: 'Entregar en depósito 3',
  });
  ticket = await emit({ idDoc: { tipoCfe: 101, fechaEmision: today } });
  await emit({ idDoc: { tipoCfe: 101, fechaEmision: today } });
  runner = await startJobRunner({ pool: t.database.pool, jobs: t.modules.jobs, concurrency: 2, logger: t.app.log as never });
});

after(async () => {
  await runner?.stop();
  await t?.close();
  await smtp?.close();
});

describe('happy path', () => {
  test('representacionImpresa A4: the security code, CAE, totals, receiver and adenda are printed; the QR decodes to emitir\'s urlQr', async () => {
    const r = await get(admin, `/api/v1/cfeemitido/representacionImpresa?idCfe=${factura.id}&formato=A4`);
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/pdf');
    assert.match(String(r.headers['content-disposition']), /e-Factura_A-\d{7}\.pdf/);
    const size = pdfPageSize(r.raw);
    assert.deepEqual([Math.round(size.w), Math.round(size.h)], [595, 842]);
    const text = pdfText(r.raw);
    assert.ok(text.includes(factura.codigoSeguridad), 'security code');
    assert.ok(text.includes(factura.cae.numero), 'CAE number');
    assert.match(text, /RUC COMPRADOR/);
    assert.match(text, /Cliente Mayorista S\.R\.L\./);
    assert.match(text, /Entregar en depósito 3/);
    assert.match(text, /Crédito/);
    // What the request sent, read back from the signed XML (issue 27): payment due date, item code and unit.
    assert.ok(text.includes(`Vencimiento: ${ddmmyyyy(dueDate)}`), 'payment due date');
    assert.match(text.split('\n').find((l) => l.includes('Yerba mate 1 kg')) ?? '', /YER-1KG\s+Yerba mate 1 kg\s+2\s+unid/);
    assert.match(text, /Fecha de vencimiento del CAE/);
    // 2 × 1189.90 = 2379.80 net + 22 % = 523.56 VAT → 2903.36, printed with Uruguayan separators.
    assert.equal(factura.totales.MntPagar, '2903.36');
    assert.match(text, /2\.903,36/);
    assert.match(text, /523,56/);
    assert.equal(decodeQr(r.raw), factura.urlQr);
  });

  test('representacionImpresa ticket80: an 80 mm page, CONSUMO FINAL, same QR as emitir', async () => {
    const r = await get(lectura, `/api/v1/cfeemitido/representacionImpresa?idCfe=${ticket.id}&formato=ticket80`);
    assert.equal(r.status, 200);
    assert.equal(Math.round((pdfPageSize(r.raw).w / 72) * 25.4), 80);
    const text = pdfText(r.raw);
    assert.match(text, /CONSUMO FINAL/);
    assert.ok(text.includes(ticket.codigoSeguridad));
    assert.equal(decodeQr(r.raw), ticket.urlQr);
  });

  test('a dollar receipt prints U$S amounts with Uruguayan separators and the exchange rate; the company logo is embedded', async () => {
    const png = new PNG({ width: 120, height: 40 });
    png.data.fill(90);
    await t.db.insert(companyLogos).values({ companyId: company.id, contentType: 'image/png', data: PNG.sync.write(png) });
    const usd = await emit({ idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { idCliente: clienteId }, totales: { tipoMoneda: 'USD', tipoCambio: '39.5' } });
    const r = await get(admin, `/api/v1/cfeemitido/representacionImpresa?idCfe=${usd.id}`);
    const text = pdfText(r.raw);
    assert.match(text, /U\$S 2\.903,36/);
    assert.match(text, /USD - T\.C\. 39,5/);
    assert.equal(pdfImageCount(r.raw), 1);
    assert.equal(decodeQr(r.raw), usd.urlQr);
    await t.db.delete(companyLogos).where(eq(companyLogos.companyId, company.id));
  });

  test('enviarPdfPorCorreo to the receiver customer: the SMTP server receives the PDF and the signed XML; history shows it sent', async () => {
    const settings = await t.call(admin, 'POST', '/api/v1/empresa/editar', { idEmpresa: company.id, email: 'ventas@almacen.uy', configuracion: { emailCopiaCfe: 'copias@almacen.uy' } });
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    const r = await t.call(admin, 'POST', '/api/v1/cfeemitido/enviarPdfPorCorreo', { idCfe: factura.id });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.deepEqual(r.body.destinatarios, ['compras@cliente.uy']);
    assert.equal(r.body.estado, 'pendiente');
    const sent = await waitForSend(factura.id, r.body.id, (e) => e === 'enviado');
    assert.equal(sent.intentos, 1);
    assert.equal(sent.transporte, 'servicio');
    const mail = smtp.received.find((m) => m.messageId && sent.messageId.includes(m.messageId.replace(/[<>]/g, '')));
    assert.ok(mail, 'message received by the SMTP server');
    assert.match(String(mail.subject), /^e-Factura A-\d+ de Almacén Demo S\.A\.$/);
    assert.deepEqual(mail.rcptTo, ['compras@cliente.uy']);
    // The company's copy is its own message (issue 28: recorded once, never repeated by a retry), sent right after.
    const copySent = async () => (await t.db.select().from(cfeEmailSends).where(eq(cfeEmailSends.id, r.body.id)))[0].copiaEnviadaEn;
    for (let i = 0; i < 50 && !(await copySent()); i++) await new Promise((res) => setTimeout(res, 100));
    const copies = smtp.received.filter((m) => m.rcptTo.includes('copias@almacen.uy') && m.subject === mail.subject);
    assert.equal(copies.length, 1);
    assert.deepEqual(copies[0].rcptTo, ['copias@almacen.uy']);
    assert.ok(copies[0].attachments.some((a) => a.contentType === 'application/pdf'));
    assert.equal(mail.replyTo?.text, 'ventas@almacen.uy');
    assert.ok(mail.text?.includes(factura.codigoSeguridad));
    const [pdf, xml] = [mail.attachments.find((a) => a.contentType === 'application/pdf'), mail.attachments.find((a) => a.contentType === 'application/xml')];
    assert.ok(pdf && xml);
    assert.ok(pdfText(pdf.content).includes(factura.cae.numero));
    const stored = await get(admin, `/api/v1/cfeemitido/${factura.id}/xml`);
    assert.equal(xml.content.toString('utf8'), stored.raw.toString('utf8'));
  });

  test('a transient 4xx is retried with backoff and then sent; a 5xx ends as fallido at once', async () => {
    smtp.refuse.set('temporal@cliente.uy', [451]);
    smtp.refuse.set('nadie@cliente.uy', 550);
    const temp = await t.call(admin, 'POST', '/api/v1/cfeemitido/enviarPdfPorCorreo', { idCfe: ticket.id, destinatarios: ['temporal@cliente.uy'], formato: 'ticket80' });
    const perm = await t.call(admin, 'POST', '/api/v1/cfeemitido/enviarPdfPorCorreo', { idCfe: ticket.id, destinatarios: ['nadie@cliente.uy'], asunto: 'Su compra' });
    assert.equal(temp.status, 202);
    const failed = await waitForSend(ticket.id, perm.body.id, (e) => e === 'fallido');
    assert.equal(failed.codigoSmtp, 550);
    assert.equal(failed.intentos, 1);
    const retried = await waitForSend(ticket.id, temp.body.id, (e) => e === 'enviado');
    assert.equal(retried.intentos, 2);
    assert.equal(retried.codigoSmtp, null);
    // The company copy (emailCopiaCfe, set above) goes once, after the recipient accepted: not on
    // the refused first attempt, not again on the retry, never for the send that failed for good.
    const copy = async () => (await t.db.select().from(cfeEmailSends).where(eq(cfeEmailSends.id, temp.body.id)))[0].copiaEnviadaEn;
    for (let i = 0; i < 50 && !(await copy()); i++) await new Promise((r) => setTimeout(r, 100));
    const copiesOf = (subject: RegExp) => smtp.received.filter((m) => m.rcptTo.includes('copias@almacen.uy') && subject.test(String(m.subject)));
    assert.equal(copiesOf(/^e-Ticket /).length, 1);
    assert.equal(copiesOf(/^Su compra$/).length, 0);
    const history = await t.call(lectura, 'GET', `/api/v1/cfeemitido/emailenvios?idCfe=${ticket.id}&start=0&length=1`);
    assert.equal(history.status, 200);
    assert.equal(history.body.total, 2);
    assert.equal(history.body.data.length, 1);
    assert.equal(history.body.data[0].id, perm.body.id); // newest first
  });

  test('previsualizar: the would-be receipt as a stamped PDF behind a short-lived token; nothing numbered or stored', async () => {
    const previous = await emit({ idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { idCliente: clienteId } });
    const before = await issuedCount();
    const r = await t.call(admin, 'POST', '/api/v1/comprobante/previsualizar', previewBody());
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.url, `/api/v1/comprobante/previsualizar/${r.body.token}`);
    const ttl = Date.parse(r.body.expiraEn) - Date.now();
    assert.ok(ttl > 14 * 60_000 && ttl <= 15 * 60_000, `ttl ${ttl}`);
    previewUrl = r.body.url;
    const pdf = await get(lectura, r.body.url);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    const text = pdfText(pdf.raw);
    assert.ok(text.includes(PREVIEW_TEXT));
    assert.match(text, /Serie \(sin asignar\)\s+N° \(sin asignar\)/);
    assert.match(text, /Cliente Mayorista S\.R\.L\./);
    assert.match(text, /2\.903,36/);
    assert.match(text, /Presupuesto 42/);
    assert.equal(decodeQr(pdf.raw), undefined, 'a preview carries no QR');
    assert.equal(await issuedCount(), before);
    // The next real receipt takes the number right after the last one: the preview reserved nothing.
    const next = await emit({ idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { idCliente: clienteId } });
    assert.equal(next.numero, previous.numero + 1);
    const ticketPreview = await t.call(admin, 'POST', '/api/v1/comprobante/previsualizar?formato=ticket80', { ...previewBody(), cfe: { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: [line] } });
    assert.equal(ticketPreview.body.formato, 'ticket80');
    const ticketPdf = await get(admin, ticketPreview.body.url);
    assert.equal(Math.round((pdfPageSize(ticketPdf.raw).w / 72) * 25.4), 80);
  });

  test('descargarPdfsFiltrados: a ZIP with one PDF and the signed XML per matching CFE', async () => {
    const r = await zip(lectura, { idEmpresa: company.id, fechaFirmaDesde: today, fechaFirmaHasta: today });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/zip');
    const files = readZip(r.raw);
    const names = [...files.keys()].sort();
    const stored = await issuedCount();
    assert.equal(names.length, 2 * stored);
    assert.equal(names.filter((n) => n.startsWith('pdf/') && n.endsWith('.pdf')).length, stored);
    assert.equal(names.filter((n) => n.startsWith('xml/') && n.endsWith('.xml')).length, stored);
    const base = `e-Factura_A-${String(factura.numero).padStart(7, '0')}`;
    const xml = await get(admin, `/api/v1/cfeemitido/${factura.id}/xml`);
    assert.equal(files.get(`xml/${base}.xml`)?.toString('utf8'), xml.raw.toString('utf8'));
    assert.equal(decodeQr(files.get(`pdf/${base}.pdf`)!), factura.urlQr);

    const onlyTickets = readZip((await zip(admin, { idEmpresa: company.id, tipoCfe: [101], incluirXml: false, formato: 'ticket80' })).raw);
    assert.deepEqual([...onlyTickets.keys()].every((n) => /^pdf\/e-Ticket_A-\d{7}\.pdf$/.test(n)), true);
    assert.equal(onlyTickets.size, 2);
    const none = readZip((await zip(admin, { idEmpresa: company.id, fechaFirmaDesde: '2001-01-01', fechaFirmaHasta: '2001-01-31' })).raw);
    assert.equal(none.size, 0);
  });
});

describe('errors', () => {
  test('bad formato or idCfe → 400; unknown CFE → 404', async () => {
    assert.equal((await get(admin, `/api/v1/cfeemitido/representacionImpresa?idCfe=${ticket.id}&formato=carta`)).status, 400);
    assert.equal((await get(admin, '/api/v1/cfeemitido/representacionImpresa?idCfe=abc')).status, 400);
    const missing = await get(admin, '/api/v1/cfeemitido/representacionImpresa?idCfe=999999');
    assert.equal(missing.status, 404);
    assert.equal(missing.json().code, 'CFE_NO_ENCONTRADO');
  });

  test('e-mail without destinatarios and no customer e-mail → 422 SIN_DESTINATARIO; bad address → 400', async () => {
    const r = await t.call(admin, 'POST', '/api/v1/cfeemitido/enviarPdfPorCorreo', { idCfe: ticket.id });
    assert.equal(r.status, 422);
    assert.equal(r.body.code, 'SIN_DESTINATARIO');
    assert.equal((await t.call(admin, 'POST', '/api/v1/cfeemitido/enviarPdfPorCorreo', { idCfe: ticket.id, destinatarios: ['no-es-correo'] })).status, 400);
  });

  test('previsualizar refuses what emitir refuses (422), unknown token 404, expired token 410', async () => {
    const nc = await t.call(admin, 'POST', '/api/v1/comprobante/previsualizar', { ...previewBody(), cfe: { idDoc: { tipoCfe: 112, fechaEmision: today }, receptor: { idCliente: clienteId }, detalles: [line] } });
    assert.equal(nc.status, 422);
    assert.equal(nc.body.code, 'REFERENCIA_REQUERIDA');
    assert.equal((await t.call(admin, 'POST', '/api/v1/comprobante/previsualizar?formato=carta', previewBody())).status, 400);
    const unknown = await get(admin, '/api/v1/comprobante/previsualizar/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json().code, 'PREVISUALIZACION_NO_ENCONTRADA');
    const r = await t.call(admin, 'POST', '/api/v1/comprobante/previsualizar', previewBody());
    await t.db.execute(sql`update cfe_previews set expires_at = now() - interval '1 second'`);
    const expired = await get(admin, r.body.url);
    assert.equal(expired.status, 410);
    assert.equal(expired.json().code, 'PREVISUALIZACION_EXPIRADA');
    assert.ok((await t.modules.services.cfeDocuments.purgePreviews()) >= 1);
    assert.equal((await get(admin, r.body.url)).status, 404);
  });

  test('incoherent ZIP filters → 400 before any byte is streamed', async () => {
    const r = await zip(admin, { idEmpresa: company.id, fechaFirmaDesde: '2026-02-01', fechaFirmaHasta: '2026-01-01' });
    assert.equal(r.status, 400);
    assert.equal(r.json().code, 'FILTROS_INVALIDOS');
  });
});

describe('access', () => {
  test('without a token every endpoint answers 401', async () => {
    assert.equal((await get(undefined, `/api/v1/cfeemitido/representacionImpresa?idCfe=${ticket.id}`)).status, 401);
    assert.equal((await get(undefined, `/api/v1/cfeemitido/emailenvios?idCfe=${ticket.id}`)).status, 401);
    assert.equal((await t.call(undefined, 'POST', '/api/v1/cfeemitido/enviarPdfPorCorreo', { idCfe: ticket.id, destinatarios: ['a@b.uy'] })).status, 401);
    assert.equal((await t.call(undefined, 'POST', '/api/v1/cfeemitido/descargarPdfsFiltrados', { idEmpresa: company.id })).status, 401);
    assert.equal((await t.call(undefined, 'POST', '/api/v1/comprobante/previsualizar', previewBody())).status, 401);
    assert.equal((await get(undefined, previewUrl)).status, 401);
  });

  test('another company\'s user gets 404 on every endpoint (CFE and company invisible)', async () => {
    const pdf = await get(outsider, `/api/v1/cfeemitido/representacionImpresa?idCfe=${ticket.id}`);
    assert.equal(pdf.status, 404);
    assert.equal(pdf.json().code, 'CFE_NO_ENCONTRADO');
    assert.equal((await get(outsider, `/api/v1/cfeemitido/emailenvios?idCfe=${ticket.id}`)).status, 404);
    const send = await t.call(outsider, 'POST', '/api/v1/cfeemitido/enviarPdfPorCorreo', { idCfe: factura.id, destinatarios: ['robo@otra.uy'] });
    assert.equal(send.status, 404);
    const p = await get(outsider, previewUrl);
    assert.equal(p.status, 404);
    assert.equal(p.json().code, 'PREVISUALIZACION_NO_ENCONTRADA');
    assert.equal((await t.call(outsider, 'POST', '/api/v1/comprobante/previsualizar', previewBody())).status, 404);
    const z = await zip(outsider, { idEmpresa: company.id });
    assert.equal(z.status, 404);
    assert.equal(z.json().code, 'EMPRESA_NO_ENCONTRADA');
  });

  test('role lectura reads PDFs, previews, history and ZIPs but cannot send e-mail nor create previews (403)', async () => {
    assert.equal((await t.call(lectura, 'POST', '/api/v1/comprobante/previsualizar', previewBody())).status, 403);
    const r = await t.call(lectura, 'POST', '/api/v1/cfeemitido/enviarPdfPorCorreo', { idCfe: ticket.id, destinatarios: ['a@b.uy'] });
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'SIN_PERMISO');
    assert.equal((await get(lectura, `/api/v1/cfeemitido/emailenvios?idCfe=${ticket.id}`)).status, 200);
  });

  test('the endpoints are published in /openapi.json (no 501 stubs left)', async () => {
    const spec = (await get(admin, '/openapi.json')).json();
    for (const p of ['/api/v1/comprobante/previsualizar', '/api/v1/comprobante/previsualizar/{token}', '/api/v1/cfeemitido/representacionImpresa', '/api/v1/cfeemitido/enviarPdfPorCorreo', '/api/v1/cfeemitido/emailenvios', '/api/v1/cfeemitido/descargarPdfsFiltrados']) {
      assert.ok(spec.paths[p], p);
      assert.ok(!JSON.stringify(spec.paths[p]).includes('NO_IMPLEMENTADO'), p);
    }
  });
});
