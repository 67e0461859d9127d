// Worker entry for pool.test.ts: echoes, throws a named error with data, or kills its thread.
import { serveWorkerTasks } from './pool.js';

serveWorkerTasks<{ op: 'echo' | 'throw' | 'exit'; value?: number }, number>((t) => {
  if (t.op === 'throw') throw Object.assign(new Error('bad input'), { name: 'BadInput', data: { value: t.value } });
  if (t.op === 'exit') process.exit(3);
  return (t.value ?? 0) * 2;
});
