/**
 * Security code and QR for the printed representation (BRIEF 4; FCFE "5- Pie del comprobante",
 * TDOC Anexo B/E). The hash is the signature's base64 DigestValue [I, strong: BRIEF 4].
 */
import zlib from 'node:zlib';
import { getCfeType } from './cfe-types.ts';
import { encodeQr } from './qr-encoder.ts';
import { rowDeflate, rowDeflateBound, rowDeflateTable, type DeflateTable, type RepeatedRows } from './row-deflate.ts';
import type { Totales } from './cfe.model.ts';

export const QR_BASE_URL = 'https://www.efactura.dgi.gub.uy/consultaQR/cfe';

/** "Código de seguridad": the first 6 characters of the hash. */
export function securityCode(digestValue: string): string {
  return digestValue.slice(0, 6);
}

export interface QrInput {
  RUCEmisor: string;
  TipoCFE: number;
  Serie: string;
  Nro: number;
  Totales: Pick<Totales, 'MntPagar' | 'MntTotal' | 'MntTotRetenido'>;
  /** TmstFirma as written in the CFE; the QR date is its calendar date (signing date). */
  TmstFirma: string;
  digestValue: string;
}

/**
 * monto per type: e-Remito → 0; e-Resguardo → MntTotRetenido (A-C125); e-Remito de Exportación →
 * MntTotal (A-C124); any other → MntPagar (A-C130).
 */
export function qrAmount(tipoCFE: number, totales: QrInput['Totales']): string {
  const rule = getCfeType(tipoCFE).qrAmount;
  if (rule === 'ZERO') return '0';
  const value = totales[rule];
  if (value === undefined) throw new Error(`QR: ${rule} missing for CFE type ${tipoCFE}`);
  return value;
}

/** dd/mm/yyyy of the signing date as the document specifies (BRIEF 4: YYYYMMDD is also seen in the wild). */
export function qrDate(tmstFirma: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T/.exec(tmstFirma);
  if (!m) throw new Error(`QR: TmstFirma is not an xs:dateTime: ${tmstFirma}`);
  return `${m[3]}/${m[2]}/${m[1]}`;
}

/** `…/consultaQR/cfe?ruc,tipoCFE,serie,nroCFE,monto,fecha,hash`: comma-separated, not key=value. */
export function buildQrUrl(input: QrInput): string {
  const params = [
    input.RUCEmisor,
    String(input.TipoCFE),
    input.Serie,
    String(input.Nro),
    qrAmount(input.TipoCFE, input.Totales),
    qrDate(input.TmstFirma),
    encodeURIComponent(input.digestValue),
  ];
  return `${QR_BASE_URL}?${params.join(',')}`;
}

/**
 * The tiles of a QR pixel row at `scale` pixels per module (row-deflate.ts): every run of `group`
 * modules fills whole bytes (group = 8 / gcd(scale, 8)), so tile v < 2^group is the bytes of those
 * modules with bit (group - 1 - j) of v telling whether module j is light; then the 2^rest tiles of
 * the row's last `rest` modules with the padding bits (light), then the filter byte (None).
 */
