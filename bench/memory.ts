/**
 * Where a service process's resident memory goes (issue 29 point 5), for the lifecycle bench.
 * `rssByKind` reads /proc/<pid>/smaps (Linux; empty elsewhere): glibc's main malloc heap (`[heap]`:
 * native buffers, freed but seldom returned), glibc's thread arenas (64 MB-aligned anonymous
 * mappings), the node binary and other files, and the remaining anonymous memory (V8 heaps of every
 * thread, WebAssembly memories, JIT code). `threadHeaps` reads what bench/thread-memory.mjs wrote
 * from inside each thread of the service: V8 heap committed/used and WebAssembly memory per thread.
 */
import fs from 'node:fs';
import path from 'node:path';

const MB = 1024;
const ARENA = 64 * 1024 * 1024;

export function rssByKind(pid: number): Record<string, number> {
  let text: string;
  try { text = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8'); } catch { return {}; }
  const out: Record<string, number> = {};
  let key = '';
  let start = 0;
  let size = 0;
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      start = parseInt(m[1], 16);
      size = parseInt(m[2], 16) - start;
      const name = m[4];
      key = name === '[heap]' ? 'malloc heap' : name.startsWith('[') ? 'other' : name.endsWith('/node') ? 'node binary' : name ? 'files' : start % ARENA === 0 && size <= ARENA && m[3] === 'rw-p' ? 'malloc arenas' : 'V8/wasm/JIT';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) out[key] = (out[key] ?? 0) + Number(rss[1]);
  }
  return Object.fromEntries(Object.entries(out).map(([k, kb]) => [k, Math.round(kb / MB)]));
}

export interface ThreadHeap { thread: string; heapTotalMb: number; heapUsedMb: number; newSpaceMb: number; wasmMb: number; gc: string }

export function threadHeaps(dir: string, pid: number): ThreadHeap[] {
  let files: string[] = [];
  try { files = fs.readdirSync(dir).filter((f) => f.startsWith(`${pid}-`) && f.endsWith('.json')); } catch { return []; }
  return files.map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as ThreadHeap).sort((a, b) => a.thread.localeCompare(b.thread));
}

/** Asks every thread for a full GC (bench/thread-memory.mjs) and resolves once each has answered (or after 10 s). */
export async function collectEverywhere(dir: string, pid: number): Promise<void> {
  const id = String(Date.now());
  fs.writeFileSync(path.join(dir, 'gc'), id);
  const threads = threadHeaps(dir, pid).length;
  for (let waited = 0; waited < 10_000; waited += 250) {
    await new Promise((r) => setTimeout(r, 250));
    if (threadHeaps(dir, pid).filter((t) => t.gc === id).length >= threads) return;
  }
}

export const formatKinds = (k: Record<string, number>) => Object.entries(k).sort((a, b) => b[1] - a[1]).map(([n, mb]) => `${n} ${mb}`).join(', ');
export const formatThreads = (t: ThreadHeap[]) => t.map((h) => `${h.thread} ${h.heapUsedMb}/${h.heapTotalMb} (new space ${h.newSpaceMb}, wasm ${h.wasmMb})`).join('; ');
