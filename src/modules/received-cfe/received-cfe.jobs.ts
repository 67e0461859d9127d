/**
 * Jobs of received CFEs (BRIEF 8).
 * - `receivedCfe.answerMail` {id}: e-mails one of our signed answers (ACKSobre / ACKCFE) to the
 *   issuer; enqueued in the transaction that stores it; retried by the queue, attempts on the row.
 * - `receivedCfe_poll` (crontab, every minute): reads each active mailbox (received-cfe.mailbox.ts);
 *   one mailbox's failure is recorded on its row and does not stop the others.
 */
import { z } from 'zod';
import { defineJob, handleJob, type JobHandler } from '../../platform/jobs/queue.js';
import type { MailboxService } from './received-cfe.mailbox.js';
import type { ReceivedCfeService } from './received-cfe.service.js';

export const sendAnswerMailJob = defineJob({ name: 'receivedCfe.answerMail', payload: z.object({ id: z.number().int() }), maxAttempts: 10 });
export const pollJob = defineJob({ name: 'receivedCfe_poll', payload: z.object({}).passthrough() });
export const receivedCfeCrontab = `* * * * * ${pollJob.name} ?max=1&jobKey=${pollJob.name}`;

export function receivedCfeJobHandlers(service: ReceivedCfeService, mailbox: MailboxService): JobHandler[] {
  return [
    handleJob(sendAnswerMailJob, async ({ id }, ctx) => service.sendAnswerMail(id, ctx.attempt, ctx.maxAttempts)),
    handleJob(pollJob, async (_payload, ctx) => {
      for (const companyId of await mailbox.activeCompanies()) {
        try {
          const n = await mailbox.poll(companyId);
          if (n) ctx.logger.info({ companyId, mails: n }, 'inbound mailbox read');
        } catch (err) {
          ctx.logger.warn({ companyId, err: (err as Error).message }, `inbound mailbox of company ${companyId} failed: received CFEs are not being read`);
        }
      }
    }),
  ];
}