interface RowTiles {
  tiles: Uint8Array[];
  group: number;
  rest: number;
  restBase: number;
  filter: number;
}
const rowTileCache = new Map<string, RowTiles>();
function rowTiles(span: number, scale: number): RowTiles {
  const key = `${span}x${scale}`;
  const hit = rowTileCache.get(key);
  if (hit) return hit;
  let g = 8;
  while (g > 1 && ((g / 2) * scale) % 8 === 0) g /= 2;
  const rest = span % g;
  const bytesOf = (v: number, modules: number) => {
    const out = new Uint8Array(Math.ceil((modules * scale) / 8)).fill(0xff); // light padding
    for (let j = 0; j < modules; j++) {
      if ((v >> (modules - 1 - j)) & 1) continue;
      for (let x = j * scale; x < (j + 1) * scale; x++) out[x >> 3] &= ~(0x80 >> (x & 7));
    }
    return out;
  };
  const tiles: Uint8Array[] = [];
  for (let v = 0; v < 1 << g; v++) tiles.push(bytesOf(v, g));
  const restBase = tiles.length;
  if (rest > 0) for (let v = 0; v < 1 << rest; v++) tiles.push(bytesOf(v, rest));
  const filter = tiles.length;
  tiles.push(Uint8Array.of(0));
  const result = { tiles, group: g, rest, restBase, filter };
  rowTileCache.set(key, result);
  return result;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Writes a PNG chunk whose data is already at `at + 8 .. at + 8 + length`; returns its end. */
function closeChunk(png: Buffer, at: number, type: string, length: number): number {
  png.writeUInt32BE(length, at);
  png.write(type, at + 4, 'latin1');
  const end = at + 8 + length;
  png.writeUInt32BE(zlib.crc32(png.subarray(at + 4, end)), end);
  return end + 4;
}

/**
 * PNG of the QR as base64 (no data: prefix), about `width` pixels wide (whole pixels per module,
 * one-module quiet zone), as a 1-bit greyscale PNG written directly: one pixel row per module row,
 * compressed by row-deflate.ts as literals followed by one back-reference for its `scale - 1`
 * copies (~1 KB, as zlib level 1). Costs a fraction of a generic RGBA encoder's ~8 ms, and about
 * half of zlib.deflateSync, whose per-call setup was most of its ~30 µs here.
 */
export function qrPngBase64(url: string, options: { width?: number } = {}): string {
  const { rows, px } = qrRows(url, options.width ?? 300);
  table ??= rowDeflateTable(qrRows(TABLE_SAMPLE_URL, 300).rows);
  const png = Buffer.allocUnsafe(8 + 25 + 12 + rowDeflateBound(rows, px) + 12);
  png.set(PNG_SIGNATURE, 0);
  png.writeUInt32BE(px, 16);
  png.writeUInt32BE(px, 20);
  png.set([1, 0, 0, 0, 0], 24); // bit depth 1, greyscale, deflate, filter method 0, no interlace
  let end = closeChunk(png, 8, 'IHDR', 13);
  const idatEnd = rowDeflate(rows, png, end + 8, table);
  end = closeChunk(png, end, 'IDAT', idatEnd - end - 8);
  end = closeChunk(png, end, 'IEND', 0);
  return png.toString('base64', 0, end);
}

// The Huffman table every QR PNG is coded with: fitted once to a typical receipt's QR, so the
// same URL always gives the same bytes (row-deflate.ts).
const TABLE_SAMPLE_URL = `${QR_BASE_URL}?219999830019,101,A,1234567,12345.67,08/07/2026,u4tFvG8%2BZq1x0yQ7cL3mN9pR2sT5vW8zA1bC4dE6fH0%3D`;
let table: DeflateTable | undefined;

/** The PNG's scanlines of the QR of `url`, about `width` pixels wide. */
function qrRows(url: string, width: number): { rows: RepeatedRows; px: number } {
  const { size, modules } = encodeQr(url);
  const margin = 1;
  const span = size + 2 * margin;
  const scale = Math.max(1, Math.floor(width / span));
  const px = span * scale;
  const { tiles, group, rest, restBase, filter } = rowTiles(span, scale);
  const groups = (span - rest) / group;
  const perRow = 1 + groups + (rest > 0 ? 1 : 0);
  const ids = new Uint16Array(span * perRow);
  const first = new Uint32Array(span + 1);
  // Each module row: filter None, then its light(1)/dark(0) pattern `group` modules per tile, the
  // quiet zone included (a module is light when outside the symbol or not dark in it). The test is
  // written out in both loops: a per-row closure for it made the whole PNG ~33 -> ~56 µs.
  let n = 0;
  for (let m = 0; m < span; m++) {
    first[m] = n;
    ids[n++] = filter;
    const r = m - margin;
    const inside = r >= 0 && r < size;
    const at = r * size - margin;
    let col = 0;
    for (let t = 0; t < groups; t++) {
      let v = 0;
      for (let j = 0; j < group; j++, col++) v = (v << 1) | (inside && col >= margin && col < margin + size ? 1 - modules[at + col] : 1);
      ids[n++] = v;
    }
    if (rest > 0) {
      let v = 0;
      for (let j = 0; j < rest; j++, col++) v = (v << 1) | (inside && col >= margin && col < margin + size ? 1 - modules[at + col] : 1);
      ids[n++] = restBase + v;
    }
  }
  first[span] = n;
  return { rows: { count: span, stride: Math.ceil(px / 8) + 1, tiles, ids, first, repeat: () => scale }, px };
}
