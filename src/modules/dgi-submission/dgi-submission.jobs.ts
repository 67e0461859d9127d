/**
 * Jobs of the DGI submission worker (graphile-worker, so state and schedule survive restarts):
 *   dgiSubmission_submitPending  every minute (cron) and after emissions (dgi-submission.waker.ts): packs the
 *                       `firmado` CFEs of every company into envelopes, re-enqueues stranded ones
 *   dgi.send-envelope   EFACRECEPCIONSOBRE of one envelope (enqueued in the envelope's transaction)
 *   dgi.poll-envelope   EFACCONSULTARESTADOENVIO, run_at = DGI's Fechahora
 *   dgi.recover-envelope  ws_consultas EFACCONSULTARENVIOSCFE: what DGI holds of an envelope whose
 *                       answer was lost (S08 / fault 108 on the resend) or whose CFEs made no progress
 *   dgiSubmission_recoverStale  every minute (cron): receipts without progress for DGI_STALE_RECEIPT_MINUTES
 * Retries are scheduled by the worker itself (policy.retryDelayMs) and recorded on the envelope, so
 * the backoff and the last error are visible through the API.
 */
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { DbOrTx } from '../../platform/db/client.js';
import { defineJob, enqueueJob, handleJob, type JobHandler } from '../../platform/jobs/queue.js';

export const submitPendingJob = defineJob({ name: 'dgiSubmission_submitPending', payload: z.object({}).passthrough(), maxAttempts: 5 });
export const sendEnvelopeJob = defineJob({ name: 'dgi.send-envelope', payload: z.object({ envelopeId: z.number().int() }), maxAttempts: 5 });
export const pollEnvelopeJob = defineJob({ name: 'dgi.poll-envelope', payload: z.object({ envelopeId: z.number().int() }), maxAttempts: 5 });
export const recoverEnvelopeJob = defineJob({ name: 'dgi.recover-envelope', payload: z.object({ envelopeId: z.number().int() }), maxAttempts: 5 });
export const recoverStaleJob = defineJob({ name: 'dgiSubmission_recoverStale', payload: z.object({}).passthrough(), maxAttempts: 3 });
export const RECOVER_STALE_CRON = `* * * * * ${recoverStaleJob.name} ?jobKey=dgi-recover-stale&jobKeyMode=preserve_run_at`;

/** One queued submit-pending at a time; a wake-up never postpones one already scheduled. */
export const SUBMIT_PENDING_KEY = 'dgi-submit-pending';
export const SUBMIT_PENDING_CRON = `* * * * * ${submitPendingJob.name} ?jobKey=${SUBMIT_PENDING_KEY}&jobKeyMode=preserve_run_at`;

export async function enqueueSubmitPending(db: DbOrTx, delayMs = 0): Promise<void> {
  await db.execute(sql`select graphile_worker.add_job(${submitPendingJob.name}::text, '{}'::json,
    run_at => now() + ${`${delayMs} milliseconds`}::interval, job_key => ${SUBMIT_PENDING_KEY}::text, job_key_mode => 'preserve_run_at')`);
}

export const enqueueSend = (db: DbOrTx, envelopeId: number, runAt?: Date) =>
  enqueueJob(db, sendEnvelopeJob, { envelopeId }, { runAt, jobKey: `dgi-send-${envelopeId}` });

export const enqueuePoll = (db: DbOrTx, envelopeId: number, runAt?: Date) =>
  enqueueJob(db, pollEnvelopeJob, { envelopeId }, { runAt, jobKey: `dgi-poll-${envelopeId}` });

export const enqueueRecover = (db: DbOrTx, envelopeId: number, runAt?: Date) =>
  enqueueJob(db, recoverEnvelopeJob, { envelopeId }, { runAt, jobKey: `dgi-recover-${envelopeId}` });

export function dgiSubmissionJobHandlers(worker: {
  submitPending(): Promise<unknown>;
  sendEnvelope(id: number): Promise<unknown>;
  pollEnvelope(id: number): Promise<unknown>;
  recoverEnvelope(id: number): Promise<unknown>;
  recoverStale(): Promise<unknown>;
}): JobHandler[] {
  return [
    handleJob(recoverEnvelopeJob, async (p) => void (await worker.recoverEnvelope(p.envelopeId))),
    handleJob(recoverStaleJob, async () => void (await worker.recoverStale())),
    handleJob(submitPendingJob, async () => void (await worker.submitPending())),
    handleJob(sendEnvelopeJob, async (p) => void (await worker.sendEnvelope(p.envelopeId))),
    handleJob(pollEnvelopeJob, async (p) => void (await worker.pollEnvelope(p.envelopeId))),
  ];
}
