/**
 * PDF throughput on one core (STACK.md 4e): a typical 10-line e-Ticket rendered as A4 and as an
 * 80 mm ticket, each run with a fresh QR (new Nro, so the QR cache never hits), plus A4 with a
 * logo and a 300-line A4. Rates are per CPU-second of this process (one core) and per wall-clock
 * second. Run: `npx tsx bench/pdf.ts`.
 */
import { pathToFileURL } from 'node:url';
import { deflateSync } from 'node:zlib';
import { sampleCfe } from '../src/modules/emission/sample-cfes.ts';
import { renderCfePdf } from '../src/modules/documents/pdf/render.ts';
import type { CfePdfInput, PdfFormato } from '../src/modules/documents/pdf/view.ts';

const digestValue = 'dpmLMfgpd/WbZvORW8oErIkY+DtbsUHnh2gnmZyu5HY=';

/** A 200×60 opaque RGB PNG built by hand (no encoder dependency). */
function sampleLogo(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const [w, h] = [200, 60];
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y += 1) for (let x = 0; x < w; x += 1) raw.set([(x * 255) / w, 80, (y * 255) / h], y * (w * 3 + 1) + 1 + x * 3);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * Documents per second of CPU time (user + system of this process), so that a busy shared machine
 * does not skew the figure; the wall-clock rate is reported beside it.
 */
async function perSecond(fn: (i: number) => Promise<unknown>, seconds = 3): Promise<{ cpu: number; wall: number }> {
  for (let i = 0; i < 30; i += 1) await fn(i); // warm-up
  const start = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const deadline = start + BigInt(Math.round(seconds * 1e9));
  let n = 0;
  while (process.hrtime.bigint() < deadline) await fn(1000 + n++);
  const cpu = process.cpuUsage(cpu0);
  return {
    cpu: Math.round(n / ((cpu.user + cpu.system) / 1e6)),
    wall: Math.round(n / (Number(process.hrtime.bigint() - start) / 1e9)),
  };
}

export async function runPdfBench(): Promise<Record<string, number>> {
  const ticket = sampleCfe(101, { lines: 10 });
  const long = sampleCfe(101, { lines: 300 });
  const logo = sampleLogo();
  const input = (cfe: typeof ticket, i: number, extra: Partial<CfePdfInput> = {}): CfePdfInput => ({
    cfe: { ...cfe, IdDoc: { ...cfe.IdDoc, Nro: i + 1 } },
    digestValue,
    sitioWebVerificacion: 'www.demo.com.uy/cfe',
    resolucion: { numero: '798', fecha: '2012-06-01' },
    ...extra,
  });
  const run = (cfe: typeof ticket, formato: PdfFormato, extra?: Partial<CfePdfInput>) => (i: number) => renderCfePdf(input(cfe, i, extra), { formato });

  const results: Record<string, number> = {};
  const measure = async (name: string, fn: (i: number) => Promise<unknown>, seconds?: number) => {
    const r = await perSecond(fn, seconds);
    results[`${name}PerCpuSec`] = r.cpu;
    results[`${name}PerSecWall`] = r.wall;
  };
  await measure('a4Pdfs', run(ticket, 'A4'));
  await measure('ticketPdfs', run(ticket, 'ticket80'));
  await measure('a4WithLogoPdfs', run(ticket, 'A4', { logo }));
  await measure('a4Lines300Pdfs', run(long, 'A4'), 2);
  results.a4Bytes = (await run(ticket, 'A4')(1)).length;
  results.ticketBytes = (await run(ticket, 'ticket80')(1)).length;
  for (const [name, value] of Object.entries(results)) console.log(`${name.padEnd(26)} ${value}`);
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runPdfBench();
}
