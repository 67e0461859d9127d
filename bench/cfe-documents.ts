/**
 * Printed representation from stored CFEs (issue 7 point 8): PDFs/s for A4 and the 80 mm ticket
 * on the real path (signed XML → CFE model → PDF, as representacionImpresa and the ZIP do), and a
 * ZIP of 1,000 receipts (PDF + signed XML each) streamed by the cfe-documents service, with its
 * time, peak RSS and heap, and the live heap (after forced GCs) of 200 vs 1,000 receipts: equal = flat. Rows come from an in-memory iterator (the database side is the search
 * iterator's, measured by bench/search); signed sample e-Tickets with a test certificate.
 * Run: `npx tsx bench/cfe-documents.ts` (or `npm run bench`).
 */
import { Writable } from 'node:stream';
import v8 from 'node:v8';
import vm from 'node:vm';
import { pathToFileURL } from 'node:url';
import { createTestCa, issueTestCertificate } from '../src/platform/crypto/pki.js';
import { createSigningContext, sampleCfe, signCfe } from '../src/modules/emission/index.js';
import { renderIssuedCfe } from '../src/modules/cfe-documents/cfe-documents.render.js';
import { createCfeDocumentsService } from '../src/modules/cfe-documents/cfe-documents.service.js';
import type { CfeDocumentsPorts } from '../src/modules/cfe-documents/cfe-documents.ports.js';
import type { IssuedCfeSummary } from '../src/modules/issued-cfe/issued-cfe.search.js';
import type { Db } from '../src/platform/db/client.js';

// A forced GC makes "live heap" measurable (peak heapUsed mostly shows how lazy the collector was).
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function signedSamples(n: number) {
  const ca = createTestCa();
  const c = issueTestCertificate(ca, { rut: '219999830019', name: 'Empresa Demo S.A.' });
  const ctx = createSigningContext({ privateKey: c.keyPem, certificate: c.certPem });
  return Array.from({ length: n }, (_, i) => {
    const cfe = sampleCfe(i % 5 === 0 ? 111 : 101, { Nro: i + 1, lines: 3 + (i % 8) });
    return signCfe(cfe, ctx).xml;
  });
}

async function rate(fn: (i: number) => Promise<unknown>, seconds = 3) {
  for (let i = 0; i < 20; i += 1) await fn(i);
  const start = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  let n = 0;
  while (Number(process.hrtime.bigint() - start) / 1e9 < seconds) await fn(n++);
  const cpu = process.cpuUsage(cpu0);
  return { cpu: Math.round(n / ((cpu.user + cpu.system) / 1e6)), wall: Math.round(n / (Number(process.hrtime.bigint() - start) / 1e9)) };
}

export async function runCfeDocumentsBench(): Promise<Record<string, number>> {
  const xmls = signedSamples(1000);
  const results: Record<string, number> = {};
  for (const formato of ['A4', 'ticket80'] as const) {
    const r = await rate((i) => renderIssuedCfe({ xml: xmls[i % xmls.length], adenda: null }, undefined, formato));
    results[`storedCfe${formato}PdfsPerSecWall`] = r.wall;
    results[`storedCfe${formato}PdfsPerCpuSec`] = r.cpu;
  }

  const rows = (count: number) =>
    (async function* () {
      for (let i = 0; i < count; i += 1) {
        yield { id: i + 1, branchId: 1, tipoCfe: 101, serie: 'A', numero: i + 1, firmadoEn: new Date(), adenda: null, xml: xmls[i % xmls.length] } as unknown as IssuedCfeSummary;
      }
    })();
  // Memory is flat when the live heap (after a forced GC, sampled while streaming) of a 1,000-receipt ZIP equals a 200-receipt one's.
  // Timed run (no forced GC), then the memory runs (forced GC sampled at most twice a second).
  for (const [count, measureLive] of [[1000, false], [200, true], [1000, true]] as const) {
    const ports = { printingProfile: async () => undefined, iterateWithXml: () => rows(count) } as unknown as CfeDocumentsPorts;
    const service = createCfeDocumentsService({ db: undefined as unknown as Db, ports });
    const rss0 = process.memoryUsage().rss;
    let peakRss = rss0;
    let peakHeap = 0;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
    }, 20);
    let bytes = 0;
    let lastGc = performance.now();
    let liveHeap = 0;
    const sink = new Writable({
      write(chunk: Buffer, _e, cb) {
        bytes += chunk.length;
        // At most twice a second, so the forced collections cost a few percent of the run.
        if (measureLive && performance.now() - lastGc > 500) {
          gc();
          lastGc = performance.now();
          liveHeap = Math.max(liveHeap, process.memoryUsage().heapUsed);
        }
        cb();
      },
    });
    const t0 = performance.now();
    const zip = await service.zip(1, { filters: {} as never, sort: {} as never, formato: 'A4', incluirXml: true }, sink);
    const ms = performance.now() - t0;
    clearInterval(sampler);
    const k = `zip${count}`;
    if (!measureLive) {
      results[`${k}Entries`] = zip.entries;
      results[`${k}Ms`] = Math.round(ms);
      results[`${k}ReceiptsPerSec`] = Math.round(count / (ms / 1000));
      results[`${k}Mb`] = Math.round((bytes / 1e6) * 10) / 10;
      results[`${k}PeakRssMb`] = Math.round(peakRss / 1e6);
      results[`${k}PeakHeapMb`] = Math.round(peakHeap / 1e6);
    } else {
      results[`${k}MaxLiveHeapMb`] = Math.round(liveHeap / 1e6);
    }
  }
  for (const [name, value] of Object.entries(results)) console.log(`${name.padEnd(30)} ${value}`);
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runCfeDocumentsBench();
}
