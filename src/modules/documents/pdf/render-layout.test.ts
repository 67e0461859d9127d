/**
 * What a shopkeeper or an accountant reads on the printed receipt (issue 27 point 6), checked on
 * the sample receipts with poppler: pdftotext for the words, pdftotext -bbox for where they sit.
 * poppler-utils is required (as in render.test.ts): a missing tool fails with the package name.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sampleCfe } from '../../emission/index.ts';
import { renderCfePdf } from './render.ts';
import { creditNote, exportInvoice, oneLineInvoice, rollTicket, thirtyLineInvoice } from './sample-receipts.ts';
import type { CfePdfInput, PdfFormato } from './view.ts';

const digestValue = 'dpmLMfgpd/WbZvORW8oErIkY+DtbsUHnh2gnmZyu5HY=';
let dir = '';

interface Word {
  page: number;
  text: string;
  yMin: number;
  yMax: number;
}

interface Rendered {
  file: string;
  pages: string[];
  text: string;
  words: Word[];
}

/** Renders and reads back: the text of each page (pdftotext -layout) and every word's box (-bbox). */
async function render(name: string, input: Omit<CfePdfInput, 'digestValue'>, formato: PdfFormato): Promise<Rendered> {
  const file = path.join(dir, `${name}-${formato}.pdf`);
  fs.writeFileSync(file, await renderCfePdf({ ...input, digestValue }, { formato }));
  const bbox = execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const words: Word[] = [];
  const pages: string[] = [];
  bbox.split('<page ').slice(1).forEach((chunk, i) => {
    for (const m of chunk.matchAll(/<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)<\/word>/g)) {
      words.push({ page: i + 1, yMin: Number(m[1]), yMax: Number(m[2]), text: m[3].replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>') });
    }
    pages.push(execFileSync('pdftotext', ['-layout', '-f', String(i + 1), '-l', String(i + 1), file, '-'], { encoding: 'utf8' }));
  });
  return { file, pages, text: pages.join('\n'), words };
}

/** The first word equal to `text` (on `page` when given). */
function word(r: Rendered, text: string, page?: number): Word {
  const w = r.words.find((x) => x.text === text && (page === undefined || x.page === page));
  assert.ok(w, `word "${text}" not found${page ? ` on page ${page}` : ''}`);
  return w;
}

/** `phrase` in the text, wherever the layout broke its lines. */
function hasPhrase(text: string, phrase: string): boolean {
  return text.replace(/\s+/g, ' ').includes(phrase);
}

/** The -layout line holding `needle`. */
function lineWith(text: string, needle: string): string {
  const l = text.split('\n').find((x) => x.includes(needle));
  assert.ok(l, `no line with "${needle}"`);
  return l;
}

before(() => {
  if (spawnSync('pdftotext', ['-v']).error) throw new Error('pdftotext not found: install poppler-utils (apt-get install poppler-utils)');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-pdf-layout-'));
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

for (const formato of ['A4', 'ticket80'] as const) {
  describe(`printed receipt ${formato}: what the reader needs`, () => {
    it('the payment due date (FchVenc) is printed when present and absent otherwise; the CAE box says it is the CAE\'s expiry', async () => {
      const credit = await render('due-date', { cfe: oneLineInvoice() }, formato);
      assert.match(credit.text, /Vencimiento: 07\/08\/2026/);
      assert.match(credit.text, /Fecha de vencimiento del CAE/);
      assert.match(credit.text, /31\/12\/2027/);
      const cash = await render('no-due-date', { cfe: sampleCfe(111, { Nro: 3 }) }, formato);
      assert.doesNotMatch(cash.text, /Vencimiento:/);
      assert.doesNotMatch(cash.text, /07\/08\/2026/);
      assert.match(cash.text, /Fecha de vencimiento del CAE/);
    });

    it('the item code (CodItem) and unit (UniMed) are printed on the item\'s line when sent', async () => {
      const r = await render('code-unit', { cfe: oneLineInvoice() }, formato);
      // A4: one table row; ticket: the detail line under the name.
      const row = lineWith(r.text, formato === 'A4' ? 'Cemento portland bolsa 50 kg' : '12 unid x 489,00');
      assert.match(row, /CEM-50/);
      assert.match(row, /\bunid\b/);
      const exp = await render('code-unit-kg', { cfe: exportInvoice() }, formato);
      assert.match(lineWith(exp.text, formato === 'A4' ? 'Carne bovina congelada' : '18.500 kg'), /CB-CONG-01.*\bkg\b|\bkg\b.*CB-CONG-01|CB-CONG-01 · 18\.500 kg/);
    });

    it('a long item name is printed whole (wrapped), never cut', async () => {
      const r = await render('long-name', { cfe: formato === 'A4' ? thirtyLineInvoice() : rollTicket() }, formato);
      assert.doesNotMatch(r.text, /…/);
      // Words in order; other columns of the row may sit between the wrapped lines of the name.
      const name = formato === 'A4' ? 'Taladro percutor 650 W con maletín y juego de mechas para hormigón, madera y metal' : 'Detergente líquido concentrado aroma limón 750 ml edición especial';
      const inOrder = new RegExp(name.split(' ').map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]{0,160}?'));
      assert.match(r.text, inOrder);
    });

    it('a credit note totals "TOTAL A ACREDITAR", prints both references, and no due date', async () => {
      const r = await render('nc', { cfe: creditNote() }, formato);
      assert.match(r.text, /TOTAL A ACREDITAR/);
      assert.doesNotMatch(r.text, /TOTAL A PAGAR/);
      assert.ok(hasPhrase(r.text, 'Ref.: e-Factura A-1498 del 30/06/2026 por $ 12.780,00 - Devolución de mercadería'));
      assert.ok(hasPhrase(r.text, 'Ref.: e-Factura A-1502 del 02/07/2026 - Devolución de mercadería'));
      assert.doesNotMatch(r.text, /Vencimiento:/);
    });

    it('an export invoice in USD: U$S on every amount, the rate, the sale clause and transport', async () => {
      const cfe = exportInvoice();
      const r = await render('export', { cfe }, formato);
      assert.ok(hasPhrase(r.text, 'Cláusula de venta: FOB - Modalidad: Régimen general - Vía de transporte: Terrestre'));
      assert.match(r.text, /Moneda: USD - T\.C\. 39,875/);
      assert.match(r.text, /Vencimiento: 06\/09\/2026/);
      assert.match(lineWith(r.text, 'TOTAL A PAGAR'), /U\$S 103\.115,00/);
      assert.doesNotMatch(r.text, /(^|\s)\$ \d/m, 'a peso sign on a dollar invoice');
    });
  });
}

describe('printed receipt A4: page layout', () => {
  it('on a short invoice the footer (QR, CAE) follows the totals: no empty band between them', async () => {
    const r = await render('short', { cfe: oneLineInvoice(), adenda: 'Pedido 4471.' }, 'A4');
    const totalsBottom = word(r, 'PAGAR').yMax;
    const caeTop = word(r, 'CAE').yMin;
    const gap = caeTop - totalsBottom;
    // Adenda (two lines) + QR quiet margin: about 50 pt; the old layout left about 400 pt.
    assert.ok(gap > 0 && gap < 90, `footer starts ${gap.toFixed(0)} pt below the totals`);
    // The page number stays at the page bottom.
    assert.ok(word(r, 'Página').yMin > 800);
  });

  it('thirty lines: two pages, table header on each, lines carried to page 2, totals and footer once on the last page', async () => {
    const cfe = thirtyLineInvoice();
    const r = await render('thirty', { cfe }, 'A4');
    assert.equal(r.pages.length, 2);
    assert.match(r.pages[0], /Página 1 de 2/);
    assert.match(r.pages[1], /Página 2 de 2/);
    assert.match(r.pages[0], /Continúa en la página 2/);
    for (const page of r.pages) {
      assert.match(page, /Código\s+Descripción\s+Cant\.\s+Unid\.\s+Precio unit\.\s+Desc\.\/Rec\.\s+IVA\s+Importe/);
      assert.match(page, /Serie A\s+N° 0001524/);
    }
    // Every line once, some of them on the last page with the totals.
    for (const item of cfe.Detalle) assert.equal(r.text.split(item.CodItem![0].Cod + ' ').length - 1, 1, item.CodItem![0].Cod);
    assert.ok(cfe.Detalle.some((i) => r.pages[1].includes(i.CodItem![0].Cod)), 'no lines on the last page');
    for (const label of ['TOTAL A PAGAR', 'Neto IVA tasa básica', 'Código de seguridad', 'CAE N°', 'Fecha de vencimiento del CAE']) {
      assert.doesNotMatch(r.pages[0], new RegExp(label), `${label} on page 1`);
      assert.equal(r.pages[1].split(label).length - 1, 1, `${label} once on page 2`);
    }
    assert.match(lineWith(r.pages[1], 'TOTAL A PAGAR'), /\$ 54\.343,50/);
    assert.match(r.pages[1], /Descuento: Bonificación cliente frecuente\s+\$ -500,00/);
  });

  it('a 10,000-character adenda and a 940-character description: every word printed, on A4 pages only', async () => {
    const words = Array.from({ length: 1400 }, (_, i) => `palabra${i}`);
    const cfe = oneLineInvoice();
    cfe.Detalle[0].DscItem = Array.from({ length: 150 }, (_, i) => `det${i}`).join(' '); // 940 characters
    for (const formato of ['A4', 'ticket80'] as const) {
      const r = await render(`long-adenda-${formato}`, { cfe, adenda: words.join(' ').slice(0, 10_000) }, formato);
      const printed = new Set(r.words.map((w) => w.text));
      const expected = words.join(' ').slice(0, 10_000).split(' ');
      assert.deepEqual(expected.filter((w) => !printed.has(w)), [], `${formato}: adenda words missing`);
      assert.ok(printed.has('det149'), `${formato}: description cut`);
      if (formato === 'A4') {
        const sizes = execFileSync('pdfinfo', ['-f', '1', '-l', String(r.pages.length), r.file], { encoding: 'utf8' }).match(/size:\s+[\d.]+ x [\d.]+/g) ?? [];
        assert.ok(sizes.length === r.pages.length && sizes.every((x) => /595\.2\d x 841\.8\d/.test(x)), sizes.join('; '));
        assert.match(r.pages[r.pages.length - 1], new RegExp(`Página ${r.pages.length} de ${r.pages.length}`));
        assert.match(r.text, /TOTAL A PAGAR/);
      }
    }
  });

  it('an e-Remito prints no empty price, VAT or amount columns (A4) and no dangling "x" (ticket)', async () => {
    const a4 = await render('remito', { cfe: sampleCfe(181) }, 'A4');
    assert.match(a4.text, /Descripción\s+Cant\.\s+Unid\.\n/);
    assert.doesNotMatch(a4.text, /Precio unit\.|Importe|Desc\.\/Rec\./);
    const ticket = await render('remito', { cfe: sampleCfe(181) }, 'ticket80');
    assert.match(ticket.text, /^\s*10 kg\s*$/m);
  });
});
