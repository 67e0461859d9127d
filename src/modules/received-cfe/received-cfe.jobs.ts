/**
 * Jobs of received CFEs (BRIEF 8).
 * - `receivedCfe.answerMail` {id}: e-mails one of our signed answers (ACKSobre / ACKCFE) to the
 *   issuer; enqueued in the transaction that stores it; retried by the queue, attempts on the row.
 * - `receivedCfe_poll` (crontab, every minute): reads each configured mailbox (received-cfe.mailbox.ts).
 */
import { z } from 'zod';
import { defineJob, handleJob, type JobHandler } from '../../platform/jobs/queue.js';
import type { ReceivedCfeService } from './received-cfe.service.js';

export const sendAnswerMailJob = defineJob({ name: 'receivedCfe.answerMail', payload: z.object({ id: z.number().int() }), maxAttempts: 10 });

export function receivedCfeJobHandlers(service: ReceivedCfeService): JobHandler[] {
  return [handleJob(sendAnswerMailJob, async ({ id }, ctx) => service.sendAnswerMail(id, ctx.attempt, ctx.maxAttempts))];
}
