/**
 * - `usage_maintenance` (crontab, daily 03:17): creates the raw-event partitions of the coming months,
 *   drops those past USAGE_RAW_RETENTION_DAYS (rollups stay) and prunes dedup keys past USAGE_DEDUP_DAYS.
 * - `usage_compact` (crontab, every minute): folds the rollup slots of hours that ended more than an
 *   hour ago into slot 0 (usage.tables.ts), in slices of 50,000 rows.
 */
import { z } from 'zod';
import type { Db } from '../../platform/db/client.js';
import { defineJob, handleJob, type JobHandler } from '../../platform/jobs/queue.js';
import { foldSlots, maintain } from './ingestion.repository.js';

export const maintenanceJob = defineJob({ name: 'usage_maintenance', payload: z.object({}).passthrough() });
export const compactJob = defineJob({ name: 'usage_compact', payload: z.object({}).passthrough() });
export const usageCrontab = [
  `17 3 * * * ${maintenanceJob.name} ?max=1&jobKey=${maintenanceJob.name}`,
  `* * * * * ${compactJob.name} ?max=1&jobKey=${compactJob.name}`,
];

const HOUR_MS = 3_600_000;
/** Hours that ended more than an hour ago are cold: late events there are rare. */
export const foldBefore = (now = new Date()) => new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - HOUR_MS);

export function usageJobHandlers(db: Db, settings: { dedupDays: number; rawRetentionDays: number }): JobHandler[] {
  return [
    handleJob(maintenanceJob, async (_payload, ctx) => {
      const r = await maintain(db, settings);
      ctx.logger.info(r, 'usage maintenance');
    }),
    handleJob(compactJob, async (_payload, ctx) => {
      let folded = 0;
      for (let n = await foldSlots(db, foldBefore()); n > 0; n = await foldSlots(db, foldBefore())) folded += n;
      if (folded) ctx.logger.info({ folded }, 'usage rollup slots folded');
    }),
  ];
}
