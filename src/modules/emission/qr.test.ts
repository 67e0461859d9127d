import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { buildQrUrl, qrPngBase64, securityCode } from './qr.ts';
import { encodeQr } from './qr-encoder.ts';

// jsqr and pngjs are CommonJS test-only helpers without ESM typings.
const require = createRequire(import.meta.url);
const jsQR = require('jsqr') as (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const { PNG } = require('pngjs') as { PNG: { sync: { read(buf: Buffer): { data: Buffer; width: number; height: number } } } };

const digestValue = 'dpmLMfgpd/WbZvORW8oErIkY+DtbsUHnh2gnmZyu5HY=';
const base = { RUCEmisor: '219999830019', Serie: 'A', Nro: 758, TmstFirma: '2026-07-08T18:06:51-03:00', digestValue };
const totales = { MntPagar: '291.45', MntTotal: '280.00', MntTotRetenido: '12.30' };

describe('qr', () => {
  it('security code is the first 6 characters of the DigestValue', () => {
    assert.equal(securityCode(digestValue), 'dpmLMf');
  });

  it('e-Factura / e-Ticket / notes use MntPagar, date dd/mm/yyyy, hash URL-encoded', () => {
    assert.equal(
      buildQrUrl({ ...base, TipoCFE: 111, Totales: totales }),
      'https://www.efactura.dgi.gub.uy/consultaQR/cfe?219999830019,111,A,758,291.45,08/07/2026,dpmLMfgpd%2FWbZvORW8oErIkY%2BDtbsUHnh2gnmZyu5HY%3D',
    );
    assert.match(buildQrUrl({ ...base, TipoCFE: 102, Totales: totales }), /,102,A,758,291\.45,/);
  });

  it('e-Remito uses 0', () => {
    assert.match(buildQrUrl({ ...base, TipoCFE: 181, Totales: {} }), /,181,A,758,0,08\/07\/2026,/);
  });

  it('e-Resguardo uses MntTotRetenido', () => {
    assert.match(buildQrUrl({ ...base, TipoCFE: 182, Totales: totales }), /,182,A,758,12\.30,/);
  });

  it('e-Remito de Exportación uses MntTotal', () => {
    assert.match(buildQrUrl({ ...base, TipoCFE: 124, Totales: totales }), /,124,A,758,280\.00,/);
  });

  it('contingency codes follow their electronic type', () => {
    assert.match(buildQrUrl({ ...base, TipoCFE: 281, Totales: totales }), /,281,A,758,0,/);
  });

  it('PNG decodes back to the URL', async () => {
    const url = buildQrUrl({ ...base, TipoCFE: 101, Totales: totales });
    const png = PNG.sync.read(Buffer.from(await qrPngBase64(url), 'base64'));
    const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    assert.equal(decoded?.data, url);
  });

  it('PNG is 1-bit greyscale, about 300 px, and decodes for every type and many hashes (fixed mask)', async () => {
    const { randomBytes } = await import('node:crypto');
    for (let i = 0; i < 60; i++) {
      const tipo = [101, 111, 181, 182, 124, 201][i % 6];
      const url = buildQrUrl({ ...base, Nro: 1 + i * 7919, TipoCFE: tipo, Totales: totales, digestValue: randomBytes(32).toString('base64') });
      const buf = Buffer.from(qrPngBase64(url), 'base64');
      assert.equal(buf[24], 1, 'bit depth');
      assert.equal(buf[25], 0, 'greyscale');
      const png = PNG.sync.read(buf);
      assert.ok(png.width >= 250 && png.width <= 300, `width ${png.width}`);
      assert.equal(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data, url, url);
    }
  });
});

describe('qr png geometry', () => {
  it('decodes at every module scale, from 1 to 16 pixels per module', async () => {
    const url = 'https://www.efactura.dgi.gub.uy/consultaQR/cfe?219999830019,101,A,1,100.00,08/07/2026,abc';
    const { PNG: Png } = require('pngjs') as { PNG: { sync: { read(buf: Buffer): { data: Buffer; width: number; height: number } } } };
    for (let scale = 1; scale <= 16; scale++) {
      const span = encodeQr(url).size + 2; // plus the one-module quiet zone
      const png = Png.sync.read(Buffer.from(qrPngBase64(url, { width: span * scale }), 'base64'));
      assert.equal(png.width, span * scale);
      if (scale >= 2) assert.equal(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data, url, `scale ${scale}`);
    }
  });
});
