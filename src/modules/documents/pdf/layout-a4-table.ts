/**
 * The A4 lines table: columns, rows measured before drawing (a long name wraps, a description adds
 * lines), pagination, and drawing of the table header and rows.
 */
import { box, font, GREY, LINE, line, para, type Doc } from './draw.ts';
import { MM } from './qr-vector.ts';
import type { CfeView, ViewLine } from './view.ts';

export const PAGE_W = 595.28;
export const PAGE_H = 841.89;
export const M = 10 * MM;
export const W = PAGE_W - 2 * M;
/** Cell text stays this far inside the table frame. */
const INSET = 3;
const ROW_H = 12;
const DESC_H = 9;
const DESC_LINE_H = 8.2;
/** The last page keeps up to this many rows with the totals: never a page of totals alone. */
const ROWS_WITH_TOTALS = 3;

export interface Column {
  key: keyof ViewLine;
  title: string;
  width: number;
  align: 'left' | 'right' | 'center';
}

/** The code column is as wide as the longest code, within these bounds; a longer one wraps. */
const CODE_MIN_W = 40;
const CODE_MAX_W = 110;

/**
 * The table's columns: a column no line has a value for is left out (Código, Unid., Desc./Rec.
 * often; prices and amounts on remitos and resguardos), the description gets the room. The code
 * column is as wide as the longest code so that codes print whole.
 */
export function columns(doc: Doc, view: CfeView): Column[] {
  font(doc, 8);
  const codes = view.lines.filter((l) => l.codigo);
  const codeW = Math.min(CODE_MAX_W, Math.max(CODE_MIN_W, ...codes.map((l) => doc.widthOfString(l.codigo) + 6)));
  const all: Column[] = [
    { key: 'codigo', title: 'Código', width: codeW, align: 'left' },
    { key: 'nombre', title: 'Descripción', width: 0, align: 'left' },
    { key: 'cantidad', title: 'Cant.', width: 44, align: 'right' },
    { key: 'unidad', title: 'Unid.', width: 30, align: 'center' },
    { key: 'precio', title: 'Precio unit.', width: 62, align: 'right' },
    { key: 'descRec', title: 'Desc./Rec.', width: 50, align: 'right' },
    ...(view.showIva ? [{ key: 'indicador', title: 'IVA', width: 40, align: 'center' } as Column] : []),
    { key: 'importe', title: 'Importe', width: 78, align: 'right' },
  ];
  const cols = all.filter((c) => c.key === 'nombre' || view.lines.some((l) => l[c.key]));
  const fixed = cols.reduce((s, c) => s + c.width, 0);
  nameColumn(cols).width = W - 2 * INSET - fixed - 4 * (cols.length - 1);
  return cols;
}

function nameColumn(cols: Column[]): Column {
  return cols.find((c) => c.key === 'nombre') as Column;
}

/** x of a column's left edge. */
function columnX(cols: Column[], key: keyof ViewLine): number {
  let x = M + INSET;
  for (const c of cols) {
    if (c.key === key) return x;
    x += c.width + 4;
  }
  return x;
}

/** A row measured for drawing: its text lines, the description's, and its total height. */
export interface Row {
  line: ViewLine;
  /** Code and name columns too narrow for their text: they wrap instead of being cut. */
  wraps: Set<keyof ViewLine>;
  /** Height of the item's own lines (the tallest wrapped cell), above the description. */
  nameH: number;
  descH: number;
  h: number;
}

/** The columns whose text may wrap over several lines (every other cell is one short value). */
const WRAPPING: ReadonlyArray<keyof ViewLine> = ['codigo', 'nombre'];

/** The description wraps under the name, inside its column (the column rules are drawn through the rows). */
function descWidth(cols: Column[]): number {
  return nameColumn(cols).width - 2;
}

export function measureRow(doc: Doc, cols: Column[], l: ViewLine): Row {
  font(doc, 8);
  const wraps = new Set<keyof ViewLine>();
  let nameH = ROW_H;
  for (const c of cols) {
    const v = l[c.key];
    if (!v || !WRAPPING.includes(c.key) || doc.widthOfString(v) <= c.width - 2) continue;
    wraps.add(c.key);
    nameH = Math.max(nameH, doc.heightOfString(v, { width: c.width - 2 }) + 3);
  }
  let descH = 0;
  if (l.descripcion) {
    font(doc, 7);
    descH = Math.max(DESC_H, Math.ceil(doc.heightOfString(l.descripcion, { width: descWidth(cols) }) / DESC_LINE_H) * DESC_LINE_H + 1);
  }
  return { line: l, wraps, nameH, descH, h: nameH + descH };
}

export function drawTableHeader(doc: Doc, cols: Column[], y: number): number {
  doc.save().rect(M, y, W, 14).fill('#eeeeee').restore();
  font(doc, 8, true);
  let x = M + INSET;
  for (const c of cols) {
    line(doc, c.title, x + 1, y + 4, c.width - 2, c.align);
    x += c.width + 4;
  }
  return y + 17;
}

/** The table's outline and column rules, from its header down to `bottom`. */
export function drawTableFrame(doc: Doc, cols: Column[], top: number, bottom: number): void {
  box(doc, M, top, W, bottom - top);
  doc.save().lineWidth(0.3).strokeColor(LINE);
  let x = M + INSET;
  for (const c of cols.slice(0, -1)) {
    x += c.width + 4;
    doc.moveTo(x - 2, top).lineTo(x - 2, bottom);
  }
  doc.stroke().restore();
}

export function drawRow(doc: Doc, cols: Column[], r: Row, y: number): void {
  const l = r.line;
  let x = M + INSET;
  font(doc, 8);
  for (const c of cols) {
    const v = l[c.key];
    if (v && r.wraps.has(c.key)) para(doc, v, x + 1, y, c.width - 2);
    else if (v) line(doc, v, x + 1, y, c.width - 2, c.align);
    x += c.width + 4;
  }
  if (l.descripcion) {
    font(doc, 7, false, GREY);
    doc.text(l.descripcion, columnX(cols, 'nombre') + 1, y + r.nameH - 1, { width: descWidth(cols), lineGap: 0, height: r.descH, ellipsis: true });
  }
}

/**
 * Rows per page. The totals and footer go on the last page, after its rows; when they do not fit
 * there, the last rows move with them to a new page (a page of totals alone reads as a separate
 * document to whoever gets page 2 alone).
 */
export function paginate(rows: Row[], rowsTop: number, pageBottom: number, tailH: number): Row[][] {
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
