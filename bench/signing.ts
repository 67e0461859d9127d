/**
 * Signing throughput on one core (STACK.md 4b): raw RSA-2048 as the physical limit, the template
 * signer on a pre-built 8-line e-Ticket, and build + sign end to end. Run: `tsx bench/signing.ts`.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { buildCfeXml } from '../src/modules/emission/cfe-xml.ts';
import { sampleCfe } from '../src/modules/emission/sample-cfes.ts';
import { createSigningContext, signCanonicalXml, signCfe } from '../src/modules/emission/signer.ts';
import { createTestCa, issueTestCertificate } from '../src/platform/crypto/pki.ts';

function perSecond(fn: (i: number) => void, seconds = 3): number {
  for (let i = 0; i < 50; i += 1) fn(i); // warm-up
  const deadline = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  const start = process.hrtime.bigint();
  let n = 0;
  while (process.hrtime.bigint() < deadline) {
    for (let k = 0; k < 20; k += 1) fn(n++);
  }
  return Math.round(n / (Number(process.hrtime.bigint() - start) / 1e9));
}

export async function runSigningBench(): Promise<Record<string, number>> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const payload = randomBytes(600);
  const ca = createTestCa();
  const cert = issueTestCertificate(ca, { rut: '219999830019', name: 'Bench SA' });
  const ctx = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem });
  const cfe = sampleCfe(101, { lines: 8 });
  const unsigned = buildCfeXml(cfe);

  const results: Record<string, number> = {
    rawRsaSha256PerSec: perSecond(() => sign('sha256', payload, privateKey)),
    templateSignPerSec: perSecond(() => signCanonicalXml(unsigned, ctx)),
    buildAndSignPerSec: perSecond((i) => signCfe({ ...cfe, IdDoc: { ...cfe.IdDoc, Nro: i + 1 } }, ctx)),
    buildOnlyPerSec: perSecond((i) => buildCfeXml({ ...cfe, IdDoc: { ...cfe.IdDoc, Nro: i + 1 } })),
    ticketBytes: Buffer.byteLength(signCanonicalXml(unsigned, ctx).xml),
  };
  for (const [name, value] of Object.entries(results)) console.log(`${name.padEnd(22)} ${value}`);
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runSigningBench();
}
