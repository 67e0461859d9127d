/**
 * The job queue (graphile-worker, Postgres-backed). `enqueueJob` runs `graphile_worker.add_job`
 * on the caller's connection, so a job is enqueued in the same transaction as the change that
 * causes it and disappears with it on rollback.
 */
import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { DbOrTx } from '../db/client.js';
import type { Logger } from '../logger.js';

export interface JobContext {
  logger: Logger;
  attempt: number;
  maxAttempts: number;
}

/** A job's identity and payload contract; its handler is bound separately where deps exist. */
export interface JobDefinition<S extends z.ZodTypeAny = z.ZodTypeAny> {
  name: string;
  payload: S;
  /** Default maximum attempts (graphile-worker backs off exponentially between them). */
  maxAttempts?: number;
}

export interface JobHandler<S extends z.ZodTypeAny = z.ZodTypeAny> {
  job: JobDefinition<S>;
  handle(payload: z.infer<S>, ctx: JobContext): Promise<void>;
}

export function defineJob<S extends z.ZodTypeAny>(def: JobDefinition<S>): JobDefinition<S> {
  return def;
}

export function handleJob<S extends z.ZodTypeAny>(job: JobDefinition<S>, handle: JobHandler<S>['handle']): JobHandler {
  return { job, handle } as JobHandler;
}

export interface EnqueueOptions {
  runAt?: Date;
  maxAttempts?: number;
  /** Deduplication key: a pending job with the same key is replaced instead of added. */
  jobKey?: string;
  queueName?: string;
}

export async function enqueueJob<S extends z.ZodTypeAny>(db: DbOrTx, job: JobDefinition<S>, payload: z.infer<S>, opts: EnqueueOptions = {}): Promise<void> {
  const parsed = job.payload.parse(payload);
  await db.execute(sql`select graphile_worker.add_job(
    ${job.name}::text,
    ${JSON.stringify(parsed)}::json,
    queue_name => ${opts.queueName ?? null}::text,
    run_at => ${opts.runAt ? opts.runAt.toISOString() : null}::timestamptz,
    max_attempts => ${opts.maxAttempts ?? job.maxAttempts ?? 10}::int,
    job_key => ${opts.jobKey ?? null}::text
  )`);
}
