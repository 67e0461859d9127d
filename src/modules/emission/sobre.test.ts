/**
 * Envelopes: XSD-valid (in-process and xmllint), CFEs embedded verbatim (every CFE extracted back
 * out still verifies), size/count planning, and a round trip through the DGI simulator (AS → AE).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { certificateToBase64, createTestCa, issueTestCertificate, type TestCertificate } from '../../platform/crypto/pki.ts';
import { loadPatchedXsdSet, validateXml } from '../../platform/xml/xsd.ts';
import { DgiSoapReceptionClient } from '../dgi/dgi.soap-client.ts';
import { startDgiSimulator, type DgiSimulator } from '../dgi/dgi.simulator.ts';
import { extractEnvelopeCfes } from './envelope-cfes.ts';
import { SAMPLE_TYPES, sampleCfe } from './sample-cfes.ts';
import { createSigningContext, signCfe, verifyXmlSignature, type SigningContext } from './signer.ts';
import {
  buildEnvioCfe,
  buildEnvioCfeEntreEmpresas,
  CFE_ADENDA_ITEM_OVERHEAD,
  DGI_RUC,
  ENVELOPE_MAX_BYTES,
  envelopeFileName,
  envelopeOverheadBytes,
  planEnvelopes,
  SobreError,
  stripXmlDeclaration,
} from './sobre.ts';

const FECHA = '2026-07-08T18:10:00-03:00';

function xmllint(schema: string, files: string[]): void {
  const r = spawnSync('xmllint', ['--noout', '--nonet', '--schema', schema, ...files], { encoding: 'utf8' });
  if (r.error) assert.fail(`xmllint is not installed (Debian package libxml2-utils): ${r.error.message}`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal((r.stderr.match(/ validates$/gm) ?? []).length, files.length, r.stderr);
}

describe('EnvioCFE / EnvioCFE_entreEmpresas', () => {
  let dir: string;
  let cert: TestCertificate;
  let ctx: SigningContext;
  let certB64: string;
  // All type families, plus contingency (CFC) 201 and 281.
  const TYPES = [...SAMPLE_TYPES, 201, 281];
  const signed: string[] = [];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sobre-'));
    for (const [name, content] of loadPatchedXsdSet()) writeFileSync(join(dir, name), content);
    const ca = createTestCa();
    cert = issueTestCertificate(ca, { rut: '219999830019', name: 'Empresa Demo SA' });
    ctx = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem });
    certB64 = certificateToBase64(cert.certPem);
    TYPES.forEach((tipo, i) => signed.push(signCfe(sampleCfe(tipo, { Nro: i + 1 }), ctx).xml));
  });

  const caratula = () => ({ rutReceptor: DGI_RUC.testing, rucEmisor: '219999830019', idEmisor: 42, fecha: FECHA, certificateDerBase64: certB64 });

  it('DGI RUC per environment (BRIEF 5)', () => {
    assert.deepEqual(DGI_RUC, { production: '214844360018', testing: '219999830019' });
  });

  it('EnvioCFE with every type family validates in-process and with xmllint', () => {
    const xml = buildEnvioCfe({ ...caratula(), cfes: signed });
    assert.deepEqual(validateXml('EnvioCFE', xml), { ok: true });
    assert.match(xml, new RegExp(`<DGICFE:CantCFE>${TYPES.length}</DGICFE:CantCFE>`));
    assert.match(xml, /<DGICFE:RutReceptor>219999830019<\/DGICFE:RutReceptor><DGICFE:RUCEmisor>219999830019<\/DGICFE:RUCEmisor><DGICFE:Idemisor>42</);
    const file = join(dir, 'envio.xml');
    writeFileSync(file, xml);
    xmllint(join(dir, 'EnvioCFE.xsd'), [file]);
  });

  it('embeds every CFE byte for byte; each one extracted back out verifies with the Caratula certificate', () => {
    const xml = buildEnvioCfe({ ...caratula(), cfes: signed.map((c) => `<?xml version="1.0" encoding="UTF-8"?>\n${c}`) });
    assert.equal(xml.match(/<\?xml/g)?.length, 1, 'only the envelope declaration remains');
    for (const cfe of signed) assert.ok(xml.includes(cfe), 'signed bytes are a substring of the envelope');
    const { certificate, cfes } = extractEnvelopeCfes(xml);
    assert.equal(certificate, certB64);
    assert.equal(cfes.length, signed.length);
    for (const [i, cfe] of cfes.entries()) {
      const r = verifyXmlSignature(cfe, { certificate: Buffer.from(certificate!, 'base64') });
      assert.equal(r.valid, true, `type ${TYPES[i]}: ${r.reason}`);
    }
  });

  it('EnvioCFE_entreEmpresas with and without Adenda validates in-process and with xmllint; CFEs still verify', () => {
    const items = signed.slice(0, 4).map((cfe, i) => ({ cfe, adenda: i % 2 === 0 ? `Orden de compra 55${i} & <ref> "x"` : undefined }));
    const xml = buildEnvioCfeEntreEmpresas({ ...caratula(), rutReceptor: '214844360018', items });
    assert.deepEqual(validateXml('EnvioCFE_entreEmpresas', xml), { ok: true });
    assert.match(xml, /<DGICFE:Adenda>Orden de compra 550 &amp; &lt;ref&gt; "x"<\/DGICFE:Adenda>/);
    assert.equal(xml.match(/<DGICFE:CFE_Adenda>/g)?.length, 4);
    assert.equal(xml.match(/<DGICFE:Adenda>/g)?.length, 2);
    const file = join(dir, 'entre.xml');
    writeFileSync(file, xml);
    xmllint(join(dir, 'EnvioCFE_entreEmpresas.xsd'), [file]);
    const { cfes } = extractEnvelopeCfes(xml);
    assert.equal(cfes.length, 4);
    for (const cfe of cfes) assert.equal(verifyXmlSignature(cfe, { certificate: cert.certPem }).valid, true);
  });

  it('rejects bad input instead of producing an envelope DGI would bounce', () => {
    assert.throws(() => buildEnvioCfe({ ...caratula(), cfes: [] }), SobreError);
    assert.throws(() => buildEnvioCfe({ ...caratula(), cfes: Array(251).fill(signed[0]) }), /1\.\.250/);
    assert.throws(() => buildEnvioCfe({ ...caratula(), rucEmisor: '1234', cfes: signed }), /RUCEmisor/);
    assert.throws(() => buildEnvioCfe({ ...caratula(), idEmisor: 12345678901, cfes: signed }), /Idemisor/);
    assert.throws(() => buildEnvioCfe({ ...caratula(), fecha: '2026-07-08', cfes: signed }), /Fecha/);
    assert.throws(() => buildEnvioCfe({ ...caratula(), cfes: ['<Reporte/>'] }), /root element is CFE/);
    assert.throws(() => stripXmlDeclaration('<CFE version="1.0"></CFE>'), /namespace/);
  });

  it('envelopeOverheadBytes bounds the real overhead, so planned batches never exceed the limit', () => {
    const xml = buildEnvioCfe({ ...caratula(), cfes: signed });
    const cfeBytes = signed.reduce((n, c) => n + Buffer.byteLength(c), 0);
    const actualOverhead = Buffer.byteLength(xml) - cfeBytes;
    const estimate = envelopeOverheadBytes(certB64);
    assert.ok(estimate >= actualOverhead && estimate - actualOverhead < 40, `${estimate} vs ${actualOverhead}`);
    const entre = buildEnvioCfeEntreEmpresas({ ...caratula(), items: signed.map((cfe) => ({ cfe, adenda: '' })) });
    const entreOverhead = Buffer.byteLength(entre) - cfeBytes - signed.length * CFE_ADENDA_ITEM_OVERHEAD;
    assert.ok(envelopeOverheadBytes(certB64, 'EnvioCFE_entreEmpresas') >= entreOverhead);
    // A batch planned to exactly fill maxBytes produces an envelope within maxBytes.
    const items = signed.map((c, i) => ({ id: i, bytes: Buffer.byteLength(c) }));
    const maxBytes = estimate + cfeBytes - 1;
    const batches = planEnvelopes(items, { maxBytes, overheadBytes: estimate });
    assert.equal(batches.length, 2);
    for (const batch of batches) {
      const env = buildEnvioCfe({ ...caratula(), cfes: batch.map((b) => signed[b.id]) });
      assert.ok(Buffer.byteLength(env) <= maxBytes);
    }
  });

  it('file name per FSOB', () => {
    assert.equal(envelopeFileName('219999830019', FECHA, 42), 'Sob_219999830019_20260708_42.xml');
  });
});

describe('planEnvelopes (pure)', () => {
  const cfes = (sizes: number[]) => sizes.map((bytes, id) => ({ id, bytes }));
  const ids = (batches: Array<Array<{ id: number }>>) => batches.map((b) => b.map((c) => c.id));

  it('splits on the CFE count limit (default 250)', () => {
    const batches = planEnvelopes(cfes(Array(600).fill(1000)), { overheadBytes: 5000 });
    assert.deepEqual(batches.map((b) => b.length), [250, 250, 100]);
    assert.deepEqual(batches.flat().map((c) => c.id), [...Array(600).keys()], 'order preserved, nothing lost');
  });

  it('splits on bytes, overhead included; the limit is inclusive', () => {
    assert.deepEqual(ids(planEnvelopes(cfes([40, 40, 20, 1]), { maxBytes: 110, overheadBytes: 10 })), [[0, 1, 2], [3]]);
    assert.deepEqual(ids(planEnvelopes(cfes([60, 41, 10]), { maxBytes: 110, overheadBytes: 10 })), [[0], [1, 2]]);
    assert.deepEqual(ids(planEnvelopes(cfes([5, 5, 5, 5, 5]), { maxCfe: 2, maxBytes: 1000, overheadBytes: 10 })), [[0, 1], [2, 3], [4]]);
  });

  it('2 MB default: 1 MB-ish CFEs go one or two per envelope', () => {
    const big = 1024 * 1024 - 10_000;
    const batches = planEnvelopes(cfes([big, big, big]), { overheadBytes: 5000 });
    assert.deepEqual(ids(batches), [[0, 1], [2]]);
    assert.ok(5000 + 2 * big <= ENVELOPE_MAX_BYTES);
  });

  it('a single CFE over the limit is an error; empty input gives no envelopes', () => {
    assert.throws(() => planEnvelopes(cfes([10, 101]), { maxBytes: 110, overheadBytes: 10 }), /CFE 1 \(101 bytes\) does not fit/);
    assert.throws(() => planEnvelopes(cfes([0])), SobreError);
    assert.throws(() => planEnvelopes(cfes([1]), { maxCfe: 251 }), /maxCfe/);
    assert.deepEqual(planEnvelopes([]), []);
  });
});

describe('EnvioCFE through the DGI simulator', () => {
  const RUC = '211234560019';
  let sim: DgiSimulator;

  before(async () => {
    sim = await startDgiSimulator({ port: 0 });
  });
  after(() => sim.close());

  it('answers AS for the envelope, then AE for every CFE', async () => {
    const company = sim.control.issueCompanyCertificate(RUC, 'Empresa Simulada SA');
    for (const tipo of [101, 111]) {
      sim.control.issueCae({ rucEmisor: RUC, tipoCfe: tipo, serie: 'A', desde: 1, hasta: 100, fechaVencimiento: '2099-12-31' });
    }
    const ctx = createSigningContext({ privateKey: company.privateKeyPem, certificate: company.certificatePem });
    const cfes = [101, 101, 111].map((tipo, i) => {
      const cfe = sampleCfe(tipo, { Nro: i + 1 });
      return signCfe({ ...cfe, Emisor: { ...cfe.Emisor, RUCEmisor: RUC } }, ctx).xml;
    });
    const xml = buildEnvioCfe({
      rutReceptor: DGI_RUC.testing,
      rucEmisor: RUC,
      idEmisor: 1,
      fecha: FECHA,
      certificateDerBase64: certificateToBase64(company.certificatePem),
      cfes,
    });
    const dgi = new DgiSoapReceptionClient({ endpoint: sim.urls.efactura, credentials: company, timeoutMs: 5000 });
    const ack = await dgi.sendEnvelope(xml);
    assert.equal(ack.Estado, 'AS', JSON.stringify(ack.motivos));
    assert.equal(ack.caratula.IDEmisor, '1');
    assert.equal(ack.caratula.CantidadCFE, 3);
    const status = await dgi.queryEnvelopeStatus(ack.caratula.IDReceptor, ack.paramConsulta!.Token);
    assert.ok(status.ready);
    assert.deepEqual(
      status.detalles.map((d) => [d.TipoCFE, d.NroCFE, d.Estado, d.motivos.map((m) => m.Motivo).join()]),
      [['101', '1', 'AE', ''], ['101', '2', 'AE', ''], ['111', '3', 'AE', '']],
    );
  });
});
