/**
 * Structural check of the PNG and JPEG images the PDF renderer embeds (company and branch logos).
 * The magic bytes are not enough: pdfkit throws on a truncated PNG ("Incomplete or corrupt PNG
 * file"), throws a bare string on a JPEG without a frame header, and decodes alpha PNGs in an
 * async zlib callback where a corrupt stream escapes every try/catch. So both the logo upload
 * and the renderer run this first. PNG: chunk layout and CRCs, IHDR, PLTE when indexed, IDAT
 * inflated to exactly the size the header announces, valid filter bytes, IEND (PNG spec, ISO/IEC
 * 15948). JPEG: marker segments up to a baseline or progressive frame header (SOF0-2, which PDF's
 * DCTDecode reads), then a scan and the end-of-image marker (ITU T.81 Annex B).
 */
import { crc32, inflateSync } from 'node:zlib';

export type RasterType = 'image/png' | 'image/jpeg';
export type RasterCheck = { ok: true; type: RasterType; width: number; height: number } | { ok: false; problem: string };

/** Decoded size cap (bytes of filtered scanlines): a 512 KB file must not inflate to gigabytes. */
export const MAX_DECODED_BYTES = 32 * 1024 * 1024;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Allowed bit depths per PNG colour type, and samples per pixel. */
const PNG_DEPTHS: Record<number, { depths: number[]; samples: number }> = {
  0: { depths: [1, 2, 4, 8, 16], samples: 1 },
  2: { depths: [8, 16], samples: 3 },
  3: { depths: [1, 2, 4, 8], samples: 1 },
  4: { depths: [8, 16], samples: 2 },
  6: { depths: [8, 16], samples: 4 },
};
/** Adam7 passes: x start, y start, x step, y step. */
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];

const fail = (problem: string): RasterCheck => ({ ok: false, problem });

export function isPng(data: Buffer): boolean {
  return data.length >= PNG_SIGNATURE.length && data.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE);
}

export function isJpeg(data: Buffer): boolean {
  return data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff;
}

/** Checks that `data` is a complete, decodable PNG or JPEG; `problem` is a Spanish sentence for the API. */
export function checkRasterImage(data: Buffer): RasterCheck {
  if (isPng(data)) return checkPng(data);
  if (isJpeg(data)) return checkJpeg(data);
  return fail('No es una imagen PNG ni JPEG.');
}

function checkPng(data: Buffer): RasterCheck {
  let pos = PNG_SIGNATURE.length;
  let header: { width: number; height: number; depth: number; colorType: number; interlace: number } | undefined;
  let hasPalette = false;
  let ended = false;
  const idat: Buffer[] = [];
  while (!ended) {
    if (pos + 12 > data.length) return fail('El PNG está truncado: falta el fragmento final IEND.');
    const length = data.readUInt32BE(pos);
    const type = data.toString('latin1', pos + 4, pos + 8);
    if (length > 0x7fffffff || pos + 12 + length > data.length) return fail(`El PNG está truncado en el fragmento ${JSON.stringify(type)}.`);
    const body = data.subarray(pos + 8, pos + 8 + length);
    if (crc32(data.subarray(pos + 4, pos + 8 + length)) !== data.readUInt32BE(pos + 8 + length)) return fail(`El PNG está dañado: el CRC del fragmento ${JSON.stringify(type)} no coincide.`);
    if (!header && type !== 'IHDR') return fail('El PNG no empieza con el fragmento IHDR.');
    if (type === 'IHDR') {
      if (header || length !== 13) return fail('El fragmento IHDR del PNG no es válido.');
      header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), depth: body[8], colorType: body[9], interlace: body[12] };
      const allowed = PNG_DEPTHS[header.colorType];
      if (!header.width || !header.height || header.width > 0x7fffffff || header.height > 0x7fffffff) return fail('El PNG declara un ancho o alto inválido.');
      if (!allowed?.depths.includes(header.depth) || body[10] !== 0 || body[11] !== 0 || header.interlace > 1) return fail('El PNG declara un tipo de color, profundidad o método no válidos.');
    } else if (type === 'PLTE') hasPalette = true;
    else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') ended = true;
    pos += 12 + length;
  }
  if (!header) return fail('El PNG no tiene fragmento IHDR.');
  if (header.colorType === 3 && !hasPalette) return fail('El PNG indexado no tiene paleta (PLTE).');
  if (!idat.length) return fail('El PNG no tiene datos de imagen (IDAT).');

  const bitsPerPixel = header.depth * PNG_DEPTHS[header.colorType].samples;
  const passes = header.interlace
    ? ADAM7.map(([x0, y0, dx, dy]) => ({ w: Math.ceil((header.width - x0) / dx), h: Math.ceil((header.height - y0) / dy) })).filter((p) => p.w > 0 && p.h > 0)
    : [{ w: header.width, h: header.height }];
  const rows = passes.map((p) => ({ bytes: Math.ceil((p.w * bitsPerPixel) / 8), count: p.h }));
  const expected = rows.reduce((sum, r) => sum + (1 + r.bytes) * r.count, 0);
  if (expected > MAX_DECODED_BYTES) return fail(`La imagen es demasiado grande (${header.width}×${header.height} píxeles).`);
  let pixels: Buffer;
  try {
    pixels = inflateSync(Buffer.concat(idat), { maxOutputLength: expected + 1 });
  } catch {
    return fail('Los datos comprimidos del PNG están dañados.');
  }
  if (pixels.length !== expected) return fail('Los datos del PNG no corresponden a su tamaño declarado.');
  // Every scanline starts with its filter type, 0..4.
  let at = 0;
  for (const r of rows) {
    for (let i = 0; i < r.count; i++, at += 1 + r.bytes) if (pixels[at] > 4) return fail('Los datos del PNG están dañados (filtro de línea inválido).');
  }
  return { ok: true, type: 'image/png', width: header.width, height: header.height };
}

