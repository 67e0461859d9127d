/**
 * `usage_maintenance` (crontab, daily 03:17): creates the raw-event partitions of the coming months,
 * drops those past USAGE_RAW_RETENTION_DAYS (rollups stay) and prunes dedup keys past USAGE_DEDUP_DAYS.
 */
import { z } from 'zod';
import type { Db } from '../../platform/db/client.js';
import { defineJob, handleJob, type JobHandler } from '../../platform/jobs/queue.js';
import { maintain } from './ingestion.repository.js';

export const maintenanceJob = defineJob({ name: 'usage_maintenance', payload: z.object({}).passthrough() });
export const usageCrontab = `17 3 * * * ${maintenanceJob.name} ?max=1&jobKey=${maintenanceJob.name}`;

export function usageJobHandlers(db: Db, settings: { dedupDays: number; rawRetentionDays: number }): JobHandler[] {
  return [
    handleJob(maintenanceJob, async (_payload, ctx) => {
      const r = await maintain(db, settings);
      ctx.logger.info(r, 'usage maintenance');
    }),
  ];
}
