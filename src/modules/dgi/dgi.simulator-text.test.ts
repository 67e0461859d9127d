/**
 * The simulated DGI reads CFEs as XML 1.0 does (issue 29 point 2): receipts whose text holds a
 * carriage return, tabs, U+0085, U+2028, U+2029 or non-ASCII letters are signed by our template
 * signer, verify with xmlsec1, and the simulator (through the real SOAP client) accepts them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sampleCfe } from '../emission/sample-cfes.ts';
import { createSigningContext, signCfe } from '../emission/signer.ts';
import { DgiSoapReceptionClient } from './dgi.soap-client.ts';
import { startDgiSimulator, type DgiSimulator } from './dgi.simulator.ts';
import { envelope, type Signer } from './dgi.test-helpers.ts';
import { uyDateTime } from './simulator/efactura-service.ts';
import { rootChildSpans, verifyStandaloneSignature } from '../../platform/xml/standalone-signature.ts';

const RUC = '219999830019';
const NAMES = [
  'Retorno\rde carro',
  'Dos\r\nlíneas',
  'Con\ttabulador\t',
  'NEL\u0085en el medio',
  'Separador\u2028de línea',
  'Separador\u2029de párrafo',
  'Ñandú, café & “comillas” €',
];

let sim: DgiSimulator;
let company: Signer;
let dir: string;

before(async () => {
  sim = await startDgiSimulator({ port: 0 });
  company = sim.control.issueCompanyCertificate(RUC, 'Empresa Demo SA');
  sim.control.issueCae({ rucEmisor: RUC, tipoCfe: 101, serie: 'A', desde: 1, hasta: 100, fechaVencimiento: '2099-12-31' });
  dir = mkdtempSync(join(tmpdir(), 'sim-text-'));
  writeFileSync(join(dir, 'cert.pem'), company.certificatePem);
});
after(() => sim.close());

function signedReceipts(): string[] {
  const ctx = createSigningContext({ privateKey: company.privateKeyPem, certificate: company.certificatePem });
  return NAMES.map((name, i) => {
    const cfe = sampleCfe(101, { Nro: i + 1, TmstFirma: uyDateTime(Date.now() - 60_000) });
    cfe.Detalle[0].NomItem = name;
    return signCfe(cfe, ctx).xml;
  });
}

describe('simulated DGI and odd characters', () => {
  test('every receipt verifies with xmlsec1 and the simulator answers AE for each', async () => {
    const cfes = signedReceipts();
    cfes.forEach((xml, i) => {
      const file = join(dir, `cfe-${i}.xml`);
      writeFileSync(file, xml);
      const r = spawnSync('xmlsec1', ['--verify', '--pubkey-cert-pem', join(dir, 'cert.pem'), '--enabled-key-data', 'key-name', file], { encoding: 'utf8' });
      assert.equal(r.status, 0, `${JSON.stringify(NAMES[i])}: ${r.stdout}${r.stderr}`);
      assert.equal(verifyStandaloneSignature(xml, company.certificatePem).ok, true, JSON.stringify(NAMES[i]));
    });
    const client = new DgiSoapReceptionClient({ endpoint: sim.urls.efactura, credentials: company, timeoutMs: 5000 });
    const ack = await client.sendEnvelope(envelope(company, { rucEmisor: RUC, idEmisor: 1, cfes }));
    assert.equal(ack.Estado, 'AS', JSON.stringify(ack.motivos));
    const status = await client.queryEnvelopeStatus(ack.caratula.IDReceptor, ack.paramConsulta!.Token);
    assert.ok(status.ready);
    if (!status.ready) return;
    assert.deepEqual(
      status.detalles.map((d) => [d.NroCFE, d.Estado, d.motivos.map((m) => m.Motivo).join()]),
      NAMES.map((_, i) => [String(i + 1), 'AE', '']),
    );
  });

  test('a changed character is still caught (E04), whatever it is', () => {
    for (const xml of signedReceipts()) {
      const tampered = xml.replace('<NomItem>', '<NomItem>x');
      assert.equal(verifyStandaloneSignature(tampered, company.certificatePem).ok, false);
    }
    // Turning an escaped CR into a raw one changes what an XML 1.0 parser reads (a line feed).
    const [withCr] = signedReceipts();
    assert.ok(withCr.includes('&#xD;'));
    assert.equal(verifyStandaloneSignature(withCr.replace('&#xD;', '\r'), company.certificatePem).ok, false);
  });

  test('rootChildSpans cuts the root children out of the text as written', () => {
    const xml = `<?xml version="1.0"?><!-- <x> --><r a=">"><a:CFE x="/>"><b/><![CDATA[</a:CFE>]]></a:CFE><?pi <c>?><CFE/>\n<c>t</c></r>`;
    const spans = rootChildSpans(xml)!;
    assert.deepEqual(spans.map((s) => s.name), ['a:CFE', 'CFE', 'c']);
    assert.equal(xml.slice(spans[0].start, spans[0].end), '<a:CFE x="/>"><b/><![CDATA[</a:CFE>]]></a:CFE>');
    assert.equal(xml.slice(spans[1].start, spans[1].end), '<CFE/>');
    assert.equal(rootChildSpans('<!DOCTYPE r><r/>'), null);
    // Unterminated constructs (received-CFE intake cuts an envelope before parsing it): null, not an endless scan.
    for (const bad of ['<r><!-- x', '<r><![CDATA[ x', '<r><?pi x', '<r><a></a']) assert.equal(rootChildSpans(bad), null, bad);
  });
});
