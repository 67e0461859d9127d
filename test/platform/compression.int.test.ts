/**
 * Response compression (src/platform/http/compression.ts): large answers go out brotli or gzip as
 * the client asks and decode to the same bytes; answers below the threshold, clients that ask for
 * nothing, and the emission path are sent as they are.
 */
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { setUpIssuer } from '../../src/modules/issued-cfe/issued-cfe.test-setup.js';
import { COMPRESSION_THRESHOLD_BYTES } from '../../src/platform/http/compression.js';
import { eTicketBody } from '../../bench/support.js';
import { insertCompany } from '../support/factories.js';
import { createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
let token: string;
before(async () => {
  t = await createTestApp();
  token = await t.adminToken();
});
after(async () => t.close());

describe('response compression', () => {
  it('sends openapi.json brotli or gzip as asked, many times smaller, decoding to the same document', async () => {
    const plain = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(plain.headers['content-encoding'], undefined, 'no accept-encoding: sent as is');
    for (const [enc, decode] of [['br', zlib.brotliDecompressSync], ['gzip', zlib.gunzipSync]] as const) {
      const res = await t.app.inject({ method: 'GET', url: '/openapi.json', headers: { 'accept-encoding': `${enc}` } });
      assert.equal(res.headers['content-encoding'], enc);
      assert.match(String(res.headers.vary), /accept-encoding/i);
      assert.ok(res.rawPayload.length * 8 < plain.rawPayload.length, `${enc}: ${res.rawPayload.length} of ${plain.rawPayload.length} B`);
      assert.deepEqual(decode(res.rawPayload), plain.rawPayload);
    }
  });

  it('sends small answers as they are', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'accept-encoding': 'gzip, br' } });
    assert.ok(res.rawPayload.length < COMPRESSION_THRESHOLD_BYTES);
    assert.equal(res.headers['content-encoding'], undefined);
    const err = await t.app.inject({ method: 'GET', url: '/api/v1/usuario/empresas', headers: { 'accept-encoding': 'gzip, br' } });
    assert.equal(err.statusCode, 401);
    assert.equal(err.headers['content-encoding'], undefined);
  });

  it('compresses a large list answer but not the emission answer', async () => {
    const company = await insertCompany(t);
    await setUpIssuer(t.db, t.call, token, company);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'accept-encoding': 'gzip, deflate, br' };
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/comprobante/emitir', headers, payload: eTicketBody(company.id) });
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(res.rawPayload.length > COMPRESSION_THRESHOLD_BYTES);
      assert.equal(res.headers['content-encoding'], undefined, 'the emission path is not compressed');
    }
    const list = await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/buscar?idEmpresa=${company.id}`, headers });
    assert.equal(list.statusCode, 200);
    assert.equal(list.headers['content-encoding'], 'br');
    assert.equal(JSON.parse(zlib.brotliDecompressSync(list.rawPayload).toString()).total, 5);
  });
});
