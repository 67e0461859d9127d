/** The PNG/JPEG decodability check that logo uploads and the PDF renderer share. */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import { chunk, JPEG, JPEG_GARBAGE, JPEG_PROGRESSIVE, PNG_GARBAGE, pngWithCorruptPixels } from './raster-image.fixtures.ts';
import { checkRasterImage, MAX_DECODED_BYTES } from './raster-image.ts';

const require = createRequire(import.meta.url);
type Png = { data: Buffer; width: number; height: number };
const { PNG } = require('pngjs') as { PNG: { sync: { write(png: Png, o?: { colorType?: number; inputHasAlpha?: boolean; interlace?: boolean }): Buffer } } & (new (o: { width: number; height: number }) => Png) };


function png(width = 12, height = 5, colorType = 6): Buffer {
  const img = new PNG({ width, height });
  for (let i = 0; i < img.data.length; i += 4) img.data.set([20, 60, 160, i % 8 ? 255 : 128], i);
  return PNG.sync.write(img, { colorType });
}

// PNGs built chunk by chunk (fixtures' chunk), to aim at one rule at a time.
const SIGNATURE = Buffer.from('89504e470d0a1a0a', 'hex');
function ihdr(width: number, height: number, depth = 8, colorType = 2): Buffer {
  const b = Buffer.alloc(13);
  b.writeUInt32BE(width, 0);
  b.writeUInt32BE(height, 4);
  b.set([depth, colorType, 0, 0, 0], 8);
  return chunk('IHDR', b);
}
const handmade = (...chunks: Buffer[]) => Buffer.concat([SIGNATURE, ...chunks]);
const problem = (data: Buffer) => {
  const r = checkRasterImage(data);
  assert.equal(r.ok, false, 'expected a problem');
  return (r as { problem: string }).problem;
};

describe('checkRasterImage', () => {
  it('accepts real PNGs (RGBA, RGB, grey, interlaced) and JPEGs (baseline, progressive) with their size', () => {
    assert.deepEqual(checkRasterImage(png()), { ok: true, type: 'image/png', width: 12, height: 5 });
    assert.equal(checkRasterImage(png(7, 3, 2)).ok, true);
    assert.equal(checkRasterImage(png(7, 3, 0)).ok, true);
    const img = new PNG({ width: 9, height: 9 });
    img.data.fill(200);
    assert.equal(checkRasterImage(PNG.sync.write(img, { interlace: true } as never)).ok, true);
    assert.deepEqual(checkRasterImage(JPEG), { ok: true, type: 'image/jpeg', width: 4, height: 2 });
    assert.equal(checkRasterImage(JPEG_PROGRESSIVE).ok, true);
    // A 1×1 RGB image made by hand: filter byte 0 plus three samples.
    assert.equal(checkRasterImage(handmade(ihdr(1, 1), chunk('IDAT', deflateSync(Buffer.from([0, 1, 2, 3]))), chunk('IEND', Buffer.alloc(0)))).ok, true);
  });

  it('refuses a PNG signature followed by garbage, truncated files and bad CRCs', () => {
    assert.match(problem(PNG_GARBAGE), /IHDR|truncado|CRC/);
    assert.match(problem(pngWithCorruptPixels()), /comprimidos/);
    const good = png();
    assert.match(problem(good.subarray(0, good.length - 20)), /truncado/);
    const flipped = Buffer.from(good);
    flipped[40] ^= 0xff;
    assert.match(problem(flipped), /CRC/);
  });

  it('refuses PNGs whose pixel data does not match the header', () => {
    const end = chunk('IEND', Buffer.alloc(0));
    assert.match(problem(handmade(ihdr(1, 1), chunk('IDAT', Buffer.from('not zlib')), end)), /comprimidos/);
    assert.match(problem(handmade(ihdr(2, 2), chunk('IDAT', deflateSync(Buffer.from([0, 1, 2, 3]))), end)), /tamaño declarado/);
    assert.match(problem(handmade(ihdr(1, 1), chunk('IDAT', deflateSync(Buffer.from([9, 1, 2, 3]))), end)), /filtro/);
    assert.match(problem(handmade(ihdr(1, 1, 8, 3), chunk('IDAT', deflateSync(Buffer.from([0, 0]))), end)), /paleta/);
    assert.match(problem(handmade(ihdr(1, 1, 3, 2), chunk('IDAT', deflateSync(Buffer.from([0, 0]))), end)), /tipo de color/);
    assert.match(problem(handmade(ihdr(1, 1), end)), /IDAT/);
    assert.match(problem(handmade(ihdr(0, 1), end)), /ancho o alto/);
    // A decompression bomb is refused from its header, before inflating.
    assert.match(problem(handmade(ihdr(20000, 20000), chunk('IDAT', deflateSync(Buffer.alloc(10))), end)), /demasiado grande/);
    assert.ok(MAX_DECODED_BYTES < 20000 * 20000);
  });

  it('refuses fake and truncated JPEGs', () => {
    assert.match(problem(JPEG_GARBAGE), /marcador/);
    assert.match(problem(JPEG.subarray(0, 12)), /truncado/);
    const sos = JPEG.indexOf(Buffer.from([0xff, 0xda]));
    assert.match(problem(JPEG.subarray(0, sos + 20)), /fin de imagen/);
    // SOF0 removed: a scan without a frame header (pdfkit: "Invalid JPEG.").
    const sof = JPEG.indexOf(Buffer.from([0xff, 0xc0]));
    const sofLength = JPEG.readUInt16BE(sof + 2);
    assert.match(problem(Buffer.concat([JPEG.subarray(0, sof), JPEG.subarray(sof + 2 + sofLength)])), /SOF/);
    // Arithmetic coding (SOF9): PDF viewers cannot decode it.
    const arithmetic = Buffer.from(JPEG);
    arithmetic[sof + 1] = 0xc9;
    assert.match(problem(arithmetic), /codificación/);
    assert.match(problem(Buffer.from('GIF89a')), /PNG ni JPEG/);
  });
});
