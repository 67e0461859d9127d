/**
 * What keeps period closes from stalling (issue 40 points 2 and 4), run with the close cron:
 * - `sweep`: `pendiente` rows whose lease ran out (their issue job died with a killed process and
 *   graphile-worker keeps it locked for 4 hours, or it never ran) are leased again and queued in new
 *   jobs. A second job for a row is harmless: emission's Idempotency-Key per period replays the same
 *   CFE, and a row already issued is skipped. A running job renews its rows' lease to 40 s
 *   every ~13 s, so with the cron every minute a crash is recovered within about 100 s of the
 *   restart. (A job still waiting in the queue is not locked by anyone: a restart runs it; its rows
 *   hold a 3-minute lease so a busy queue does not get them twice.)
 * - `check`: a contract whose open period no close will take. With the open period always read by
 *   periodFrom this should not happen; the check finds it if it does (an open period starting inside a
 *   closed one, or one due for over an hour that the close did not take), logs a warning and sets
 *   the contract's `closeAlert` (shown as `alertaCierre` in its state and periods), cleared when fine.
 */
import type { Db } from '../../platform/db/client.js';
import type { Logger } from '../../platform/logger.js';
import * as repo from './contract-billing.repository.js';
import { ISSUE_JOB, PERIODS_PER_JOB, QUEUED_LEASE_SECONDS, type StuckPeriod } from './period-close.service.js';

const SWEEP_SLICE = 1000;
/** Terms changed since the previous check (less this overlap) are checked again; a new process checks all once. */
const CHECK_OVERLAP_MS = 5 * 60_000;

export interface CloseAlert { contractId: number; alerta: string }

export function createPeriodRecovery(deps: { db: Db; logger: Logger }) {
  const { db, logger } = deps;
  let checkedFrom = new Date(0);
  return {
    /** Re-queues the `pendiente` periods nobody holds; answers how many. */
    async sweep(): Promise<number> {
      let total = 0;
      for (;;) {
        const n = await db.transaction(async (tx) => {
          const rows = await repo.takeExpiredPending(tx, SWEEP_SLICE, QUEUED_LEASE_SECONDS);
          await repo.enqueueIssueJobs(tx, ISSUE_JOB, rows, PERIODS_PER_JOB);
          return rows.length;
        });
        total += n;
        if (n < SWEEP_SLICE) break;
      }
      if (total) logger.warn({ periods: total }, 'contract periods re-queued: their issue job stopped holding them (a crash?)');
      return total;
    },

    /** Finds contracts whose open period no close will take (see the module comment); answers the alerts now set. */
    async check(stuck: StuckPeriod[]): Promise<CloseAlert[]> {
      const started = new Date();
      const alerts = new Map<number, string>();
      const changed = await repo.termsChangedSince(db, new Date(checkedFrom.getTime() - CHECK_OVERLAP_MS));
      for (const t of changed) {
        if (t.lastClosedEnd !== null && t.lastClosedEnd >= t.openPeriodStart) {
          alerts.set(t.contractId, `El período abierto empieza el ${t.openPeriodStart}, dentro de un período ya cerrado (hasta ${t.lastClosedEnd}): ningún cierre lo facturaría.`);
        }
      }
      for (const s of stuck) {
        if (!alerts.has(s.contractId)) alerts.set(s.contractId, `El período que empieza el ${s.periodStart} está vencido desde ${s.overdueSince.toISOString()} y ningún cierre lo tomó.`);
      }
      checkedFrom = started;
      const cleared = changed.filter((t) => t.closeAlert !== null && !alerts.has(t.contractId)).map((t) => ({ contractId: t.contractId, alert: null }));
      const set = [...alerts].map(([contractId, alert]) => ({ contractId, alert }));
      await repo.setCloseAlerts(db, [...set, ...cleared]);
      if (set.length) logger.warn({ contracts: set }, 'contracts whose open period no close takes');
      return set.map((a) => ({ contractId: a.contractId, alerta: a.alert }));
    },
  };
}
export type PeriodRecovery = ReturnType<typeof createPeriodRecovery>;
