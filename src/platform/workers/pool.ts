/**
 * A small pool of worker threads for CPU-bound pure work (the CFE sealing of issue 5: RSA
 * signature, XSD validation, QR), so the API's event loop keeps serving HTTP and the database
 * while another core signs.
 *
 * Each task goes to the worker with the fewest tasks in flight; answers are matched by id. A
 * worker that dies fails its own in-flight tasks (the caller sees the error, no task is lost
 * silently or run twice) and is replaced on the next task. Workers start lazily on first use and
 * are unref'ed, so an idle pool never keeps the process alive.
 */
import { parentPort, receiveMessageOnPort, Worker } from 'node:worker_threads';

/**
 * Sent to the worker: `{ id, task }`. Expected back: `{ id, ok: true, value }` or
 * `{ id, ok: false, error }`, or an array of those (serveWorkerBatches answers a batch at once).
 */
export interface PoolMessage<T> {
  id: number;
  task: T;
}
export type PoolReply<R> = { id: number; ok: true; value: R } | { id: number; ok: false; error: { name: string; message: string; data?: unknown } };

export interface WorkerPool<T, R> {
  readonly size: number;
  run(task: T): Promise<R>;
  close(): Promise<void>;
}

interface Slot {
  worker?: Worker;
  pending: Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>;
}

/** Error thrown by the task inside the worker, with its name, message and optional data preserved. */
export class WorkerTaskError extends Error {
  constructor(name: string, message: string, readonly data?: unknown) {
    super(message);
    this.name = name;
  }
}

const BOOT = new URL('./boot.mjs', import.meta.url);

/**
 * A worker entry next to `base` (import.meta.url): the `.ts` file when running under tsx, the
 * `.js` file of the production build (dist/, scripts/build.mjs; issue 44 point 6).
 */
export function workerEntry(specifier: string, base: string): URL {
  return new URL(base.endsWith('.ts') ? specifier : specifier.replace(/\.ts$/, '.js'), base);
}

/**
 * V8 limits of our worker threads (the seal pool, the in-process DGI simulator). V8's default young
 * generation (two 16 MB semi-spaces) stays committed in a thread that has gone idle: no GC runs
 * there to shrink it, so each thread kept ~32 MB resident after the load (issue 29 point 5). 16 MB
 * of young generation (8 MB semi-spaces, /proc/pid/smaps and process.memoryUsage in each thread)
 * cost no measurable scavenge time per receipt in the lifecycle bench (`--trace-gc`: ~0.13 ms of
 * scavenge pauses per receipt in the two threads together, as with the default); 8 MB doubled it.
 */
export const WORKER_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 16 } as const;

/**
 * `entry` is the worker module (TypeScript is fine: boot.mjs registers tsx in the thread first,
 * because a loader registered by the tsx CLI in the main thread does not reach worker threads).
 */
export function createWorkerPool<T, R>(opts: { entry: URL; size: number; name: string }): WorkerPool<T, R> {
  const slots: Slot[] = Array.from({ length: Math.max(1, opts.size) }, () => ({ pending: new Map() }));
  let nextId = 1;
  let closed = false;

  function failAll(slot: Slot, err: unknown) {
    const pending = [...slot.pending.values()];
    slot.pending.clear();
    slot.worker = undefined;
    for (const p of pending) p.reject(err);
  }

  function start(slot: Slot): Worker {
    const worker = new Worker(BOOT, { workerData: { entry: opts.entry.href, threadName: opts.name }, name: opts.name, resourceLimits: WORKER_RESOURCE_LIMITS });
    worker.unref();
    worker.on('message', (replies: PoolReply<R> | PoolReply<R>[]) => {
      for (const reply of Array.isArray(replies) ? replies : [replies]) {
        const p = slot.pending.get(reply.id);
        if (!p) continue;
        slot.pending.delete(reply.id);
        if (reply.ok) p.resolve(reply.value);
        else p.reject(new WorkerTaskError(reply.error.name, reply.error.message, reply.error.data));
      }
      if (slot.pending.size === 0) worker.unref();
    });
    worker.on('error', (err) => {
      if (slot.worker === worker) failAll(slot, err);
    });
    worker.on('exit', (code) => {
      if (slot.worker === worker) failAll(slot, new Error(`${opts.name} worker exited with code ${code}`));
    });
    slot.worker = worker;
    return worker;
  }

  return {
    size: slots.length,
    run(task: T): Promise<R> {
      if (closed) return Promise.reject(new Error(`${opts.name} pool is closed`));
      let slot = slots[0];
      for (const s of slots) if (s.pending.size < slot.pending.size) slot = s;
      const worker = slot.worker ?? start(slot);
      const id = nextId++;
      return new Promise<R>((resolve, reject) => {
        slot.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        // Keep the process alive while a task is in flight (a caller awaits it).
        if (slot.pending.size === 1) worker.ref();
        worker.postMessage({ id, task } satisfies PoolMessage<T>);
      });
    },
    async close() {
      closed = true;
      await Promise.all(slots.map(async (s) => {
        const w = s.worker;
        if (!w) return;
        failAll(s, new Error(`${opts.name} pool closed`));
        await w.terminate();
      }));
    },
  };
}

type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

function replyOf<R>(id: number, settled: Settled<R>): PoolReply<R> {
  if (settled.ok) return { id, ok: true, value: settled.value };
  const e = settled.error instanceof Error ? settled.error : new Error(String(settled.error));
  return { id, ok: false, error: { name: e.name, message: e.message, data: (e as { data?: unknown }).data } };
}

function workerPort() {
  if (!parentPort) throw new Error('serveWorkerTasks must run in a worker thread');
  return parentPort;
}

/**
 * The worker side: answers each `{ id, task }` with the handler's value, or with the error's name,
 * message and `data` (so the caller can rebuild its own error types).
 */
export function serveWorkerTasks<T, R>(handler: (task: T) => R | Promise<R>): void {
  const port = workerPort();
  port.on('message', async (msg: PoolMessage<T>) => {
    let settled: Settled<R>;
    try {
      settled = { ok: true, value: await handler(msg.task) };
    } catch (err) {
      settled = { ok: false, error: err };
    }
    port.postMessage(replyOf(msg.id, settled));
  });
}

/**
 * The worker side for a handler that does a batch cheaper than its tasks one by one: on each
 * message it also takes the tasks already queued behind it (up to `maxBatch`), so a busy worker
 * works in batches and an idle one answers a lone task at once, with no added wait. One reply
 * message carries the whole batch's answers, each task settled on its own.
 */
export function serveWorkerBatches<T, R>(handler: (tasks: T[]) => Settled<R>[], opts: { maxBatch: number }): void {
  const port = workerPort();
  port.on('message', (first: PoolMessage<T>) => {
    const batch = [first];
    for (let next; batch.length < opts.maxBatch && (next = receiveMessageOnPort(port)); ) batch.push(next.message as PoolMessage<T>);
    let results: Settled<R>[];
    try {
      results = handler(batch.map((m) => m.task));
    } catch (err) {
      results = batch.map(() => ({ ok: false, error: err }));
    }
    port.postMessage(batch.map((m, i) => replyOf(m.id, results[i])));
  });
}
