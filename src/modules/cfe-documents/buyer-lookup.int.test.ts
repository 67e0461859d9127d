/**
 * The buyer's public receipt page (issue 47 point 3) in a real headless Chromium (Debian's, driven by
 * playwright-core through executablePath): the form with the data printed on an e-Ticket gives its
 * PDF and signed XML; a wrong code, number, date or company all answer the same "not found"; another
 * company's receipt is unreachable; the printed receipt shows the page's address; the page is
 * rate-limited. A screenshot of the result page is written to the test's temporary directory
 * (BUYER_LOOKUP_SCREENSHOT to keep it elsewhere).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';
import { pdfText, requirePoppler } from './cfe-documents.test-helpers.js';

const PUBLIC = 'https://facturas.example.uy';
const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);
let t: TestApp;
let browser: Browser;
let base: string;
let admin: string;

before(async () => {
  requirePoppler();
  t = await createTestApp({ PUBLIC_URL: PUBLIC, PUBLIC_LOOKUP_RATE_LIMIT_PER_MINUTE: '60' });
  admin = await t.adminToken();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
});
after(async () => {
  await browser?.close();
  await t.close();
});

async function issueTicket(company: { id: number }) {
  const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', {
    idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1',
    cfe: { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba mate 1 kg', cantidad: 2, precioUnitario: '189.90' }] },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { id: number; serie: string; numero: number; fechaEmision: string; codigoSeguridad: string };
}

describe('buyer lookup page', () => {
  let rut: string;
  let cfe: Awaited<ReturnType<typeof issueTicket>>;
  let other: Awaited<ReturnType<typeof issueTicket>>;
  const q = (o: Partial<{ tipo: string; serie: string; numero: string; fecha: string; codigo: string }> = {}) =>
    new URLSearchParams({ tipo: '101', serie: cfe.serie, numero: String(cfe.numero), fecha: cfe.fechaEmision, codigo: cfe.codigoSeguridad, ...o }).toString();

  before(async () => {
    const company = await insertCompany(t);
    await setUpIssuer(t.db, t.call, admin, company);
    rut = company.rut;
    cfe = await issueTicket(company);
    const second = await insertCompany(t);
    await setUpIssuer(t.db, t.call, admin, second);
    other = await issueTicket(second);
  });

  test('happy path: the form in Chromium gives the receipt, its PDF and its signed XML; screenshot taken', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/consulta/${rut}`);
    assert.equal(await page.locator('h1').innerText(), 'Consulta de comprobante electrónico');
    await page.selectOption('#tipo', '101');
    await page.fill('#serie', cfe.serie.toLowerCase());
    await page.fill('#numero', String(cfe.numero));
    await page.fill('#fecha', cfe.fechaEmision);
    await page.fill('#codigo', cfe.codigoSeguridad);
    await Promise.all([page.waitForURL(/\/comprobante\?/), page.click('button[type=submit]')]);
    assert.match(await page.locator('.ok').innerText(), new RegExp(`e-Ticket ${cfe.serie}-${cfe.numero} del ${cfe.fechaEmision}`));
    const shot = process.env.BUYER_LOOKUP_SCREENSHOT ?? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'buyer-lookup-')), 'resultado.png');
    await page.screenshot({ path: shot, fullPage: true });
    assert.ok(fs.statSync(shot).size > 1000, `screenshot at ${shot}`);

    const pdfHref = await page.locator('#pdf').getAttribute('href');
    const xmlHref = await page.locator('#xml').getAttribute('href');
    const pdf = await page.request.get(base + pdfHref);
    assert.equal(pdf.headers()['content-type'], 'application/pdf');
    const text = pdfText(await pdf.body());
    // The printed representation shows the page's address.
    assert.match(text.replace(/\s+/g, ' '), new RegExp(`facturas\\.example\\.uy/consulta/${rut}`));
    const xml = await page.request.get(base + xmlHref);
    const stored = await t.call(admin, 'GET', `/api/v1/cfeemitido/${cfe.id}/xml`);
    assert.match(xml.headers()['content-type'], /application\/xml/);
    assert.match(await xml.text(), /<(\w+:)?Signature|<Signature /);
    assert.equal(stored.status, 200);
    assert.equal(await xml.text(), stored.body, 'the signed XML as stored');
    await page.close();
  });

  test('errors: every mismatch is the same "not found", naming no field; nothing of other receipts or companies is reachable', async () => {
    const page = await browser.newPage();
    const wrongCode = cfe.codigoSeguridad.slice(0, 5) + (cfe.codigoSeguridad[5] === 'A' ? 'B' : 'A');
    const probes = [
      q({ codigo: wrongCode }), q({ numero: String(cfe.numero + 1) }), q({ fecha: '2020-01-01' }), q({ serie: 'Z' }), q({ tipo: '111' }), q({ numero: 'abc' }),
      // The other company's receipt, with its own right data, under this company's RUT.
      q({ serie: other.serie, numero: String(other.numero), codigo: other.codigoSeguridad }),
    ];
    const messages = new Set<string>();
    for (const probe of probes) {
      const res = await page.goto(`${base}/consulta/${rut}/comprobante?${probe}`);
      assert.equal(res!.status(), 404);
      messages.add(await page.locator('.err').innerText());
      if (probe === probes[0] && process.env.BUYER_LOOKUP_SCREENSHOT) await page.screenshot({ path: process.env.BUYER_LOOKUP_SCREENSHOT.replace(/\.png$/, '-no-encontrado.png'), fullPage: true });
      for (const kind of ['pdf', 'xml']) {
        const r = await page.request.get(`${base}/consulta/${rut}/comprobante.${kind}?${probe}`);
        assert.equal(r.status(), 404);
        assert.equal((await r.json()).code, 'CONSULTA_NO_ENCONTRADA');
      }
    }
    // An unknown RUT with right data of a real receipt: the same answer.
    const unknown = await page.goto(`${base}/consulta/210000000019/comprobante?${q()}`);
    assert.equal(unknown!.status(), 404);
    messages.add(await page.locator('.err').innerText());
    assert.equal(messages.size, 1, [...messages].join(' | '));
    // The one generic sentence of the catalogue: it lists what to check, never which value was wrong.
    assert.equal([...messages][0], 'No encontramos un comprobante con esos datos. Verifique el tipo, la serie, el número, la fecha y el código de seguridad impresos en el comprobante.');
    await page.close();
  });

  test('happy path: the link the mail carries opens the receipt in Chromium', async () => {
    const queued = await t.call(admin, 'POST', '/api/v1/cfeemitido/enviarPdfPorCorreo', { idCfe: cfe.id, destinatarios: ['comprador@example.uy'] });
    assert.equal(queued.status, 202, JSON.stringify(queued.body));
    await t.modules.services.cfeMail.deliver(queued.body.id, { attempt: 1, maxAttempts: 8, logger: { warn() {}, info() {} } as never });
    const outbox = path.join(t.config.dataDir, 'outbox');
    const eml = fs.readdirSync(outbox).map((f) => fs.readFileSync(path.join(outbox, f), 'utf8')).find((m) => m.includes('comprador@example.uy'))!;
    // quoted-printable soft breaks and escapes undone, then the link read back.
    const body = eml.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
    const link = new RegExp(`https://facturas\\.example\\.uy/consulta/${rut}/comprobante\\?\\S+`).exec(body)?.[0];
    assert.ok(link, `the mail carries the link:\n${body.slice(0, 3000)}`);
    const page = await browser.newPage();
    const res = await page.goto(link.replace(PUBLIC, base));
    assert.equal(res!.status(), 200);
    assert.match(await page.locator('.ok').innerText(), new RegExp(`${cfe.serie}-${cfe.numero}`));
    await page.close();
  });

  test('access: no token needed, and the page is rate-limited per client (429)', async () => {
    let limited = false;
    for (let i = 0; i < 100 && !limited; i++) limited = (await fetch(`${base}/consulta/${rut}/comprobante.xml?${q({ codigo: 'xxxxxx' })}`)).status === 429;
    assert.ok(limited, 'rate limit reached');
  });
});
