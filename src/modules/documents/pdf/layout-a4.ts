/**
 * A4 layout (BRIEF 4; FCFE "Representación impresa"): issuer upper left, identification box upper
 * right, receiver box, lines table over as many pages as needed (header repeated on each page),
 * totals and adenda, and on the last page the footer: QR bottom left (28 mm, vector) with the
 * security code under it, CAE data, expiry box and legends. "Página i de n" on every page.
 * Rows have a fixed height, so pagination is computed before drawing and nothing is buffered.
 */
import { drawQr, MM } from './qr-vector.ts';
import { box, font, GREY, hr, line, openLogo, para, stamp, type Doc, type Logo, type LogoSkipped } from './draw.ts';
import { PREVIEW_TEXT, type CfeView, type ViewLine } from './view.ts';

const PAGE_W = 595.28;
const PAGE_H = 841.89;
const M = 10 * MM;
const W = PAGE_W - 2 * M;
const QR_SIDE = 28 * MM;
const ROW_H = 12;
const DESC_H = 9;
const PAGE_NO_H = 14;
/** Footer block: QR + security code line + 5 mm quiet margin above. */
const FOOTER_H = QR_SIDE + 14 + 5 * MM;

interface Column {
  key: keyof ViewLine;
  title: string;
  width: number;
  align: 'left' | 'right' | 'center';
}

function columns(view: CfeView): Column[] {
  const cols: Column[] = [
    { key: 'codigo', title: 'Código', width: 58, align: 'left' },
    { key: 'nombre', title: 'Descripción', width: 0, align: 'left' },
    { key: 'cantidad', title: 'Cant.', width: 44, align: 'right' },
    { key: 'unidad', title: 'Unid.', width: 30, align: 'center' },
    { key: 'precio', title: 'Precio unit.', width: 62, align: 'right' },
    { key: 'descRec', title: 'Desc./Rec.', width: 50, align: 'right' },
    ...(view.showIva ? [{ key: 'indicador', title: 'IVA', width: 40, align: 'center' } as Column] : []),
    { key: 'importe', title: 'Importe', width: 78, align: 'right' },
  ];
  const fixed = cols.reduce((s, c) => s + c.width, 0);
  cols[1].width = W - fixed - 4 * (cols.length - 1);
  return cols;
}

function rowHeight(l: ViewLine): number {
  return l.descripcion ? ROW_H + DESC_H : ROW_H;
}

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
  for (const r of view.referencias) {
    if (draw) line(doc, r, M, y, W);
    y += 10;
  }
  return y + 4;
}

function drawTableHeader(doc: Doc, cols: Column[], y: number): number {
  doc.save().rect(M, y, W, 14).fill('#eeeeee').restore();
  font(doc, 8, true);
  let x = M;
  for (const c of cols) {
    line(doc, c.title, x + 1, y + 4, c.width - 2, c.align);
    x += c.width + 4;
  }
  return y + 17;
}

function drawRow(doc: Doc, cols: Column[], l: ViewLine, y: number): void {
  let x = M;
  font(doc, 8);
  for (const c of cols) {
    const v = l[c.key];
    if (v) line(doc, v, x + 1, y, c.width - 2, c.align);
    x += c.width + 4;
  }
  if (l.descripcion) {
    font(doc, 7, false, GREY);
    line(doc, l.descripcion, M + cols[0].width + 5, y + ROW_H - 1, cols[1].width + 200, 'left');
  }
}

/** Height of adjustments, totals, payment methods and adenda. */
function drawTrailer(doc: Doc, view: CfeView, y: number, draw: boolean): number {
  const start = y;
  const tw = 250;
  const tx = M + W - tw;
  font(doc, 8.5);
  for (const a of view.ajustes) {
    if (draw) {
      line(doc, a.label, M, y, W - 100);
      line(doc, a.value, M + W - 100, y, 100, 'right');
    }
    y += 11;
  }
  if (view.ajustes.length) y += 4;
  const totalsTop = y;
  for (const t of view.totals) {
    if (draw) {
      font(doc, t.strong ? 9.5 : 8.5, t.strong);
      line(doc, t.label, tx + 6, y + 3, tw - 110);
      line(doc, t.value, tx + tw - 104, y + 3, 98, 'right');
    }
    y += t.strong ? 14 : 12;
  }
  if (draw && view.totals.length) box(doc, tx, totalsTop, tw, y - totalsTop + 4);
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
  if (view.adenda) {
    font(doc, 8, true);
    if (draw) line(doc, 'Adenda', M, y, W);
    font(doc, 8);
    y += 11 + para(doc, view.adenda, M, y + 11, W, 'left', draw) + 6;
  }
  return y - start;
}

