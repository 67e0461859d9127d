/**
 * - `contract_rules_evaluate` {contractId}: re-evaluates one contract's usage rules when the in-process
 *   evaluation after ingestion failed (evaluation-queue.ts); job key `contract-rules-<id>`, so one
 *   pending evaluation per contract (graphile-worker replaces a pending job with the same key).
 * - `contract_periods_close` (crontab, every minute): re-queues `pendiente` periods whose lease ran
 *   out (period-recovery.ts), claims the periods due (end + grace passed) at the scheduling clock's
 *   time, and checks for contracts whose open period no close takes.
 * - `contract_period_issue` {periods: [{contractId, periodStart}]}: issues up to 100 claimed periods'
 *   CFEs, 24 at a time (idempotent per period; a retry skips the issued ones).
 */
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { DbOrTx } from '../../platform/db/client.js';
import { defineJob, handleJob, type JobHandler } from '../../platform/jobs/queue.js';
import { evaluateContract, type EvaluationDeps } from './contract-evaluation.js';
import { ISSUE_JOB, PERIODS_PER_JOB, type PeriodCloseService } from './period-close.service.js';
import type { PeriodRecovery } from './period-recovery.js';

export const evaluateJob = defineJob({ name: 'contract_rules_evaluate', payload: z.object({ contractId: z.number().int() }), maxAttempts: 5 });
export const closeJob = defineJob({ name: 'contract_periods_close', payload: z.object({}).passthrough() });
const period = z.object({ contractId: z.number().int(), periodStart: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) });
export const issueJob = defineJob({ name: ISSUE_JOB, payload: z.object({ periods: z.array(period).min(1).max(PERIODS_PER_JOB) }), maxAttempts: 10 });
export const contractBillingCrontab = [`* * * * * ${closeJob.name} ?max=1&jobKey=${closeJob.name}`];

/** Queues an evaluation for the given contracts that have usage rules: one statement, one pending job per contract. */
export async function queueEvaluations(db: DbOrTx, contractIds: number[]): Promise<void> {
  if (!contractIds.length) return;
  await db.execute(sql`select graphile_worker.add_job(${evaluateJob.name}::text, json_build_object('contractId', contract_id), max_attempts => 5,
      job_key => 'contract-rules-' || contract_id, job_key_mode => 'preserve_run_at')
    from contract_terms where contract_id = any(${`{${contractIds.join(',')}}`}::int[]) and jsonb_array_length(rules) > 0`);
}

/** One run of the close (the cron job, and the sandbox clock when moved): recovery, claims, check. */
export async function runClose(close: PeriodCloseService, recovery: PeriodRecovery, now: Date) {
  const requeued = await recovery.sweep();
  const stuck: Parameters<PeriodCloseService['closeDue']>[1] = [];
  const claimed = await close.closeDue(now, stuck);
  const alerts = await recovery.check(stuck);
  return { requeued, claimed, alerts };
}

export function contractBillingJobHandlers(deps: EvaluationDeps, close: PeriodCloseService, recovery: PeriodRecovery, now: () => Date): JobHandler[] {
  return [
    handleJob(evaluateJob, async ({ contractId }) => {
      await evaluateContract(deps, contractId);
    }),
    handleJob(closeJob, async (_p, ctx) => {
      const { claimed } = await runClose(close, recovery, now());
      if (claimed) ctx.logger.info({ periods: claimed }, 'contract periods claimed for billing');
    }),
    handleJob(issueJob, async ({ periods }) => {
      await close.issueMany(periods);
    }),
  ];
}
