/**
 * Renders real PDFs and checks them with independent tools: poppler's pdftotext (text) and
 * pdftoppm (pixels), and jsqr to decode the QR from the rendered page. poppler-utils is required:
 * CI installs it; a missing tool fails the suite with a clear message rather than skipping.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildQrUrl, completeCfe, sampleCfe, type Cfe } from '../../emission/index.ts';
import { JPEG, JPEG_GARBAGE, PNG_GARBAGE, pngWithCorruptPixels } from '../raster-image.fixtures.ts';
import { formatMonto } from './format.ts';
import { renderCfePdf, renderCfePdfToStream } from './render.ts';
import { PREVIEW_TEXT, type CfePdfInput, type PdfFormato } from './view.ts';

// jsqr and pngjs are CommonJS test-only helpers without ESM typings.
const require = createRequire(import.meta.url);
const jsQR = require('jsqr') as (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
type Png = { data: Buffer; width: number; height: number };
const { PNG } = require('pngjs') as { PNG: { sync: { read(buf: Buffer): Png; write(png: Png): Buffer } } & (new (o: { width: number; height: number }) => Png) };

const digestValue = 'dpmLMfgpd/WbZvORW8oErIkY+DtbsUHnh2gnmZyu5HY=';
const extras = { digestValue, sitioWebVerificacion: 'www.demo.com.uy/cfe', resolucion: { numero: '798', fecha: '2012-06-01' } };
let dir = '';

function requireTool(tool: string): void {
  const r = spawnSync(tool, ['-v'], { encoding: 'utf8' });
  if (r.error) throw new Error(`${tool} not found: install poppler-utils (apt-get install poppler-utils); the PDF tests need pdftotext, pdftoppm and pdfinfo`);
}

function writePdf(pdf: Buffer, name: string): string {
  const file = path.join(dir, `${name}.pdf`);
  fs.writeFileSync(file, pdf);
  return file;
}

function pdfText(file: string): string {
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function pageCount(file: string): number {
  const m = /Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }));
  return Number(m?.[1]);
}

/** Page size in points, from pdfinfo. */
function pageSize(file: string, page: number): { w: number; h: number } {
  const out = execFileSync('pdfinfo', ['-f', String(page), '-l', String(page), file], { encoding: 'utf8' });
  const m = /Page\s+\d+\s+size:\s+([\d.]+) x ([\d.]+) pts/.exec(out);
  if (!m) throw new Error(`pdfinfo gave no page size: ${out}`);
  return { w: Number(m[1]), h: Number(m[2]) };
}

/** Rasterises one page at 150 dpi, optionally only a crop box given in points. */
function pagePng(file: string, page: number, box?: { x: number; y: number; w: number; h: number }): Png {
  const prefix = path.join(dir, `${path.basename(file, '.pdf')}-p${page}`);
  const px = (pt: number) => String(Math.round((pt / 72) * 150));
  const cropArgs = box ? ['-x', px(box.x), '-y', px(box.y), '-W', px(box.w), '-H', px(box.h)] : [];
  execFileSync('pdftoppm', ['-r', '150', '-png', '-f', String(page), '-l', String(page), ...cropArgs, '-singlefile', file, prefix]);
  return PNG.sync.read(fs.readFileSync(`${prefix}.png`));
}

/** Decodes the QR from the bottom-left region of the last page (BRIEF 4: that is where it must be). */
function decodeQr(file: string): string | undefined {
  const last = pageCount(file);
  const size = pageSize(file, last);
  const h = Math.min(size.h, 230);
  const png = pagePng(file, last, { x: 0, y: size.h - h, w: size.w > 300 ? size.w / 2 : size.w, h });
  return jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height)?.data;
}

/** Strongly red pixels (the preview stamp is the only red on the page). */
function redPixels(png: Png): number {
  let n = 0;
  for (let i = 0; i < png.data.length; i += 4) if (png.data[i] > 200 && png.data[i + 1] < 190 && png.data[i + 2] < 190) n += 1;
  return n;
}

function qrUrlOf(cfe: Cfe): string {
  const { IdDoc, Emisor, Totales, TmstFirma } = cfe;
  return buildQrUrl({ RUCEmisor: Emisor.RUCEmisor, TipoCFE: IdDoc.TipoCFE, Serie: IdDoc.Serie, Nro: IdDoc.Nro, Totales, TmstFirma, digestValue });
}

async function render(name: string, input: CfePdfInput, formato: PdfFormato): Promise<{ file: string; text: string }> {
  const pdf = await renderCfePdf(input, { formato });
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  const file = writePdf(pdf, `${name}-${formato}`);
  return { file, text: pdfText(file) };
}

