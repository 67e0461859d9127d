/**
 * A4 layout (BRIEF 4; FCFE "Representación impresa"): issuer upper left, identification box upper
 * right (with the payment due date when there is one), receiver box, lines table over as many
 * pages as needed (issuer header and table header repeated on each page). On the last page the
 * totals and adenda are followed directly by the footer, both at the page bottom: QR in the
 * bottom-left corner (28 mm, vector) with the security code under it, CAE data, the CAE expiry box
 * and legends; the table is framed down to the totals, so a short invoice has no empty band between
 * totals and footer (issue 27). "Página i de n" on every page. Row heights are measured before
 * drawing (layout-a4-table.ts), so pagination is decided first and nothing is buffered.
 */
import { drawQr, MM } from './qr-vector.ts';
import { box, font, GREY, line, openLogo, para, stamp, wrapLines, type Doc, type Logo, type LogoSkipped } from './draw.ts';
import { columns, drawRow, drawTableFrame, drawTableHeader, M, measureRow, PAGE_H, PAGE_W, paginate, W } from './layout-a4-table.ts';
import { PREVIEW_TEXT, type CfeView } from './view.ts';

const QR_SIDE = 28 * MM;
const PAGE_NO_H = 14;
/** QR quiet margin above the footer (BRIEF 4: 5 mm for a QR up to 30 mm). */
const FOOTER_GAP = 5 * MM;
const ADENDA_LINE_H = 9.5;
/** Header (issuer, identification box, receiver, references); returns the y below it. */
function drawHeader(doc: Doc, view: CfeView, logo: Logo, draw: boolean): number {
  const top = M;
  const leftW = W * 0.55;
  let yl = top;
  if (logo.img && draw) doc.image(logo.img, M, yl, { width: logo.w, height: logo.h });
  if (logo.h) yl += logo.h + 4;
  font(doc, 12, true);
  yl += para(doc, view.emisor.nombre, M, yl, leftW, 'left', draw) + 1;
  if (view.emisor.comercial) {
    font(doc, 10, true, GREY);
    yl += para(doc, view.emisor.comercial, M, yl, leftW, 'left', draw) + 1;
  }
  font(doc, 8);
  for (const l of view.emisor.lines) {
    if (draw) line(doc, l, M, yl, leftW);
    yl += 10;
  }

  const bx = M + W * 0.58;
  const bw = W - W * 0.58;
  const pad = 8;
  let yr = top + pad;
  font(doc, 8, false, GREY);
  if (draw) line(doc, 'RUC EMISOR', bx, yr, bw, 'center');
  yr += 10;
  font(doc, 13, true);
  if (draw) line(doc, view.emisor.ruc, bx, yr, bw, 'center');
  yr += 17;
  font(doc, 10, true);
  yr += para(doc, view.tipoNombre, bx + pad, yr, bw - 2 * pad, 'center', draw) + 3;
  font(doc, 11, true);
  if (draw) line(doc, `Serie ${view.serieNumero.replace('-', '  N° ')}`, bx, yr, bw, 'center');
  yr += 15;
  font(doc, 9);
  const sub = [view.formaPago, `Fecha: ${view.fecha}`].filter(Boolean).join('   ');
  if (draw) line(doc, sub, bx, yr, bw, 'center');
  yr += 11;
  if (view.vencimiento) {
    font(doc, 9, true);
    if (draw) line(doc, `Vencimiento: ${view.vencimiento}`, bx, yr, bw, 'center');
    yr += 11;
    font(doc, 9);
  }
  if (draw) line(doc, view.moneda, bx, yr, bw, 'center');
  yr += 11 + pad - 4;
  if (draw) box(doc, bx, top, bw, yr - top);

  let y = Math.max(yl, yr) + 8;
  const rec = view.receptor;
  const recH = 8 + 12 + rec.lines.length * 10 + 4;
  if (draw) {
    box(doc, M, y, W, recH);
    font(doc, 9, true);
    line(doc, rec.documento ? `${rec.label}: ${rec.documento}` : rec.label, M + 8, y + 7, W - 16);
    font(doc, 8.5);
    rec.lines.forEach((l, i) => line(doc, l, M + 8, y + 20 + i * 10, W - 16));
  }
  y += recH + 4;
  font(doc, 8);
  if (view.exportacion) {
    if (draw) line(doc, view.exportacion, M, y, W);
    y += 10;
  }
  for (const r of view.referencias) {
    if (draw) line(doc, r, M, y, W);
    y += 10;
  }
  return y + 4;
}
/** Height of adjustments, totals, payment methods and the adenda's lines given. */
function drawTrailer(doc: Doc, view: CfeView, adenda: string[], y: number, draw: boolean): number {
  const start = y;
  const tw = 290;
  const tx = M + W - tw;
  const totalsTop = y;
  // Global discounts and surcharges open the totals box: they are part of how the total is reached.
  for (const t of [...view.ajustes, ...view.totals]) {
    if (draw) {
      font(doc, t.strong ? 9.5 : 8.5, t.strong);
      line(doc, t.label, tx + 6, y + 3, tw - 114);
      line(doc, t.value, tx + tw - 106, y + 3, 100, 'right');
    }
    y += t.strong ? 14 : 12;
  }
  if (draw && y > totalsTop) box(doc, tx, totalsTop, tw, y - totalsTop + 4);
  let yl = totalsTop;
  if (view.mediosPago.length) {
    font(doc, 8.5, true);
    if (draw) line(doc, 'Medios de pago', M, yl, W - tw - 20);
    yl += 12;
    font(doc, 8.5);
    for (const mp of view.mediosPago) {
      if (draw) line(doc, `${mp.label}: ${mp.value}`, M, yl, W - tw - 20);
      yl += 11;
    }
  }
  y = Math.max(y + 10, yl + 6);
  if (adenda.length) {
    font(doc, 8, true);
    if (draw) line(doc, 'Adenda', M, y, W);
    font(doc, 8);
    if (draw) adenda.forEach((l, i) => line(doc, l, M, y + 11 + i * ADENDA_LINE_H, W));
    y += 11 + adenda.length * ADENDA_LINE_H + 6;
  }
  return y - start;
}

