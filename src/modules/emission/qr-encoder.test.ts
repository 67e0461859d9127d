import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import QRCode from 'qrcode';
import { encodeQr } from './qr-encoder.ts';

/** The reference: the `qrcode` package with the same settings (one byte segment, level M, mask 2). */
function reference(text: string) {
  const { modules } = QRCode.create([{ data: text, mode: 'byte' }] as unknown as string, { errorCorrectionLevel: 'M', maskPattern: 2 as never });
  return { size: modules.size, modules: Uint8Array.from(modules.data as unknown as ArrayLike<number>, (v) => (v ? 1 : 0)) };
}

function assertSame(text: string) {
  const ours = encodeQr(text);
  const ref = reference(text);
  assert.equal(ours.size, ref.size, `size for ${text.length} bytes`);
  const diff = ours.modules.findIndex((m, i) => m !== ref.modules[i]);
  assert.equal(diff, -1, `first differing module ${diff} (row ${Math.floor(diff / ref.size)}, col ${diff % ref.size}) for ${text.length} bytes`);
}

describe('qr encoder', () => {
  it('draws exactly the reference symbol for the CFE verification URL', () => {
    assertSame('https://www.efactura.dgi.gub.uy/consultaQR/cfe?219999830019,111,A,758,291.45,08/07/2026,dpmLMfgpd%2FWbZvORW8oErIkY%2BDtbsUHnh2gnmZyu5HY%3D');
  });

  it('draws exactly the reference symbol at every length from 1 to 400 bytes (versions 1 to 17, short and long blocks)', () => {
    for (let n = 1; n <= 400; n++) assertSame(randomBytes(n).toString('base64url').slice(0, n));
  });

  it('draws the largest versions too (version information, many alignment patterns)', () => {
    for (const n of [600, 900, 1200, 1600, 2000, 2331]) assertSame('x'.repeat(n));
  });

  it('writes non-ASCII text as UTF-8 bytes', () => {
    assertSame('Razón Social Ñandú – ü');
  });

  it('refuses text beyond the capacity of version 40-M', () => {
    assert.throws(() => encodeQr('x'.repeat(2332)), RangeError);
  });
});
