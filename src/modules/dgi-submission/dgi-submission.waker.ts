/**
 * The cheap wake-up after emission (issue 6 point 3). Emission already NOTIFYs the outbox channel in
 * its own transaction (events.record of Cfe.Emitido; delivered only on commit), so LISTENing there
 * costs the hot path nothing. A notification schedules ONE `dgiSubmission_submitPending` job a moment later
 * (job_key, preserve_run_at: a burst of 1,000 emissions is one job, and it is never postponed); the
 * minute cron is the safety net when this connection is down or in another process.
 */
import pg from 'pg';
import type { Database } from '../../platform/db/client.js';
import type { Logger } from '../../platform/logger.js';
import { EVENTS_CHANNEL } from '../events/events.repository.js';
import { enqueueSubmitPending } from './dgi-submission.jobs.js';

export function createSubmissionWaker(deps: { database: Database; logger: Logger; debounceMs: number }) {
  let client: pg.Client | undefined;
  let last = 0;
  let running = false;

  const wake = () => {
    const now = Date.now();
    if (!running || now - last < deps.debounceMs) return;
    last = now;
    enqueueSubmitPending(deps.database.db, deps.debounceMs).catch((err) => deps.logger.warn({ err }, 'DGI submission wake-up failed'));
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
      await client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}
