/**
 * `issuerRegistry_sync` (crontab, every hour at :17): syncs DGI's registry of electronic issuers
 * (issuer-registry.service.ts) when due: at ISSUER_REGISTRY_SYNC_HOUR (Uruguay time), or whenever
 * the last successful run is more than a day old (first start, a failed night). Checking the hour
 * here keeps the schedule independent of the worker's time zone. `jobKey` keeps one run queued;
 * a DGI failure fails the job, which graphile-worker retries. Never synced (fresh install): queued at
 * process start, and every 5 minutes while no company has a certificate to sign with.
 */
import { z } from 'zod';
import { defineJob, handleJob, type JobHandler } from '../../platform/jobs/queue.js';
import type { IssuerRegistryService } from './issuer-registry.service.js';

export const syncJob = defineJob({ name: 'issuerRegistry_sync', payload: z.object({}).passthrough(), maxAttempts: 5 });

/** While the registry was never synced and no company has a certificate to sign the query. */
export const NO_SIGNER_RETRY_MS = 5 * 60_000;

export const issuerRegistryCrontab = `17 * * * * ${syncJob.name} ?max=5&jobKey=${syncJob.name}`;

export function issuerRegistryJobHandlers(service: IssuerRegistryService, settings: { syncHour: number }): JobHandler[] {
  return [
    handleJob(syncJob, async (_payload, ctx) => {
      const outcome = await service.syncIfDue(settings.syncHour);
      if (!outcome) return;
      if (outcome.status === 'sin_certificado') {
        // Never synced and nobody can sign yet (fresh install): try again in minutes, not at the next :17 (issue 42 point 7).
        const again = await service.queueInitialSync(NO_SIGNER_RETRY_MS);
        ctx.logger.warn({ retryInMs: again ? NO_SIGNER_RETRY_MS : null }, 'registry of electronic issuers not synced: no company has an active certificate');
      }
      else ctx.logger.info(outcome, 'registry of electronic issuers synced');
    }),
  ];
}