/** An IVA-mínimo issuer (MntBruto=3, CAEEspecial=2): items with IndFact 16, no VAT anywhere. */
function ivaMinimoCfe(): Cfe {
  const base = sampleCfe(101, { Nro: 7 });
  const { Totales: _t, ...rest } = base;
  return completeCfe({
    ...rest,
    IdDoc: { ...base.IdDoc, MntBruto: 3 },
    Detalle: base.Detalle.map((i) => ({ ...i, IndFact: 16, MontoItem: undefined })),
    DscRcgGlobal: undefined,
    CAEData: { ...base.CAEData, CAEEspecial: 2 },
  });
}

before(() => {
  for (const tool of ['pdftotext', 'pdftoppm', 'pdfinfo']) requireTool(tool);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-pdf-test-'));
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

for (const formato of ['A4', 'ticket80'] as const) {
  describe(`renderCfePdf ${formato}`, () => {
    it('e-Ticket without receiver: CONSUMO FINAL, security code, CAE, totals, website legend, QR', async () => {
      const cfe = sampleCfe(101, { Nro: 42 });
      const { file, text } = await render('eticket', { cfe, ...extras, adenda: 'Gracias por su compra.' }, formato);
      assert.match(text, /CONSUMO FINAL/);
      assert.match(text, /Código de seguridad: dpmLMf/);
      assert.match(text, /CAE N° 90120000194/);
      assert.match(text, /Serie A del 1 al 9999999/);
      assert.match(text, /Fecha de vencimiento/);
      assert.match(text, /31\/12\/2027/);
      assert.match(text, /Serie A\s+N° 0000042/);
      assert.match(text, /e-Ticket/);
      assert.match(text, /Contado/);
      assert.ok(text.includes(formatMonto(cfe.Totales.MntPagar!)), `total ${formatMonto(cfe.Totales.MntPagar!)} missing`);
      assert.ok(text.includes(formatMonto(cfe.Totales.MntIVATasaBasica!)));
      assert.match(text, /Neto IVA tasa básica \(22%\)/);
      assert.match(text, /Puede verificar comprobante en www\.demo\.com\.uy\/cfe/);
      assert.match(text, /Res\. 798\/2012/);
      assert.match(text, /IVA al día/);
      assert.match(text, /Gracias por su compra\./);
      assert.doesNotMatch(text, /VISTA PREVIA/);
      assert.equal(decodeQr(file), qrUrlOf(cfe));
      assert.equal(pageCount(file), 1);
    });

    it('e-Factura with receiver: RUC COMPRADOR, name, DGI legend even with a website', async () => {
      const cfe = sampleCfe(111, { Nro: 1234 });
      const { file, text } = await render('efactura', { cfe, ...extras }, formato);
      assert.match(text, /RUC COMPRADOR: 214844360018/);
      assert.match(text, /Cliente <Mayorista> S\.R\.L\./);
      assert.match(text, /Fernández Crespo 1534/);
      assert.match(text, /e-Factura/);
      assert.match(text, /Serie A\s+N° 0001234/);
      assert.match(text, /Puede verificar comprobante en www\.dgi\.gub\.uy/);
      assert.doesNotMatch(text, /CONSUMO FINAL/);
      assert.ok(text.includes(formatMonto(cfe.Totales.MntPagar!)));
      assert.equal(decodeQr(file), qrUrlOf(cfe));
    });

    it('credit note: type name and reference to the original CFE', async () => {
      const cfe = sampleCfe(112, { Nro: 5 });
      const { file, text } = await render('nc', { cfe, ...extras }, formato);
      assert.match(text, /Nota de Crédito de\s+e-Factura/);
      assert.match(text, /Ref\.: e-Factura A-10 del 01\/07\/2026 - Devolución parcial/);
      assert.ok(text.includes(formatMonto(cfe.Totales.MntPagar!)));
      assert.equal(decodeQr(file), qrUrlOf(cfe));
    });

    it('300-line e-Ticket: every line, totals and QR on the last page', async () => {
      const cfe = sampleCfe(101, { Nro: 300, lines: 300 });
      const { file, text } = await render('long', { cfe, ...extras }, formato);
      const pages = pageCount(file);
      if (formato === 'A4') {
        assert.ok(pages > 1, `expected several pages, got ${pages}`);
        assert.match(text, new RegExp(`Página 1 de ${pages}`));
        assert.match(text, new RegExp(`Página ${pages} de ${pages}`));
        assert.match(text, /SKU-300/);
      }
      assert.equal((text.match(/Aceite girasol 900 ml/g) ?? []).length, 75);
      assert.ok(text.includes(formatMonto(cfe.Totales.MntPagar!)));
      assert.equal(decodeQr(file), qrUrlOf(cfe));
    });

    it('preview: stamp text and red diagonal pixels; none without preview', async () => {
      const cfe = sampleCfe(101, { Nro: 9 });
      const { file, text } = await render('preview', { cfe, preview: true }, formato);
      assert.ok(text.includes(PREVIEW_TEXT));
      assert.match(text, /Código de seguridad: ------/);
      const plain = await render('plain', { cfe, digestValue }, formato);
      assert.ok(redPixels(pagePng(file, 1)) > 2000, 'diagonal stamp not visible');
      assert.equal(redPixels(pagePng(plain.file, 1)), 0);
    });

    it('IVA-mínimo issuer: no mention of IVA anywhere', async () => {
      const cfe = ivaMinimoCfe();
      const { file, text } = await render('ivamin', { cfe, ...extras }, formato);
      assert.doesNotMatch(text, /IVA/);
      assert.match(text, /Subtotal/);
      assert.ok(text.includes(formatMonto(cfe.Totales.MntPagar!)));
      assert.equal(decodeQr(file), qrUrlOf(cfe));
    });

    it('export e-Factura in USD: U$S amounts and exchange rate', async () => {
      const cfe = sampleCfe(121, { Nro: 3 });
      const { text } = await render('export', { cfe, ...extras }, formato);
      assert.ok(text.includes(formatMonto(cfe.Totales.MntPagar!, 'USD')));
      assert.match(text, /U\$S 5\.250,00/);
      assert.match(text, /Moneda: USD - T\.C\. 39,875/);
      assert.match(text, /DOC\. COMPRADOR: 30-71234567-8/);
    });

    it('with a PNG logo the layout still holds and the QR decodes', async () => {
      const logo = new PNG({ width: 120, height: 40 });
      for (let i = 0; i < logo.data.length; i += 4) logo.data.set([20, 60, 160, 255], i);
      const cfe = sampleCfe(111, { Nro: 77 });
      const { file, text } = await render('logo', { cfe, ...extras, logo: PNG.sync.write(logo) }, formato);
      assert.match(text, /Empresa Demo S\.A\./);
      assert.equal(decodeQr(file), qrUrlOf(cfe));
    });
  });
}

describe('renderCfePdf edge cases', () => {
  it('700-line e-Ticket (the DGI maximum) renders on A4 pages and the ticket', async () => {
    const cfe = sampleCfe(101, { lines: 700 });
    const a4 = writePdf(await renderCfePdf({ cfe, digestValue }, { formato: 'A4' }), 'max-a4');
    assert.ok(pageCount(a4) >= 14);
    const ticket = writePdf(await renderCfePdf({ cfe, digestValue }, { formato: 'ticket80' }), 'max-ticket');
    assert.match(pdfText(ticket), /SKU|Yerba/);
    assert.equal(decodeQr(ticket), qrUrlOf(cfe));
  });

  it('streaming variant writes the same document into a Writable', async () => {
    const cfe = sampleCfe(111, { Nro: 8 });
    const file = path.join(dir, 'stream.pdf');
    await renderCfePdfToStream({ cfe, digestValue }, { formato: 'A4' }, fs.createWriteStream(file));
    assert.match(pdfText(file), /RUC COMPRADOR: 214844360018/);
    assert.equal(decodeQr(file), qrUrlOf(cfe));
  });

  it('a logo that cannot be decoded is left out and reported; the document still renders', async () => {
    const cfe = sampleCfe(111, { Nro: 9 });
    const images = (pdf: Buffer) => pdf.toString('latin1').split('/Subtype /Image').length - 1;
    for (const [name, logo] of [['png-garbage', PNG_GARBAGE], ['jpeg-garbage', JPEG_GARBAGE], ['png-corrupt-pixels', pngWithCorruptPixels()]] as const) {
      for (const formato of ['A4', 'ticket80'] as const) {
        const skipped: string[] = [];
        const pdf = await renderCfePdf({ cfe, ...extras, logo }, { formato, onLogoSkipped: (p) => skipped.push(p) });
        assert.equal(skipped.length, 1, `${name} ${formato}`);
        assert.equal(images(pdf), 0, `${name} ${formato}`);
        const file = writePdf(pdf, `bad-logo-${name}-${formato}`);
        assert.match(pdfText(file), /Empresa Demo S\.A\./);
        assert.equal(decodeQr(file), qrUrlOf(cfe));
      }
    }
    const jpeg = await renderCfePdf({ cfe, ...extras, logo: JPEG }, { formato: 'A4', onLogoSkipped: (p) => assert.fail(p) });
    assert.equal(images(jpeg), 1);
  });

  it('a signed rendering needs the DigestValue', async () => {
    await assert.rejects(renderCfePdf({ cfe: sampleCfe(101) }, { formato: 'A4' }), /digestValue is required/);
  });
});
