/** The per-CFE verification gives the same verdicts inline and in worker threads (received-cfe.verify.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestCa, issueTestCertificate } from '../../platform/crypto/pki.js';
import { createSigningContext, sampleCfe, signCfe } from '../emission/index.js';
import type { EnvelopeCfe } from './received-cfe.envelope.js';
import { applyVerified, createCfeVerifier, type CfeVerified } from './received-cfe.verify.js';

test('worker threads and the event loop agree: signatures, a tampered CFE (E04), the receiver, the fiscal data', async () => {
  const ca = createTestCa();
  const cert = issueTestCertificate(ca, { rut: '219999830019', name: 'Empresa Demo S.A.' });
  const ctx = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem });
  const xmls = Array.from({ length: 12 }, (_, i) => signCfe(sampleCfe(111, { Nro: i + 1, lines: 2 }), ctx).xml);
  xmls[5] = xmls[5].replace(/<Nro>6<\/Nro>/, '<Nro>66</Nro>');
  assert.match(xmls[5], /<Nro>66<\/Nro>/);
  const receiver = /<(?:\w+:)?DocRecep>([^<]*)</.exec(xmls[0])![1];
  const cfes = () => xmls.map((xml, i): EnvelopeCfe => ({ nroOrdinal: i + 1, xml, adenda: null, checks: [], motivos: [] }));
  const opts = { certificate: ctx.certificate.der.toString('base64'), companyRut: receiver, xsdInEnvelope: true };
  const inline = cfes();
  const inWorkers = cfes();
  const all = async (slices: Array<Promise<CfeVerified[]>>) => (await Promise.all(slices)).flat();
  const dataInline = applyVerified(inline, await all(createCfeVerifier({ workers: 0 }).check(xmls, opts)));
  const dataWorkers = applyVerified(inWorkers, await all(createCfeVerifier({ workers: 2 }).check(xmls, opts)));
  assert.deepEqual(inWorkers, inline);
  assert.deepEqual(dataWorkers, dataInline);
  assert.deepEqual(inline[5].motivos.map((m) => m.codigo), ['E04']);
  assert.ok(inline.every((c, i) => i === 5 || c.motivos.length === 0));
  assert.equal(dataInline[5]?.numero, 66);
  assert.equal(dataInline[0]?.rutEmisor, '219999830019');
  // A lone CFE (no envelope): its own XSD, and the certificate of its KeyInfo.
  const withKeyInfo = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem, includeCertificate: true });
  const lone: EnvelopeCfe[] = [{ nroOrdinal: 1, xml: signCfe(sampleCfe(111, { Nro: 99, lines: 1 }), withKeyInfo).xml, adenda: null, checks: [], motivos: [] }];
  applyVerified(lone, await all(createCfeVerifier({ workers: 0 }).check([lone[0].xml], { certificate: null, companyRut: receiver, xsdInEnvelope: false })));
  assert.deepEqual(lone[0].checks.map((c) => [c.control, c.ok]), [['xsd_cfe', true], ['firma', true], ['receptor', true]]);
});
