/**
 * Jobs of the daily report.
 * - `dailyReport.send` {id} (job key `daily-report-<id>`): EFACRECEPCIONREPORTE of one stored report,
 *   enqueued in the transaction that stores it; the queue retries transport failures (12 attempts,
 *   exponential backoff). A report another sender holds queues the job again for just after that
 *   sender's lease instead of ending it, so a report whose sender was killed is still sent.
 * - `dailyReport_daily` (crontab, every 10 minutes): from DAILY_REPORT_HOUR (Uruguay time,
 *   default 01:00) on, yesterday's report for every active company with a certificate that has none
 *   yet, also with no CFE (the "zero report", BRIEF 9). Every 10 minutes so a worker that was down at 01:00
 *   catches up within 10 minutes of starting; a company that already has yesterday's report is skipped.
 */
import { z } from 'zod';
import { defineJob, handleJob, type JobHandler } from '../../platform/jobs/queue.js';
import type { DailyReportService } from './daily-report.service.js';

export const sendDailyReportJob = defineJob({ name: 'dailyReport.send', payload: z.object({ id: z.number().int() }), maxAttempts: 12 });

export const dailyReportCronJob = defineJob({ name: 'dailyReport_daily', payload: z.object({}).passthrough() });

export const dailyReportCrontab = `*/10 * * * * ${dailyReportCronJob.name} ?max=1&jobKey=${dailyReportCronJob.name}`;

/** Uruguay hour (UTC−3) of an instant. */
const uyHour = (now: Date) => (now.getUTCHours() + 21) % 24;

export function dailyReportJobHandlers(service: DailyReportService, settings: { hour: number }): JobHandler[] {
  return [
    handleJob(sendDailyReportJob, async ({ id }) => {
      await service.sendQueued(id);
    }),
    handleJob(dailyReportCronJob, async (_payload, ctx) => {
      const now = new Date();
      if (uyHour(now) < settings.hour) return;
      const result = await service.generateYesterday(now);
      ctx.logger.info(result, 'daily reports generated');
    }),
  ];
}
