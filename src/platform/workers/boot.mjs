// Worker-thread bootstrap (pool.ts): the tsx loader the CLI registers in the main thread does not
// reach worker threads, so register it here, then load the TypeScript entry module.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
