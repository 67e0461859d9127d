import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createWorkerPool, WorkerTaskError } from './pool.js';

type Task = { op: 'echo' | 'throw' | 'exit'; value?: number };
const pool = createWorkerPool<Task, number>({ entry: new URL('./pool.test-worker.ts', import.meta.url), size: 2, name: 'pool-test' });
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

  it('refuses work once closed', async () => {
    const other = createWorkerPool<Task, number>({ entry: new URL('./pool.test-worker.ts', import.meta.url), size: 1, name: 'pool-test-2' });
    assert.equal(await other.run({ op: 'echo', value: 1 }), 2);
    await other.close();
    await assert.rejects(other.run({ op: 'echo', value: 1 }), /closed/);
  });
});
