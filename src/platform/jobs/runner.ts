/**
 * Runs registered jobs and cron entries. The same code serves `npm run worker` and, in the
 * embedded default, the API process itself.
 */
import { EventEmitter } from 'node:events';
import { Logger as WorkerLogger, run, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import type pg from 'pg';
import { AppError } from '../../lib/errors.js';
import type { Logger } from '../logger.js';
import type { JobHandler } from './queue.js';

export interface JobRunner {
  /** graphile-worker's pool id: `locked_by` of the jobs this runner holds (the fleet sweep unlocks them if it dies). */
  poolId: string;
  stop(): Promise<void>;
}

export async function startJobRunner(opts: { pool: pg.Pool; jobs: JobHandler[]; cron?: string[]; concurrency: number; logger: Logger }): Promise<JobRunner> {
  const { logger } = opts;
  const taskList: TaskList = {};
  for (const { job, handle } of opts.jobs) {
    taskList[job.name] = async (raw, helpers) => {
      const payload = job.payload.parse(raw);
      const ctx = { logger: logger.child({ job: job.name, jobId: helpers.job.id }), attempt: helpers.job.attempts, maxAttempts: helpers.job.max_attempts };
      try {
        await handle(payload, ctx);
      } catch (err) {
        // Permanent domain failures are logged and dropped; everything else is retried by the queue.
        if (err instanceof AppError && !err.retryable) {
          ctx.logger.warn({ code: err.code, err: err.message }, 'job failed permanently');
          return;
        }
        throw err;
      }
    };
  }
  const workerLogger = new WorkerLogger(() => (level, message, meta) => {
    const lvl = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
    logger[lvl]({ worker: meta }, message);
  });
  const events: WorkerEvents = new EventEmitter();
  let poolId = '';
  events.on('pool:create', ({ workerPool }) => (poolId = workerPool.id));
  const runner: Runner = await run({
    events,
    pgPool: opts.pool,
    concurrency: opts.concurrency,
    taskList,
    crontab: (opts.cron ?? []).join('\n'),
    noHandleSignals: true,
    pollInterval: 1000,
    logger: workerLogger,
  });
  logger.info({ jobs: opts.jobs.map((j) => j.job.name), concurrency: opts.concurrency }, 'job runner started');
  return {
    poolId,
    async stop() {
      await runner.stop();
    },
  };
}
