/**
 * 80 mm thermal ticket (page 226.77 pt wide, height fitted to the content): centred header,
 * two compact lines per item, totals, then the QR at the bottom left (26 mm, vector) with the
 * security code under it and the CAE data beside it (BRIEF 4). The document is a list of blocks
 * whose heights are measured first; a page is at most 14,000 pt tall (PDF viewers' 200-inch
 * limit), so a very long ticket continues on another page.
 */
import { drawQr, MM } from './qr-vector.ts';
import { box, font, GREY, hr, line, openLogo, para, stamp, wrapLines, type Doc, type LogoSkipped } from './draw.ts';
import { PREVIEW_TEXT, type CfeView } from './view.ts';

export const TICKET_WIDTH = 226.77;
const M = 8;
const CW = TICKET_WIDTH - 2 * M;
const QR_SIDE = 26 * MM;
const MAX_PAGE_H = 14000;

interface Block {
  h: number;
  /** Item rows may move to the next page; header and footer blocks stay on the first/last. */
  kind: 'head' | 'row' | 'tail';
  draw(y: number): void;
}

function centred(doc: Doc, text: string, size: number, bold = false, color = 'black'): Block {
  font(doc, size, bold, color);
  const h = doc.heightOfString(text, { width: CW, align: 'center' }) + 1;
  return {
    h,
    kind: 'head',
    draw: (y) => {
      font(doc, size, bold, color);
      para(doc, text, M, y, CW, 'center');
    },
  };
}

function rule(doc: Doc, kind: Block['kind'] = 'head'): Block {
  return { h: 7, kind, draw: (y) => hr(doc, M, M + CW, y + 3, GREY, true) };
}

function pair(doc: Doc, label: string, value: string, size: number, bold: boolean, kind: Block['kind'] = 'tail'): Block {
  return {
    h: size + 3,
    kind,
    draw: (y) => {
      font(doc, size, bold);
      const vw = Math.min(doc.widthOfString(value) + 2, CW * 0.6);
      line(doc, label, M, y, CW - vw - 4);
      line(doc, value, M + CW - vw, y, vw, 'right');
    },
  };
}

function buildBlocks(doc: Doc, view: CfeView, logoBytes?: Buffer, onLogoSkipped?: LogoSkipped): Block[] {
  const b: Block[] = [];
  if (view.preview) b.push(centred(doc, PREVIEW_TEXT, 7.5, true, '#cc0000'));
  const logo = openLogo(doc, logoBytes, 140, 45, onLogoSkipped);
  if (logo.img) {
    const img = logo.img;
    b.push({ h: logo.h + 4, kind: 'head', draw: (y) => doc.image(img, M + (CW - logo.w) / 2, y, { width: logo.w, height: logo.h }) });
  }
  b.push(centred(doc, view.emisor.nombre, 10, true));
  if (view.emisor.comercial) b.push(centred(doc, view.emisor.comercial, 8, true, GREY));
  for (const l of view.emisor.lines) b.push(centred(doc, l, 7));
  b.push(rule(doc));
  b.push(centred(doc, `RUC ${view.emisor.ruc}`, 9, true));
  b.push(centred(doc, view.tipoNombre, 8.5, true));
  b.push(centred(doc, `Serie ${view.serieNumero.replace('-', '  N° ')}`, 10, true));
  b.push(centred(doc, [view.formaPago, `Fecha: ${view.fecha}`].filter(Boolean).join(' - '), 7.5));
  if (view.vencimiento) b.push(centred(doc, `Vencimiento: ${view.vencimiento}`, 7.5, true));
  b.push(centred(doc, view.moneda, 7.5));
  b.push(rule(doc));
  const rec = view.receptor;
  b.push(centred(doc, rec.documento ? `${rec.label}: ${rec.documento}` : rec.label, 8, true));
  for (const l of rec.lines) b.push(centred(doc, l, 7));
  if (view.exportacion) b.push(centred(doc, view.exportacion, 7));
  for (const r of view.referencias) b.push(centred(doc, r, 7));
  b.push(rule(doc));
  b.push(pair(doc, 'Descripción', 'Importe', 7, true, 'head'));

  for (const l of view.lines) {
    // The item code leads the grey detail line; a long name wraps instead of being cut.
    const quantity = `${l.cantidad}${l.unidad ? ` ${l.unidad}` : ''}`;
    const amounts = [l.precio ? `${quantity} x ${l.precio}` : quantity, l.descRec, view.showIva && l.indicador ? `(${l.indicador})` : ''].filter(Boolean).join(' ');
    const detail = l.codigo ? `${l.codigo} · ${amounts}` : amounts;
    font(doc, 7.5);
    const nameWraps = doc.widthOfString(l.nombre) > CW;
    const nameH = nameWraps ? doc.heightOfString(l.nombre, { width: CW }) : 8.5;
    font(doc, 6.5);
    const desc = l.descripcion ? wrapLines(doc, l.descripcion, CW - 4) : [];
    b.push({
      h: nameH + desc.length * 7.5 + 8.5,
      kind: 'row',
      draw: (y) => {
        font(doc, 7.5);
        if (nameWraps) para(doc, l.nombre, M, y, CW);
        else line(doc, l.nombre, M, y, CW);
        font(doc, 6.5, false, GREY);
        let dy = nameH;
        for (const d of desc) {
          line(doc, d, M + 4, y + dy, CW - 4);
          dy += 7.5;
        }
        line(doc, detail, M + 4, y + dy, CW - 70);
        font(doc, 7.5);
        line(doc, l.importe, M + CW - 66, y + dy - 0.5, 66, 'right');
      },
    });
  }

  b.push(rule(doc, 'tail'));
  for (const a of view.ajustes) b.push(pair(doc, a.label, a.value, 7.5, false));
  for (const t of view.totals) b.push(pair(doc, t.label, t.value, t.strong ? 9 : 7.5, Boolean(t.strong)));
  if (view.mediosPago.length) {
    b.push(rule(doc, 'tail'));
    for (const mp of view.mediosPago) b.push(pair(doc, mp.label, mp.value, 7.5, false));
  }
  if (view.adenda) {
    b.push(rule(doc, 'tail'));
    b.push({ ...centred(doc, view.adenda, 7), kind: 'tail' });
  }
  b.push(rule(doc, 'tail'));
  b.push(footerBlock(doc, view));
  for (const l of view.legends) b.push({ ...centred(doc, l, 7), kind: 'tail' });
  b.push({ ...centred(doc, `Fecha de firma: ${view.firma}`, 6.5, false, GREY), kind: 'tail' });
  return b;
}