/** Footer at `qy` (QR top): QR, security code, CAE data and its expiry box, legends; returns its height. */
function drawFooter(doc: Doc, view: CfeView, qy: number, draw: boolean): number {
  const cx = M + QR_SIDE + 8 * MM;
  const cw = 210;
  const lx = cx + cw + 10;
  const lw = M + W - lx;
  let ly = qy;
  font(doc, 8);
  for (const l of view.legends) ly += para(doc, l, lx, ly, lw, 'left', draw) + 3;
  font(doc, 7.5, false, GREY);
  ly += para(doc, `Fecha de firma: ${view.firma}`, lx, ly + 2, lw, 'left', draw) + 2;
  const height = Math.max(QR_SIDE + 14, ly - qy);
  if (!draw) return height;

  if (view.qrUrl) drawQr(doc, view.qrUrl, M, qy, QR_SIDE);
  else {
    box(doc, M, qy, QR_SIDE, QR_SIDE);
    font(doc, 7, false, GREY);
    line(doc, 'QR (vista previa)', M, qy + QR_SIDE / 2 - 3, QR_SIDE, 'center');
  }
  font(doc, 8, true);
  line(doc, `Código de seguridad: ${view.securityCode}`, M, qy + QR_SIDE + 4, 160);

  let y = qy;
  font(doc, 8.5, true);
  line(doc, `CAE N° ${view.cae.numero}`, cx, y, cw);
  y += 12;
  font(doc, 8.5);
  line(doc, view.cae.rango, cx, y, cw);
  y += 12;
  if (view.cae.especial) {
    line(doc, `CAE especial: ${view.cae.especial}`, cx, y, cw);
    y += 12;
  }
  // DGI's "Fecha de vencimiento" box (BRIEF 4), named for the CAE so that nobody reads it as the payment due date.
  box(doc, cx, y + 2, 130, 28);
  font(doc, 7.5, false, GREY);
  line(doc, 'Fecha de vencimiento del CAE', cx + 6, y + 6, 120);
  font(doc, 10, true);
  line(doc, view.cae.vencimiento, cx + 6, y + 16, 120);
  return height;
}

