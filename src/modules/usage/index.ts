/** Front door of usage metering (issue 33): metrics, contracts, event ingestion, the usage query. */
import type { AppConfig } from '../../config.js';
import type { Db } from '../../platform/db/client.js';
import { createIngestionService } from './ingestion.service.js';
import { createUsageBillingPort } from './usage.billing-port.js';
import { createUsageQueryService } from './usage-query.service.js';
import { usageCrontab, usageJobHandlers } from './usage.jobs.js';
import { usageRoutes } from './usage.routes.js';
import { createUsageService } from './usage.service.js';

export function createUsageModule(deps: { db: Db; config: AppConfig }) {
  const { db } = deps;
  const { defaultGraceHours, dedupDays, rawRetentionDays } = deps.config.usage;
  const service = createUsageService({ db, defaultGraceHours });
  const ingestion = createIngestionService({ db, defaultGraceHours });
  const query = createUsageQueryService({ db, usage: service, defaultGraceHours });
  return {
    service, ingestion, query,
    /** For contract billing (issue 34). */
    billing: createUsageBillingPort({ db, defaultGraceHours }),
    routes: [usageRoutes(service, ingestion, query)],
    jobs: usageJobHandlers(db, { dedupDays, rawRetentionDays }),
    cron: usageCrontab,
  };
}