function drawFooter(doc: Doc, view: CfeView): void {
  const qy = PAGE_H - M - PAGE_NO_H - 14 - QR_SIDE;
  if (view.qrUrl) drawQr(doc, view.qrUrl, M, qy, QR_SIDE);
  else {
    box(doc, M, qy, QR_SIDE, QR_SIDE);
    font(doc, 7, false, GREY);
    line(doc, 'QR (vista previa)', M, qy + QR_SIDE / 2 - 3, QR_SIDE, 'center');
  }
  font(doc, 8, true);
  line(doc, `Código de seguridad: ${view.securityCode}`, M, qy + QR_SIDE + 4, 160);

  const cx = M + QR_SIDE + 8 * MM;
  const cw = 210;
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
  box(doc, cx, y + 2, 120, 28);
  font(doc, 7.5, false, GREY);
  line(doc, 'Fecha de vencimiento', cx + 6, y + 6, 110);
  font(doc, 10, true);
  line(doc, view.cae.vencimiento, cx + 6, y + 16, 110);

  const lx = cx + cw + 10;
  const lw = M + W - lx;
  let ly = qy;
  font(doc, 8);
  for (const l of view.legends) ly += para(doc, l, lx, ly, lw) + 3;
  font(doc, 7.5, false, GREY);
  para(doc, `Fecha de firma: ${view.firma}`, lx, ly + 2, lw);
}

/** Draws the whole A4 document; the caller calls doc.end(). */
export function drawA4(doc: Doc, view: CfeView, logoBytes?: Buffer, onLogoSkipped?: LogoSkipped): void {
  const logo = openLogo(doc, logoBytes, 130, 50, onLogoSkipped);
  const cols = columns(view);
  const headerBottom = drawHeader(doc, view, logo, false);
  const rowsTop = headerBottom + 17;
  const pageBottom = PAGE_H - M - PAGE_NO_H;
  const lastBottom = pageBottom - FOOTER_H;
  const trailerH = drawTrailer(doc, view, 0, false);

  // Pagination: rows fill pages; the trailer and footer go on the last page.
  const pages: ViewLine[][] = [[]];
  let y = rowsTop;
  for (const l of view.lines) {
    const h = rowHeight(l);
    if (y + h > pageBottom) {
      pages.push([]);
      y = rowsTop;
    }
    pages[pages.length - 1].push(l);
    y += h;
  }
  const trailerOnNewPage = y + 6 + trailerH > lastBottom;
  if (trailerOnNewPage) pages.push([]);

  pages.forEach((rows, i) => {
    doc.addPage({ size: [PAGE_W, PAGE_H], margin: 0 });
    drawHeader(doc, view, logo, true);
    let ry = rows.length ? drawTableHeader(doc, cols, headerBottom) : headerBottom;
    for (const l of rows) {
      drawRow(doc, cols, l, ry);
      ry += rowHeight(l);
    }
    if (rows.length) hr(doc, M, M + W, ry + 1);
    if (i === pages.length - 1) {
      drawTrailer(doc, view, ry + 6, true);
      drawFooter(doc, view);
    }
    font(doc, 7.5, false, GREY);
    line(doc, `${view.tipoNombre} ${view.serieNumero}`, M, PAGE_H - M - 8, W / 2);
    line(doc, `Página ${i + 1} de ${pages.length}`, M + W / 2, PAGE_H - M - 8, W / 2, 'right');
    if (view.preview) {
      stamp(doc, PREVIEW_TEXT, PAGE_W / 2, PAGE_H / 2, 38, -52);
      font(doc, 8, true, '#cc0000');
      line(doc, PREVIEW_TEXT, M, M / 2 - 1, W, 'center');
    }
  });
}
