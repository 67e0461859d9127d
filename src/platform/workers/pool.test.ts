import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import { createWorkerPool, WorkerTaskError } from './pool.js';

type Task = { op: 'echo' | 'throw' | 'exit' | 'name'; value?: number };
const pool = createWorkerPool<Task, number | string>({ entry: new URL('./pool.test-worker.ts', import.meta.url), size: 2, name: 'pool-test' });
after(() => pool.close());

describe('worker pool', () => {
  it('runs TypeScript tasks on worker threads and matches answers to tasks', async () => {
    const values = await Promise.all(Array.from({ length: 50 }, (_, i) => pool.run({ op: 'echo', value: i })));
    assert.deepEqual(values, Array.from({ length: 50 }, (_, i) => i * 2));
  });

  it('rebuilds a task error with its name, message and data', async () => {
    await assert.rejects(pool.run({ op: 'throw', value: 7 }), (err: unknown) => {
      assert.ok(err instanceof WorkerTaskError);
      assert.equal(err.name, 'BadInput');
      assert.equal(err.message, 'bad input');
      assert.deepEqual(err.data, { value: 7 });
      return true;
    });
  });

  it('a dying worker fails its own tasks and is replaced for the next ones', async () => {
    await assert.rejects(pool.run({ op: 'exit' }), /exited with code 3/);
    assert.equal(await pool.run({ op: 'echo', value: 21 }), 42);
  });

  it('its threads carry the pool name where the OS shows thread names (top -H, ps -L, the lifecycle bench)', { skip: !fs.existsSync('/proc/thread-self/comm') && 'no /proc/thread-self' }, async () => {
    assert.equal(await pool.run({ op: 'name' }), 'pool-test');
  });

  it('refuses work once closed', async () => {
    const other = createWorkerPool<Task, number | string>({ entry: new URL('./pool.test-worker.ts', import.meta.url), size: 1, name: 'pool-test-2' });
    assert.equal(await other.run({ op: 'echo', value: 1 }), 2);
    await other.close();
    await assert.rejects(other.run({ op: 'echo', value: 1 }), /closed/);
  });

  it('a batch worker serves the tasks queued behind one together, up to its maximum, each settled on its own', async () => {
    const batched = createWorkerPool<{ value: number }, number>({ entry: new URL('./pool.test-batch-worker.ts', import.meta.url), size: 1, name: 'pool-test-batch' });
    try {
      // A lone task is answered at once, in a batch of one.
      assert.equal(await batched.run({ value: 1 }), 1002);
      // Whether tasks queue behind one depends on thread scheduling (a loaded machine may let the worker
      // drain each message before the next is posted), so bursts are repeated until one batches.
      const seen: number[][] = [];
      for (let burst = 0; burst < 10 && !seen.some((sizes) => sizes.some((n) => n > 1)); burst++) {
        const settled = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => batched.run({ value: i === 5 ? -1 : i })));
        const sizes = settled.map((s, i) => (s.status === 'fulfilled' ? Math.floor((s.value - 2 * i) / 1000) : 0));
        settled.forEach((s, i) => {
          if (i === 5) assert.ok(s.status === 'rejected' && s.reason instanceof WorkerTaskError && s.reason.name === 'Negative');
          else assert.ok(s.status === 'fulfilled' && (s.value - 2 * i) % 1000 === 0, `task ${i}`);
        });
        assert.ok(sizes.every((n) => n <= 4), `no batch above the maximum: ${sizes}`);
        seen.push(sizes);
      }
      assert.ok(seen.some((sizes) => sizes.some((n) => n > 1)), `tasks queued together were batched: ${seen.join(' | ')}`);
    } finally {
      await batched.close();
    }
  });
});