/** SOF markers PDF viewers decode (DCTDecode): baseline, extended sequential, progressive. */
const SOF_SUPPORTED = new Set([0xc0, 0xc1, 0xc2]);
/** Other SOF markers (lossless, arithmetic coding) and JPG/DAC, which pdfkit would also take for a frame header. */
const SOF_OTHER = new Set([0xc3, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf]);

function checkJpeg(data: Buffer): RasterCheck {
  let pos = 2;
  let frame: { width: number; height: number } | undefined;
  while (pos < data.length) {
    if (data[pos] !== 0xff) return fail('El JPEG está dañado: se esperaba un marcador.');
    while (data[pos] === 0xff) pos++; // fill bytes
    if (pos >= data.length) break;
    const marker = data[pos++];
    if (marker === 0xd9) return fail('El JPEG termina antes de sus datos de imagen.');
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue; // standalone markers
    if (marker < 0xc0 || marker === 0xd8) return fail(`El JPEG está dañado: marcador 0x${marker.toString(16).padStart(2, '0')} inesperado.`);
    if (pos + 2 > data.length) break;
    const length = data.readUInt16BE(pos);
    if (length < 2 || pos + length > data.length) return fail('El JPEG está truncado.');
    if (SOF_OTHER.has(marker)) return fail('El JPEG usa una codificación que el PDF no admite (use JPEG baseline o progresivo).');
    if (SOF_SUPPORTED.has(marker)) {
      if (frame || length < 8) return fail('El encabezado de cuadro (SOF) del JPEG no es válido.');
      const components = data[pos + 7];
      frame = { height: data.readUInt16BE(pos + 3), width: data.readUInt16BE(pos + 5) };
      if (data[pos + 2] !== 8 || !frame.width || !frame.height || ![1, 3, 4].includes(components) || length !== 8 + 3 * components) {
        return fail('El JPEG declara un tamaño, precisión o número de componentes no válidos.');
      }
    }
    if (marker === 0xda) {
      if (!frame) return fail('El JPEG no tiene encabezado de cuadro (SOF) antes de los datos de imagen.');
      // Entropy-coded data follows; the image must end with EOI (FF D9) after it.
      if (data.indexOf(Buffer.from([0xff, 0xd9]), pos + length) < 0) return fail('El JPEG está truncado: falta el marcador de fin de imagen.');
      return { ok: true, type: 'image/jpeg', width: frame.width, height: frame.height };
    }
    pos += length;
  }
  return fail('El JPEG está truncado: no tiene datos de imagen.');
}
