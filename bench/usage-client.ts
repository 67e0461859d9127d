/**
 * The usage-ingestion load generator, in its own worker thread (plain JavaScript, no TypeScript
 * loader there): `clients` closed loops over keep-alive HTTP, each sending batches of `batchSize`
 * events of which `repeatPct` % are exact repeats of events it sent before (a client retrying), the
 * rest new ids. Reports batch latencies, outcomes and how many distinct ids were sent.
 */
import { openWorkerPhases } from './load.js';

export interface UsageLoadResult {
  seconds: number; batches: number; non200: number; errors: number; sampleError: string;
  aceptados: number; duplicados: number; conflictos: number; rechazados: number; uniqueSent: number; eventsSent: number;
  latencyMs: { p50: number; p99: number; max: number }; cpuMs: number;
  /** Per second of the run (by the second a batch ended in): batches and their p99, to tell steady latency from spikes. */
  perSecond: Array<{ batches: number; p99: number }>;
}

const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const fs = require('node:fs');
const { url, token, clients, batchSize, repeatPct, contracts, regions } = workerData;
const u = new URL(url);
const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
const cpu = () => { try { const f = fs.readFileSync('/proc/thread-self/stat', 'latin1'); const s = f.slice(f.lastIndexOf(')') + 2).split(' '); return (Number(s[11]) + Number(s[12])) * 10; } catch { return 0; } };
let tid = 0; try { tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop()); } catch {}
const sent = Array.from({ length: clients }, () => []);
let seq = 0;
function post(body) {
  return new Promise((resolve) => {
    const req = http.request({ agent, host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', (e) => resolve({ status: 0, text: String(e) }));
    req.end(body);
  });
}
parentPort.on('message', async ({ seconds }) => {
  const r = { batches: 0, non200: 0, errors: 0, sampleError: '', aceptados: 0, duplicados: 0, conflictos: 0, rechazados: 0, uniqueSent: 0, eventsSent: 0 };
  const lat = [];
  const bySecond = [];
  const cpu0 = cpu();
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(seconds * 1e9));
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    const mine = sent[c];
    while (process.hrtime.bigint() < deadline) {
      const events = [];
      const repeats = mine.length ? Math.round(batchSize * repeatPct / 100) : 0;
      for (let i = 0; i < repeats; i++) events.push(mine[Math.floor(Math.random() * mine.length)]);
      const now = Date.now();
      for (let i = repeats; i < batchSize; i++) {
        const e = { idTransaccion: 'b' + c + '-' + (++seq), idContrato: contracts[Math.floor(Math.random() * contracts.length)], metrica: 'calls',
          fechaHora: new Date(now - Math.floor(Math.random() * 3600000)).toISOString(), propiedades: { region: regions[seq % regions.length], bytes: String(seq % 1000) } };
        events.push(e); mine.push(e); r.uniqueSent++;
      }
      r.eventsSent += events.length;
      const t0 = process.hrtime.bigint();
      const res = await post(JSON.stringify({ eventos: events }));
      const t1 = process.hrtime.bigint();
      const ms = Number(t1 - t0) / 1e6;
      lat.push(ms);
      const sec = Number((t1 - start) / 1000000000n);
      (bySecond[sec] = bySecond[sec] || []).push(ms);
      r.batches++;
      if (res.status === 0) { r.errors++; r.sampleError = res.text; continue; }
      if (res.status !== 200) { r.non200++; r.sampleError = res.text.slice(0, 300); }
      try { const b = JSON.parse(res.text); r.aceptados += b.aceptados || 0; r.duplicados += b.duplicados || 0; r.conflictos += b.conflictos || 0; r.rechazados += b.rechazados || 0; } catch {}
    }
  }));
  lat.sort((a, b) => a - b);
  const at = (q) => lat.length ? Math.round(lat[Math.min(lat.length - 1, Math.floor(q * lat.length))] * 10) / 10 : 0;
  const perSecond = Array.from(bySecond, (xs) => { xs = (xs || []).sort((a, b) => a - b); return { batches: xs.length, p99: xs.length ? Math.round(xs[Math.min(xs.length - 1, Math.floor(0.99 * xs.length))]) : 0 }; });
  parentPort.postMessage({ ...r, perSecond, seconds: Number(process.hrtime.bigint() - start) / 1e9, latencyMs: { p50: at(0.5), p99: at(0.99), max: at(1) }, cpuMs: cpu() - cpu0 });
});
parentPort.postMessage({ tid });
`;

export interface UsageLoad { tid: number; run(seconds: number): Promise<UsageLoadResult>; close(): Promise<void> }

export function openUsageLoad(data: { url: string; token: string; clients: number; batchSize: number; repeatPct: number; contracts: number[]; regions: string[] }): Promise<UsageLoad> {
  return openWorkerPhases<UsageLoadResult>(SOURCE, data);
}
