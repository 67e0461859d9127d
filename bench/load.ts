/**
 * A lean closed-loop HTTP/1.1 load generator for the benches, in its own worker thread.
 *
 * Why not autocannon: on this 2-core machine the load generator shares the cores with the service
 * it measures (issue 5 point 11: "load generator included"). autocannon spent 0.78 ms of CPU per
 * request here (21 % of a core at 275 req/s), as much as the RSA signature itself; this client
 * writes one pre-built request buffer per round trip and reads the response by Content-Length,
 * like wrk does, so the figures measure the service rather than the client.
 *
 * Each of `connections` keep-alive sockets sends a request, waits for the whole response, records
 * its latency and sends the next one until `seconds` have passed (no pipelining, no coordinated-
 * omission correction: the same model as autocannon and wrk). A response it cannot parse, a closed
 * socket or a status outside 2xx is counted and reported, never hidden.
 */
import { Worker } from 'node:worker_threads';

export interface LoadRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Bodies handed out round-robin to the connections (connection i sends bodies[i % n]); overrides `body`. */
  bodies?: string[];
}

export interface LoadResult {
  seconds: number;
  total: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; average: number };
  /** p99 latency (ms) of the responses received in each second of the run: shows whether a tail is spread or a stall. */
  p99PerSecond: number[];
  /** CPU time the load generator's own thread used (Linux /proc/thread-self; 0 elsewhere). */
  cpuMs: number;
  /** One response body of each non-2xx status seen (first 300 characters), to explain failures. */
  sampleErrors: Record<string, string>;
}

// Plain JavaScript for the worker: no TypeScript loader in the thread that generates the load.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');
const fs = require('node:fs');
function threadCpuMs() {
  try {
    const s = fs.readFileSync('/proc/thread-self/stat', 'latin1');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch { return 0; }
}
const { url, method, headers, body, bodies, connections } = workerData;
const u = new URL(url);
function build(text) {
  const bodyBuf = text ? Buffer.from(text) : Buffer.alloc(0);
  let head = method + ' ' + u.pathname + u.search + ' HTTP/1.1\\r\\nhost: ' + u.host + '\\r\\nconnection: keep-alive\\r\\n';
  for (const [k, v] of Object.entries(headers)) head += k + ': ' + v + '\\r\\n';
  if (bodyBuf.length || method !== 'GET') head += 'content-length: ' + bodyBuf.length + '\\r\\n';
  return Buffer.concat([Buffer.from(head + '\\r\\n'), bodyBuf]);
}
const requests = (bodies && bodies.length ? bodies : [body]).map(build);
let latencies, receivedAt, ok2xx, non2xx, errors, open, sampleErrors, start, deadline, cpuStart;
// One phase per message ({ seconds }), answered with its figures; the thread's JIT stays warm
// from one phase to the next.
parentPort.on('message', ({ seconds }) => {
  latencies = []; receivedAt = []; ok2xx = 0; non2xx = 0; errors = 0; open = 0; sampleErrors = {};
  cpuStart = threadCpuMs();
  start = process.hrtime.bigint();
  deadline = start + BigInt(Math.round(seconds * 1e9));
  for (let i = 0; i < connections; i++) connect(i);
});
let tid = 0;
try { tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop()); } catch {}
parentPort.postMessage({ tid });
function finish() {
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  const bySecond = [];
  latencies.forEach((l, i) => (bySecond[Math.floor(receivedAt[i])] ??= []).push(l));
  const p99PerSecond = Array.from(bySecond, (a) => { if (!a) return 0; a.sort((x, y) => x - y); return Math.round(a[Math.min(a.length - 1, Math.floor(0.99 * a.length))]); });
  const sorted = Float64Array.from(latencies).sort();
  const at = (q) => sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 100) / 100 : 0;
  const average = sorted.length ? Math.round((sorted.reduce((a, b) => a + b, 0) / sorted.length) * 100) / 100 : 0;
  parentPort.postMessage({ cpuMs: threadCpuMs() - cpuStart, seconds: wall, p99PerSecond, total: ok2xx + non2xx, ok2xx, non2xx, errors, sampleErrors,
    latencyMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.length ? Math.round(sorted[sorted.length - 1] * 100) / 100 : 0, average } });
}
function connect(index) {
  const request = requests[index % requests.length];
  open++;
  const socket = net.connect({ host: u.hostname, port: Number(u.port), noDelay: true });
  let buf = Buffer.alloc(0);
  let sentAt = 0n;
  const send = () => { sentAt = process.hrtime.bigint(); socket.write(request); };
  const done = () => { open--; if (open === 0) finish(); };
  socket.on('connect', send);
  socket.on('error', () => { errors++; });
  socket.on('close', () => {
    if (process.hrtime.bigint() < deadline) { errors++; open--; connect(index); return; }
    done();
  });
  socket.on('data', (chunk) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    for (;;) {
      const end = buf.indexOf('\\r\\n\\r\\n');
      if (end < 0) return;
      const headText = buf.subarray(0, end).toString('latin1');
      const m = /\\r\\ncontent-length:\\s*(\\d+)/i.exec(headText);
      if (!m) { errors++; socket.destroy(); return; }
      const total = end + 4 + Number(m[1]);
      if (buf.length < total) return;
      const status = Number(headText.slice(9, 12));
      const now = process.hrtime.bigint();
      latencies.push(Number(now - sentAt) / 1e6);
      receivedAt.push(Number(now - start) / 1e9);
      if (status >= 200 && status < 300) ok2xx++;
      else { non2xx++; if (!(status in sampleErrors)) sampleErrors[status] = buf.subarray(end + 4, total).toString('utf8').slice(0, 300); }
      buf = buf.subarray(total);
      if (process.hrtime.bigint() < deadline) send();
      else { socket.end(); return; }
    }
  });
}
`;

/** A load generator thread: `run` one phase after another on the same warm thread, then `close`. */
export interface LoadGenerator {
  /** Linux thread id of the generator (0 elsewhere), so CPU accounting can tell it from the service's threads. */
  tid: number;
  run(seconds: number): Promise<LoadResult>;
  close(): Promise<void>;
}

/**
 * Starts the load generator thread. Warm-up and measured run go through the same thread: a new
 * thread per phase started cold, and its own JIT compiling (socket, parsing and bookkeeping code)
 * landed in the measured run, on the cores it shares with the service.
 */
export function openLoad(request: LoadRequest, opts: { connections: number }): Promise<LoadGenerator> {
  return openWorkerPhases<LoadResult>(WORKER_SOURCE, { ...request, ...opts });
}

/**
 * A worker thread (plain JavaScript `source`) that first posts `{ tid }`, then answers each
 * `{ seconds }` message with one result: the phases of a load generator on one warm thread.
 */
export function openWorkerPhases<R>(source: string, workerData: unknown): Promise<{ tid: number; run(seconds: number): Promise<R>; close(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData });
    worker.once('error', reject);
    worker.once('message', ({ tid }: { tid: number }) => {
      worker.off('error', reject);
      resolve({
        tid,
        run: (seconds) => new Promise((res, rej) => {
          worker.once('error', rej);
          worker.once('message', (m: R) => { worker.off('error', rej); res(m); });
          worker.postMessage({ seconds });
        }),
        close: () => worker.terminate().then(() => undefined),
      });
    });
  });
}
