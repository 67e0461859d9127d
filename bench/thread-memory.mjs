// Lifecycle bench `--thread-memory`: imported into the service with `--import`, which worker threads
// inherit, so it runs in the main thread and in each worker thread (seal pool, DGI simulator). Every
// second each thread writes its V8 heap and WebAssembly memory (libxml2's, tsx's lexer) into
// $BENCH_THREAD_MEMORY_DIR/<pid>-<thread>.json, read by bench/memory.ts. When the bench writes a
// number into $BENCH_THREAD_MEMORY_DIR/gc, each thread first runs a full GC (what it keeps alive, not
// garbage its idle isolate has no reason to collect). Diagnostic only: `gc` is reached the way Node's
// docs warn against for production (the --expose-gc flag set at run time, then a fresh context).
import fs from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { isMainThread, threadId, workerData } from 'node:worker_threads';

const dir = process.env.BENCH_THREAD_MEMORY_DIR;
if (dir) {
  const memories = [];
  const keep = (instance) => { for (const v of Object.values(instance.exports)) if (v instanceof WebAssembly.Memory) memories.push(v); };
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = async function (...args) {
    const r = await instantiate.apply(this, args);
    keep(r.instance ?? r);
    return r;
  };
  const entry = typeof workerData?.entry === 'string' ? workerData.entry.split('/').pop().replace(/\.ts$/, '') : undefined;
  const thread = isMainThread ? 'main' : `${entry ?? 'thread'}#${threadId}`;
  const mb = (n) => Math.round(n / 104_857.6) / 10;
  let gcDone = '';
  setInterval(() => {
    let gcRequest = '';
    try { gcRequest = fs.readFileSync(`${dir}/gc`, 'utf8'); } catch { /* none requested */ }
    if (gcRequest && gcRequest !== gcDone) {
      v8.setFlagsFromString('--expose-gc');
      vm.runInNewContext('gc')();
      gcDone = gcRequest;
    }
    const h = v8.getHeapStatistics();
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    const figures = { thread, heapTotalMb: mb(h.total_heap_size), heapUsedMb: mb(h.used_heap_size), newSpaceMb: mb(young?.space_size ?? 0), wasmMb: mb(memories.reduce((a, m) => a + m.buffer.byteLength, 0)), gc: gcDone };
    const file = `${dir}/${process.pid}-${thread}.json`;
    try {
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(figures));
      fs.renameSync(`${file}.tmp`, file); // the bench never reads half a file
    } catch { /* the bench removed the directory */ }
  }, 1000).unref();
}
