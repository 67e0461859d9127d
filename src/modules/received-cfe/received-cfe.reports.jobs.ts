/**
 * Jobs of received CFEs, part 2 (issue 31 point 5).
 * - `receivedCfe.qrCheck` {id}: DGI's QR check of one received CFE (received-cfe.qr.ts); enqueued in
 *   the transaction that marks it pendiente; transport failures retried by the queue (5 attempts),
 *   the last one stored as error_consulta.
 */
import { z } from 'zod';
import { defineJob, handleJob, type JobHandler } from '../../platform/jobs/queue.js';

export const qrCheckJob = defineJob({ name: 'receivedCfe.qrCheck', payload: z.object({ id: z.number().int() }), maxAttempts: 5 });

export function receivedReportJobHandlers(qr: { check(id: number, attempt: number, maxAttempts: number): Promise<void> }): JobHandler[] {
  return [handleJob(qrCheckJob, async ({ id }, ctx) => qr.check(id, ctx.attempt, ctx.maxAttempts))];
}
