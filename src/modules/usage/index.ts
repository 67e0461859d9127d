/** Front door of usage metering (issue 33): metrics, contracts, event ingestion, the usage query. */
import type { AppConfig } from '../../config.js';
import type { Db } from '../../platform/db/client.js';
import type { CacheInvalidation } from '../../platform/db/invalidation.js';
import { createIngestionService, type IngestionDeps } from './ingestion.service.js';
import { createUsageBillingPort } from './usage.billing-port.js';
import { createUsageQueryService } from './usage-query.service.js';
import { usageCrontab, usageJobHandlers } from './usage.jobs.js';
import { usageRoutes } from './usage.routes.js';
import { createUsageService, type ContractStateHook } from './usage.service.js';

export function createUsageModule(deps: { db: Db; config: AppConfig; invalidation?: CacheInvalidation }) {
  const { db } = deps;
  const { defaultGraceHours, dedupDays, rawRetentionDays } = deps.config.usage;
  // Hooks registered later by contract billing (issue 34): before and after each batch's events are
  // stored, and inside the transaction of a manual state change.
  const stateHooks: ContractStateHook[] = [];
  const service = createUsageService({ db, defaultGraceHours, stateHooks });
  const afterStore: Array<NonNullable<IngestionDeps['afterStore']>> = [];
  const beforeStore: Array<NonNullable<IngestionDeps['beforeStore']>> = [];
  const ingestion = createIngestionService({
    db, defaultGraceHours, invalidation: deps.invalidation,
    afterStore: async (companyId, events) => {
      for (const hook of afterStore) await hook(companyId, events);
    },
    beforeStore: async (companyId, events) => {
      const done: Array<() => void> = [];
      try {
        for (const hook of beforeStore) done.push(await hook(companyId, events));
      } catch (err) {
        for (const d of done) d();
        throw err;
      }
      return () => done.forEach((d) => d());
    },
  });
  const query = createUsageQueryService({ db, usage: service, defaultGraceHours });
  return {
    service, ingestion, query,
    /** For contract billing (issue 34). */
    billing: createUsageBillingPort({ db, defaultGraceHours }),
    onEventsStored: (hook: NonNullable<IngestionDeps['afterStore']>) => void afterStore.push(hook),
    onEventsStoring: (hook: NonNullable<IngestionDeps['beforeStore']>) => void beforeStore.push(hook),
    onStateChanged: (hook: ContractStateHook) => void stateHooks.push(hook),
    routes: [usageRoutes(service, ingestion, query)],
    jobs: usageJobHandlers(db, { dedupDays, rawRetentionDays }),
    cron: usageCrontab,
  };
}