/** QR bottom left, security code under it, CAE data beside it. */
function footerBlock(doc: Doc, view: CfeView): Block {
  return {
    h: QR_SIDE + 16,
    kind: 'tail',
    draw: (y) => {
      const qx = M + 2 * MM;
      if (view.qrUrl) drawQr(doc, view.qrUrl, qx, y + 3, QR_SIDE);
      else box(doc, qx, y + 3, QR_SIDE, QR_SIDE);
      font(doc, 6.5, true);
      line(doc, `Código de seguridad: ${view.securityCode}`, qx, y + QR_SIDE + 6, CW - 2 * MM);
      const cx = qx + QR_SIDE + 3 * MM;
      const cw = M + CW - cx;
      let cy = y + 4;
      font(doc, 7, true);
      line(doc, `CAE N° ${view.cae.numero}`, cx, cy, cw);
      cy += 10;
      font(doc, 6.5);
      cy += para(doc, view.cae.rango, cx, cy, cw) + 3;
      if (view.cae.especial) cy += para(doc, `CAE especial: ${view.cae.especial}`, cx, cy, cw) + 3;
      // DGI's "Fecha de vencimiento" box (BRIEF 4), named for the CAE: it is not the payment due date.
      box(doc, cx, cy, cw, 22);
      font(doc, 6.5, false, GREY);
      line(doc, 'Fecha de vencimiento del CAE', cx + 4, cy + 3, cw - 8);
      font(doc, 8.5, true);
      line(doc, view.cae.vencimiento, cx + 4, cy + 11, cw - 8);
    },
  };
}

/** Draws the whole ticket; the caller calls doc.end(). */
export function drawTicket(doc: Doc, view: CfeView, logoBytes?: Buffer, onLogoSkipped?: LogoSkipped): void {
  const blocks = buildBlocks(doc, view, logoBytes, onLogoSkipped);
  const pages: Block[][] = [[]];
  const tailH = blocks.filter((b) => b.kind === 'tail').reduce((s, b) => s + b.h, 0);
  let lastRow = -1;
  blocks.forEach((b, i) => {
    if (b.kind === 'row') lastRow = i;
  });
  const limit = MAX_PAGE_H - 2 * M - 12;
  let h = 0;
  blocks.forEach((b, i) => {
    // The last row travels with the totals and footer, which are never split from it.
    const need = b.h + (i === lastRow ? tailH : 0);
    if (b.kind === 'row' && h + need > limit && pages[pages.length - 1].length) {
      pages.push([]);
      h = 0;
    }
    pages[pages.length - 1].push(b);
    h += b.h;
  });
  pages.forEach((page, i) => {
    const contentH = page.reduce((s, b) => s + b.h, 0);
    const pageH = contentH + 2 * M + (pages.length > 1 ? 12 : 0);
    doc.addPage({ size: [TICKET_WIDTH, pageH], margin: 0 });
    let y = M;
    for (const b of page) {
      b.draw(y);
      y += b.h;
    }
    if (pages.length > 1) {
      font(doc, 6.5, false, GREY);
      line(doc, `Página ${i + 1} de ${pages.length}`, M, pageH - M - 7, CW, 'center');
    }
    if (view.preview) {
      for (let sy = Math.min(150, pageH / 2); sy < pageH; sy += 300) stamp(doc, PREVIEW_TEXT, TICKET_WIDTH / 2, sy, 11, -35);
    }
  });
}
