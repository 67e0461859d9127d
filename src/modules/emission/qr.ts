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
 * Per module column: [first byte, its bits, last byte, its bits] of the column's `scale` white
 * pixels in a pixel row; the bytes in between are all white. Cached per geometry.
 */
const whiteMaskCache = new Map<string, Uint16Array>();
function whiteMasks(span: number, scale: number): Uint16Array {
  const key = `${span}x${scale}`;
  let masks = whiteMaskCache.get(key);
  if (masks) return masks;
  masks = new Uint16Array(span * 4);
  for (let c = 0; c < span; c++) {
    const x0 = c * scale;
    const x1 = x0 + scale - 1;
    const first = x0 >> 3;
    const last = x1 >> 3;
    const head = 0xff >> (x0 & 7);
    const tail = (0xff << (7 - (x1 & 7))) & 0xff;
    masks.set(first === last ? [first, head & tail, last, head & tail] : [first, head, last, tail], c * 4);
  }
  whiteMaskCache.set(key, masks);
  return masks;
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
  const rowBytes = Math.ceil(px / 8);
  const white = whiteMasks(span, scale);
  const rows: RepeatedRows = {
    count: span,
    stride: rowBytes + 1,
    repeat: () => scale,
    // Filter None, then the module row's pixels: a white module sets its precomputed bits (0 = black).
    row(m: number, line: Uint8Array) {
      const r = m - margin;
      const inside = r >= 0 && r < size;
      for (let c = 0; c < span; c++) {
        const col = c - margin;
        if (inside && col >= 0 && col < size && modules[r * size + col] === 1) continue;
        const k = c * 4;
        const first = white[k] + 1;
        const last = white[k + 2] + 1;
        line[first] |= white[k + 1];
        for (let b = first + 1; b < last; b++) line[b] = 0xff;
        line[last] |= white[k + 3];
      }
      if (px & 7) line[rowBytes] |= 0xff >> (px & 7); // padding bits: white
    },
  };
  return { rows, px };
}
