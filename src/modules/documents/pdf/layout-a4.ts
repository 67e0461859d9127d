/**
 * A4 layout (BRIEF 4; FCFE "Representación impresa"): issuer upper left, identification box upper
 * right, receiver box, lines table over as many pages as needed (issuer header and table header
 * repeated on each page), and on the last page the totals and adenda followed directly by the
 * footer: QR at its left (28 mm, vector) with the security code under it, CAE data, the CAE expiry
 * box and legends. The footer follows the totals instead of sitting at the page bottom, so a short
 * invoice has no empty band between them (issue 27). "Página i de n" on every page.
 * Row heights (a long name wraps, a description adds lines) are measured once before drawing, so
 * pagination is decided first and nothing is buffered.
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
const DESC_LINE_H = 8.2;
const PAGE_NO_H = 14;
/** QR quiet margin above the footer (BRIEF 4: 5 mm for a QR up to 30 mm). */
const FOOTER_GAP = 5 * MM;
/** The last page keeps at least this many rows with the totals: never a page of totals alone. */
const ROWS_WITH_TOTALS = 3;

interface Column {
  key: keyof ViewLine;
  title: string;
  width: number;
  align: 'left' | 'right' | 'center';
}

function columns(view: CfeView): Column[] {
  const cols: Column[] = [
    { key: 'codigo', title: 'Código', width: 66, align: 'left' },
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

/** A row measured for drawing: the name's lines and the description's, and its total height. */
interface Row {
  line: ViewLine;
  /** Set when the name does not fit one line of its column: it wraps instead of being cut. */
  nameWraps: boolean;
  nameH: number;
  descH: number;
  h: number;
}

/** Width of the description line: from the name column to the end of the discount column. */
function descWidth(cols: Column[]): number {
  const last = cols.findIndex((c) => c.key === 'descRec');
  return cols.slice(1, last + 1).reduce((s, c) => s + c.width + 4, 0) - 4;
}

function measureRow(doc: Doc, cols: Column[], l: ViewLine): Row {
  font(doc, 8);
  const nameWraps = doc.widthOfString(l.nombre) > cols[1].width - 2;
  const nameH = nameWraps ? Math.max(ROW_H, doc.heightOfString(l.nombre, { width: cols[1].width - 2 }) + 3) : ROW_H;
  let descH = 0;
  if (l.descripcion) {
    font(doc, 7);
    descH = Math.max(DESC_H, Math.ceil(doc.heightOfString(l.descripcion, { width: descWidth(cols) }) / DESC_LINE_H) * DESC_LINE_H + 1);
  }
  return { line: l, nameWraps, nameH, descH, h: nameH + descH };
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

function drawRow(doc: Doc, cols: Column[], r: Row, y: number): void {
  const l = r.line;
  let x = M;
  font(doc, 8);
  for (const c of cols) {
    const v = l[c.key];
    if (v && c.key === 'nombre' && r.nameWraps) para(doc, v, x + 1, y, c.width - 2);
    else if (v) line(doc, v, x + 1, y, c.width - 2, c.align);
    x += c.width + 4;
  }
  if (l.descripcion) {
    font(doc, 7, false, GREY);
    doc.text(l.descripcion, M + cols[0].width + 5, y + r.nameH - 1, { width: descWidth(cols), lineGap: 0, height: r.descH, ellipsis: true });
  }
}

/** Height of adjustments, totals, payment methods and adenda. */
function drawTrailer(doc: Doc, view: CfeView, y: number, draw: boolean): number {
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
  if (view.adenda) {
    font(doc, 8, true);
    if (draw) line(doc, 'Adenda', M, y, W);
    font(doc, 8);
    y += 11 + para(doc, view.adenda, M, y + 11, W, 'left', draw) + 6;
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

/**
 * Rows per page. The totals and footer go on the last page, after its rows; when they do not fit
 * there, the last rows move with them to a new page (a page of totals alone reads as a separate
 * document to whoever gets page 2 alone).
 */
function paginate(rows: Row[], rowsTop: number, pageBottom: number, tailH: number): Row[][] {
  const pages: Row[][] = [[]];
  let y = rowsTop;
  for (const r of rows) {
    if (y + r.h > pageBottom && pages[pages.length - 1].length) {
      pages.push([]);
      y = rowsTop;
    }
    pages[pages.length - 1].push(r);
    y += r.h;
  }
  if (y + tailH <= pageBottom) return pages;
  const last = pages[pages.length - 1];
  const moved: Row[] = [];
  const room = pageBottom - rowsTop - tailH;
  let movedH = 0;
  while (last.length > 1 && moved.length < ROWS_WITH_TOTALS && movedH + last[last.length - 1].h <= room) {
    const r = last.pop() as Row;
    moved.unshift(r);
    movedH += r.h;
  }
  pages.push(moved);
  return pages;
}

/** Draws the whole A4 document; the caller calls doc.end(). */
export function drawA4(doc: Doc, view: CfeView, logoBytes?: Buffer, onLogoSkipped?: LogoSkipped): void {
  const logo = openLogo(doc, logoBytes, 130, 50, onLogoSkipped);
  const cols = columns(view);
  const headerBottom = drawHeader(doc, view, logo, false);
  const rowsTop = headerBottom + 17;
  const pageBottom = PAGE_H - M - PAGE_NO_H;
  const trailerH = drawTrailer(doc, view, 0, false);
  const footerH = drawFooter(doc, view, 0, false);
  const rows = view.lines.map((l) => measureRow(doc, cols, l));
  const pages = paginate(rows, rowsTop, pageBottom, 7 + trailerH + FOOTER_GAP + footerH);

  pages.forEach((page, i) => {
    doc.addPage({ size: [PAGE_W, PAGE_H], margin: 0 });
    drawHeader(doc, view, logo, true);
    let ry = page.length ? drawTableHeader(doc, cols, headerBottom) : headerBottom;
    for (const r of page) {
      drawRow(doc, cols, r, ry);
      ry += r.h;
    }
    if (page.length) hr(doc, M, M + W, ry + 1);
    if (i < pages.length - 1) {
      font(doc, 7.5, false, GREY);
      line(doc, `Continúa en la página ${i + 2}`, M, ry + 5, W, 'right');
    } else {
      const trailerEnd = ry + 7 + drawTrailer(doc, view, ry + 7, true);
      drawFooter(doc, view, trailerEnd + FOOTER_GAP, true);
    }
    drawPageMarks(doc, view, i + 1, pages.length);
  });
}
