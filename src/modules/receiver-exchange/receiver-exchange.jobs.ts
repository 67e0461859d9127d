/**
 * Jobs of the exchange with electronic receivers (BRIEF 8).
 * - `receiverExchange.mail` {id}: e-mails one stored envelope; enqueued in the transaction that
 *   stores it; retried by the queue (10 attempts, exponential backoff), each attempt recorded on the row.
 * - `receiverExchange.noticeMail` {id}: the same for one annulment notice (CFEs_Anulados_x_RechazoDGI).
 * - `receiverExchange_dispatch` (crontab, every minute): envelopes for unsent CFEs of customers
 *   flagged `emisorElectronico`, then annulment notices for e-mailed CFEs DGI rejected since
 *   (SKIP LOCKED, so several workers never send one CFE, nor notice one, twice).
 */
import { z } from 'zod';
import { defineJob, handleJob, type JobHandler } from '../../platform/jobs/queue.js';
import type { ReceiverExchangeService } from './receiver-exchange.service.js';

export const sendEnvelopeMailJob = defineJob({ name: 'receiverExchange.mail', payload: z.object({ id: z.number().int() }), maxAttempts: 10 });
export const sendNoticeMailJob = defineJob({ name: 'receiverExchange.noticeMail', payload: z.object({ id: z.number().int() }), maxAttempts: 10 });
export const dispatchJob = defineJob({ name: 'receiverExchange_dispatch', payload: z.object({}).passthrough() });
export const receiverExchangeCrontab = `* * * * * ${dispatchJob.name} ?max=1&jobKey=${dispatchJob.name}`;

export function receiverExchangeJobHandlers(service: ReceiverExchangeService): JobHandler[] {
  return [
    handleJob(sendEnvelopeMailJob, async ({ id }, ctx) => service.sendMail(id, ctx.attempt, ctx.maxAttempts)),
    handleJob(sendNoticeMailJob, async ({ id }, ctx) => service.sendNoticeMail(id, ctx.attempt, ctx.maxAttempts)),
    handleJob(dispatchJob, async (_payload, ctx) => {
      const ids = await service.dispatch();
      if (ids.length) ctx.logger.info({ envelopes: ids }, 'envelopes to electronic receivers queued');
      const notices = await service.dispatchNotices();
      if (notices.ids.length) ctx.logger.info({ notices: notices.ids }, 'annulment notices (CFEs_Anulados_x_RechazoDGI) queued');
      if (notices.skippedCompanies.length) ctx.logger.warn({ companies: notices.skippedCompanies }, 'annulment notices waiting: company without an active certificate');
    }),
  ];
}
