/**
 * Micro-benchmark of the per-CFE checks of received-CFE intake and of the DGI simulator: CPU per CFE
 * (process.cpuUsage, this thread only, no workers) of verifyStandaloneSignature and of the fiscal
 * data read, over N signed e-Facturas sharing one certificate (as an envelope's 250 do).
 * Run: `npx tsx bench/signature-micro.ts [N]` (or in `npm run bench`, N = 2000).
 */
import { X509Certificate } from 'node:crypto';
import { createTestCa, issueTestCertificate } from '../src/platform/crypto/pki.js';
import { createSigningContext, sampleCfe, signCfe } from '../src/modules/emission/index.js';
import { verifyStandaloneSignature } from '../src/platform/xml/standalone-signature.js';
import { fiscalDataOf } from '../src/modules/received-cfe/received-cfe.view.js';

export async function runSignatureMicroBench(n = 2000): Promise<Record<string, number>> {
  const ca = createTestCa();
  const cert = issueTestCertificate(ca, { rut: '219999830019', name: 'Empresa Demo S.A.' });
  const ctx = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem });
  const key = new X509Certificate(ctx.certificate.der).publicKey;
  const xmls = Array.from({ length: n }, (_, i) => signCfe(sampleCfe(111, { Nro: i + 1, lines: 3 }), ctx).xml);
  if (!xmls.every((x) => verifyStandaloneSignature(x, key).ok)) throw new Error('a CFE did not verify');

  const cpuPerCfe = (label: string, fn: (xml: string) => unknown): number => {
    for (let i = 0; i < Math.min(200, n); i++) fn(xmls[i]); // warm-up
    const t0 = process.cpuUsage();
    for (const xml of xmls) fn(xml);
    const t = process.cpuUsage(t0);
    const ms = Number(((t.user + t.system) / 1000 / n).toFixed(3));
    console.log(`${label.padEnd(40)} ${ms.toFixed(3)} ms CPU per CFE`);
    return ms;
  };
  const results: Record<string, number> = {};
  // Two rounds: the second is the figure (the first still compiles).
  for (let round = 0; round < 2; round++) {
    results.signatureKeyObjectCpuMsPerCfe = cpuPerCfe('verifyStandaloneSignature (KeyObject)', (x) => verifyStandaloneSignature(x, key));
    results.signaturePemCpuMsPerCfe = cpuPerCfe('verifyStandaloneSignature (PEM string)', (x) => verifyStandaloneSignature(x, cert.certPem));
    results.fiscalDataCpuMsPerCfe = cpuPerCfe('fiscalDataOf', (x) => fiscalDataOf(x));
  }
  console.log(`mean CFE ${Math.round(xmls.reduce((s, x) => s + x.length, 0) / n)} chars; rss ${Math.round(process.memoryUsage().rss / 1e6)} MB`);
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runSignatureMicroBench(Number(process.argv[2] ?? 2000));
  process.exit(0);
}
