/**
 * Micro-benchmark of the DGI client's own work on one EFACRECEPCIONSOBRE request (issue 45): an
 * EnvioCFE of 250 signed e-Tickets escaped into xmlData and the request's WS-Security signature,
 * CPU per envelope on this thread (the event loop's, in the service). Beside it the same steps as
 * they were: the soap library's escaping and libxml2 reading the whole ~1.3 MB request for the Body's
 * exclusive C14N (dgi.wss-sign.ts exclusiveBody with no text left out).
 * Run: `npx tsx bench/wss-sign.ts [envelopes]` (or in `npm run bench`, 40 envelopes).
 */
import { xmlEscape } from 'soap/lib/utils.js';
import { createTestCa, issueTestCertificate } from '../src/platform/crypto/pki.js';
import { buildEnvioCfe, createSigningContext, escapeC14nText, sampleCfe, signCfe } from '../src/modules/emission/index.js';
import { exclusiveBody, signWsSecurity } from '../src/modules/dgi/dgi.wss-sign.js';
import { rsaBaseline } from './baseline.js';

const RSA_SHA1 = { signature: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1', digest: 'http://www.w3.org/2000/09/xmldsig#sha1' };

export async function runWssSignBench(envelopes = 40): Promise<Record<string, number>> {
  const ca = createTestCa();
  const cert = issueTestCertificate(ca, { rut: '219999830019', name: 'Empresa Demo S.A.' });
  const ctx = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem });
  const cfes = Array.from({ length: 250 }, (_, i) => signCfe(sampleCfe(101, { Nro: i + 1, lines: 3 }), ctx).xml);
  const envio = buildEnvioCfe({ rutReceptor: '214844360018', rucEmisor: '219999830019', idEmisor: 1, fecha: '2026-11-29T10:00:00-03:00', certificateDerBase64: ctx.certificate.der.toString('base64'), cfes });
  const credentials = { privateKeyPem: cert.keyPem, certificatePem: cert.certPem };
  const request = (xmlData: string) =>
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:tns="http://dgi.gub.uy">` +
    `<soap:Header></soap:Header><soap:Body><tns:WS_eFactura.EFACRECEPCIONSOBRE><tns:Datain><tns:xmlData>${xmlData}</tns:xmlData>` +
    `</tns:Datain></tns:WS_eFactura.EFACRECEPCIONSOBRE></soap:Body></soap:Envelope>`;
  const library = request(xmlEscape(envio) as string);
  const canonical = request(escapeC14nText(envio));
  const bodyStart = library.indexOf('<soap:Body');

  const cpuPerEnvelope = (label: string, fn: () => unknown): number => {
    for (let i = 0; i < 3; i++) fn(); // warm-up
    const t0 = process.cpuUsage();
    for (let i = 0; i < envelopes; i++) fn();
    const t = process.cpuUsage(t0);
    const ms = Number(((t.user + t.system) / 1000 / envelopes).toFixed(2));
    console.log(`${label.padEnd(58)} ${ms.toFixed(2)} ms CPU per envelope`);
    return ms;
  };
  const results: Record<string, number> = { envioCfeChars: envio.length, requestCharsBefore: library.length, requestCharsNow: canonical.length };
  console.log(`EnvioCFE of 250 e-Tickets: ${envio.length} chars; request ${library.length} chars (soap's escaping), ${canonical.length} (C14N's)`);
  // Two rounds: the second is the figure (the first still compiles).
  for (let round = 0; round < 2; round++) {
    results.escapeSoapMs = cpuPerEnvelope("escaping xmlData: soap's xmlEscape (before)", () => xmlEscape(envio));
    results.escapeC14nMs = cpuPerEnvelope('escaping xmlData: escapeC14nText (now)', () => escapeC14nText(envio));
    results.bodyC14nWholeMs = cpuPerEnvelope('Body C14N, libxml2 reads the whole request (before)', () => exclusiveBody(library, bodyStart, Infinity));
    results.bodyC14nMarkerMs = cpuPerEnvelope('Body C14N, xmlData text left out and put back (now)', () => exclusiveBody(canonical, bodyStart));
    results.signNowMs = cpuPerEnvelope('signWsSecurity, whole (now: C14N, digest, RSA, header)', () => signWsSecurity(canonical, 'soap', credentials, RSA_SHA1, 'x509-bench'));
  }
  results.clientBeforeMs = Number((results.escapeSoapMs + results.bodyC14nWholeMs - results.bodyC14nMarkerMs + results.signNowMs).toFixed(2));
  results.clientNowMs = Number((results.escapeC14nMs + results.signNowMs).toFixed(2));
  const raw = rsaBaseline();
  console.log(`client's work per envelope: before ${results.clientBeforeMs} ms, now ${results.clientNowMs} ms (${(results.clientNowMs / 250).toFixed(3)} ms per CFE)`);
  if (raw) {
    results.rawRsaSignsPerSecondOneCore = raw.signsPerSec;
    console.log(`raw baseline ${raw.what}: ${raw.signsPerSec} signs/s; client's work now per envelope = ${(results.clientNowMs / raw.msPerSign).toFixed(1)} RSA signatures`);
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runWssSignBench(Number(process.argv[2] ?? 40));
  process.exit(0);
}
