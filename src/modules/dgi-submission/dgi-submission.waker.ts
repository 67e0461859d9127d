/**
 * The cheap wake-up after emission (issue 6 point 3). Emission already NOTIFYs the outbox channel in
 * its own transaction (events.record of Cfe.Emitido; delivered only on commit), so LISTENing there
 * costs the hot path nothing. A notification schedules ONE `dgiSubmission_submitPending` job a moment later
 * (job_key, preserve_run_at: a burst of 1,000 emissions is one job, and it is never postponed); the
 * minute cron is the safety net when this connection is down or in another process.
 *
 * Notifications within the debounce window are not dropped: one more job is scheduled at the end of
 * the window. Dropping them stranded the last receipts of a burst until the minute cron (lifecycle
 * bench: a drain of 29-45 s) whenever the job scheduled earlier had already made its last claim,
 * which a run that stops at its first part-filled envelope (dgi-submission.worker.ts) makes likely.
 */
import pg from 'pg';
import type { Database } from '../../platform/db/client.js';
import type { Logger } from '../../platform/logger.js';
import { EVENTS_CHANNEL } from '../events/events.repository.js';
import { enqueueSubmitPending } from './dgi-submission.jobs.js';

/**
 * Calls `fire` at the first hit and, for hits within `ms` of the last call, once more when that
 * window ends (leading and trailing edge): a hit is never left without a call at or after it.
 */
export function debounce(ms: number, fire: () => void, now: () => number = Date.now) {
  let last = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  const call = () => {
    last = now();
    fire();
  };
  return {
    hit() {
      const wait = last + ms - now();
      if (wait <= 0) return call();
      timer ??= setTimeout(() => {
        timer = undefined;
        call();
      }, wait);
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

export function createSubmissionWaker(deps: { database: Database; logger: Logger; debounceMs: number }) {
  let client: pg.Client | undefined;
  let running = false;
  const wakeUp = debounce(deps.debounceMs, () => {
    if (!running) return;
    enqueueSubmitPending(deps.database.db, deps.debounceMs).catch((err) => deps.logger.warn({ err }, 'DGI submission wake-up failed'));
  });
  const wake = () => {
    if (running) wakeUp.hit();
  };

  return {
    async start() {
      if (running) return;
      running = true;
      try {
        client = new pg.Client({ connectionString: deps.database.url });
        client.on('error', (err) => deps.logger.warn({ err }, 'DGI submission LISTEN connection lost; cron only'));
        await client.connect();
        client.on('notification', wake);
        await client.query(`listen ${EVENTS_CHANNEL}`);
      } catch (err) {
        deps.logger.warn({ err }, 'DGI submission could not LISTEN; cron only');
      }
      // Whatever was signed while no worker ran goes out now, not at the next minute.
      await enqueueSubmitPending(deps.database.db).catch(() => undefined);
    },
    async stop() {
      running = false;
      wakeUp.cancel();
      await client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}
