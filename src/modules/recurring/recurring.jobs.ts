/**
 * Jobs of recurring plans (issue 32 point 3).
 * - `recurring_tick` (crontab, every minute; also queued by queueTick): resumes
 *   plans whose pause ended, claims due runs and issues them (recurring.scheduler.ts). Any number
 *   of workers may run it at once: plans are locked SKIP LOCKED, runs are leased, and each run's
 *   key is the emission's Idempotency-Key, so a period never gets a second CFE.
 */
import { z } from 'zod';
import type { DbOrTx } from '../../platform/db/client.js';
import { defineJob, enqueueJob, handleJob, type JobHandler } from '../../platform/jobs/queue.js';
import type { RecurringService } from './recurring.service.js';
import type { Scheduler } from './recurring.scheduler.js';

export const tickJob = defineJob({ name: 'recurring_tick', payload: z.object({}).passthrough(), maxAttempts: 2 });
// fill: a worker starting after downtime runs one pass at once for the ticks it missed (up to 10 min back; one job, same key), not at the next minute.
// max=2: a tick whose worker was killed runs again as soon as the fleet sweep unlocks it (issue 45), not at the next minute.
export const recurringCrontab = `* * * * * ${tickJob.name} ?max=2&jobKey=${tickJob.name}&fill=10m`;

/**
 * Queues a scheduler pass without waiting for the minute tick. Now: under the cron's job key, so a
 * burst of activations coalesces into one pending pass (issue 41 point 3; call it in the transaction
 * of the change: the pass sees it committed). At `at`: the retake of runs whose lease expires then
 * (a crashed worker's; issue 41 point 2), under its own key, which each lease renewal pushes later.
 */
export async function queueTick(db: DbOrTx, at?: Date): Promise<void> {
  await enqueueJob(db, tickJob, {}, at ? { runAt: at, jobKey: `${tickJob.name}_retake` } : { jobKey: tickJob.name });
}

export function recurringJobHandlers(service: RecurringService, scheduler: Scheduler, now: () => Date): JobHandler[] {
  return [
    handleJob(tickJob, async (_payload, ctx) => {
      const at = now();
      const resumed = await service.resumeDue(at);
      const { plans, runs } = await scheduler.tick(at);
      if (resumed || plans || runs) ctx.logger.info({ resumed, plans, runs }, 'recurring plans run');
    }),
  ];
}
