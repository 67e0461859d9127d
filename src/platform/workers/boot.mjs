// Worker-thread bootstrap (pool.ts): the tsx loader the CLI registers in the main thread does not
// reach worker threads, so register it here, then the hook that keeps dependencies out of tsx's
// transform (platform/loader: ~165 MB per worker for libxml2-wasm alone otherwise). Registered
// here and not by importing ../loader/register.mjs: a worker inherits the process's --import
// flags, so that module may already be loaded in this thread, before tsx's register() below,
// whose hooks would then run first. Then the TypeScript entry module.
// In the production build (dist/, issue 44 point 6) the entry is JavaScript: no loader at all.
// First the thread takes its name as the OS shows it (Linux: /proc/thread-self/comm, 15 bytes at
// most), so `top -H`, `ps -L`, perf and the lifecycle bench tell the seal workers and the simulated
// DGI apart: Node names every thread `node`. Elsewhere the file is missing and nothing changes.
import { writeFileSync } from 'node:fs';
import { register as registerHooks } from 'node:module';
import { workerData } from 'node:worker_threads';

if (workerData.threadName) {
  try {
    writeFileSync('/proc/thread-self/comm', workerData.threadName.slice(0, 15));
  } catch {
    // not Linux, or /proc not mounted
  }
}

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
  registerHooks('../loader/node-modules-hooks.mjs', import.meta.url);
}
await import(workerData.entry);