/** Page number and document name at the bottom of every page; the preview stamp. */
function drawPageMarks(doc: Doc, view: CfeView, page: number, pages: number): void {
  font(doc, 7.5, false, GREY);
  line(doc, `${view.tipoNombre} ${view.serieNumero}`, M, PAGE_H - M - 8, W / 2);
  line(doc, `Página ${page} de ${pages}`, M + W / 2, PAGE_H - M - 8, W / 2, 'right');
  if (view.preview) {
    stamp(doc, PREVIEW_TEXT, PAGE_W / 2, PAGE_H / 2, 38, -52);
    font(doc, 8, true, '#cc0000');
    line(doc, PREVIEW_TEXT, M, M / 2 - 1, W, 'center');
  }
}
/** Draws the whole A4 document; the caller calls doc.end(). */
export function drawA4(doc: Doc, view: CfeView, logoBytes?: Buffer, onLogoSkipped?: LogoSkipped): void {
  const logo = openLogo(doc, logoBytes, 130, 50, onLogoSkipped);
  const cols = columns(doc, view);
  const headerBottom = drawHeader(doc, view, logo, false);
  const rowsTop = headerBottom + 17;
  const pageBottom = PAGE_H - M - PAGE_NO_H;
  const footerH = drawFooter(doc, view, 0, false);
  font(doc, 8);
  let adenda = view.adenda ? wrapLines(doc, view.adenda, W) : [];
  let trailerH = drawTrailer(doc, view, adenda, 0, false);
  // An adenda too long to share the last page with a few rows, the totals and the footer (it may
  // have 10,000 characters) gets pages of its own after that page.
  let adendaPages: string[][] = [];
  if (adenda.length > 1 && rowsTop + 40 + 8 + trailerH + FOOTER_GAP + footerH > pageBottom) {
    const perPage = Math.floor((pageBottom - rowsTop) / ADENDA_LINE_H);
    for (let i = 0; i < adenda.length; i += perPage) adendaPages.push(adenda.slice(i, i + perPage));
    adenda = ['Continúa en la página siguiente.'];
    trailerH = drawTrailer(doc, view, adenda, 0, false);
  }
  const rows = view.lines.map((l) => measureRow(doc, cols, l));
  const pages = paginate(rows, rowsTop, pageBottom, 8 + trailerH + FOOTER_GAP + footerH);
  const total = pages.length + adendaPages.length;

  // The last page's totals and footer sit at its bottom, the QR in the bottom-left corner (BRIEF 4);
  // the lines table is framed down to them, so the page is one form with no empty band.
  const footerTop = pageBottom - footerH;
  const trailerTop = footerTop - FOOTER_GAP - trailerH;
  pages.forEach((page, i) => {
    const last = i === pages.length - 1;
    doc.addPage({ size: [PAGE_W, PAGE_H], margin: 0 });
    drawHeader(doc, view, logo, true);
    let ry = drawTableHeader(doc, cols, headerBottom);
    for (const r of page) {
      drawRow(doc, cols, r, ry);
      ry += r.h;
    }
    drawTableFrame(doc, cols, headerBottom, last ? trailerTop - 4 : pageBottom - 12);
    if (last) {
      drawTrailer(doc, view, adenda, trailerTop, true);
      drawFooter(doc, view, footerTop, true);
    } else {
      font(doc, 7.5, false, GREY);
      line(doc, `Continúa en la página ${i + 2}`, M, pageBottom - 8, W, 'right');
    }
    drawPageMarks(doc, view, i + 1, total);
  });
  adendaPages.forEach((lines, i) => {
    doc.addPage({ size: [PAGE_W, PAGE_H], margin: 0 });
    drawHeader(doc, view, logo, true);
    font(doc, 8, true);
    line(doc, 'Adenda (continuación)', M, headerBottom, W);
    font(doc, 8);
    lines.forEach((l, j) => line(doc, l, M, rowsTop + j * ADENDA_LINE_H, W));
    drawPageMarks(doc, view, pages.length + i + 1, total);
  });
}
