// Worker entry for pool.test.ts: echoes, throws a named error with data, kills its thread, or says its OS name.
import fs from 'node:fs';
import { serveWorkerTasks } from './pool.js';

serveWorkerTasks<{ op: 'echo' | 'throw' | 'exit' | 'name'; value?: number }, number | string>((t) => {
  if (t.op === 'name') return fs.readFileSync('/proc/thread-self/comm', 'utf8').trim();
  if (t.op === 'throw') throw Object.assign(new Error('bad input'), { name: 'BadInput', data: { value: t.value } });
  if (t.op === 'exit') process.exit(3);
  return (t.value ?? 0) * 2;
});
