// Batch worker entry for pool.test.ts: each answer is the task's value doubled plus 1000 times the
// size of the batch it was served in; a negative value fails alone.
import { serveWorkerBatches } from './pool.js';

serveWorkerBatches<{ value: number }, number>(
  (tasks) => tasks.map((t) => (t.value < 0 ? { ok: false, error: Object.assign(new Error('negative'), { name: 'Negative' }) } : { ok: true, value: t.value * 2 + 1000 * tasks.length })),
  { maxBatch: 4 },
);
