/**
 * `dgiTesting.run` {id, dryRun}: runs a stored testing-set run (POST /api/v1/dgi/testing). One
 * attempt: a set is never issued twice behind the operator's back; a failure ends the run as `error`.
 */
import { z } from 'zod';
import { defineJob, handleJob, type JobHandler } from '../../platform/jobs/queue.js';

export const runDgiTestingJob = defineJob({ name: 'dgiTesting.run', payload: z.object({ id: z.number().int(), dryRun: z.boolean() }), maxAttempts: 1 });

export function dgiTestingJobHandlers(execute: (id: number, opts: { dryRun: boolean }) => Promise<unknown>): JobHandler[] {
  return [handleJob(runDgiTestingJob, async ({ id, dryRun }) => void (await execute(id, { dryRun })))];
}
