/** Front door of the daily-report module: wires its dependencies to the other modules' services. */
import type { AppConfig } from '../../config.js';
import type { Db } from '../../platform/db/client.js';
import type { Logger } from '../../platform/logger.js';
import type { CaeService } from '../cae/cae.service.js';
import type { CertificatesService } from '../certificates/certificates.service.js';
import type { CompaniesService } from '../companies/companies.service.js';
import type { Lookups } from '../lookups/lookups.service.js';
import { createReceptionClients } from './daily-report.dgi.js';
import { dailyReportCrontab, dailyReportJobHandlers } from './daily-report.jobs.js';
import { dailyReportRoutes } from './daily-report.routes.js';
import { createDailyReportService, type DailyReportDeps } from './daily-report.service.js';

export interface DailyReportModuleDeps {
  db: Db;
  config: AppConfig;
  logger: Logger;
  companies: CompaniesService;
  cae: CaeService;
  certificates: CertificatesService;
  lookups: Lookups;
  /** The day's receipts (issued-cfe module). */
  cfesSignedOn: DailyReportDeps['cfesSignedOn'];
}

/** `overrides`: a service dependency replaced (tests: a short send lease, a DGI client of their own). */
export function createDailyReportModule(deps: DailyReportModuleDeps, overrides: Partial<DailyReportDeps> = {}) {
  const { db, config } = deps;
  const log = deps.logger.child({ module: 'daily-report' });
  const service = createDailyReportService({
    db,
    rutOf: deps.companies.rutOf,
    activeCompanyIds: deps.companies.activeIds,
    voidedNumbersOn: (tx, companyId, fecha) => deps.cae.voidedNumbersOn(tx, companyId, fecha),
    cfesSignedOn: deps.cfesSignedOn,
    signingContext: (companyId) => deps.certificates.signingContextOf(companyId),
    bcuRate: async (currency, fecha) => (await deps.lookups.getRate(currency, fecha))?.rate,
    receptionClient: createReceptionClients(config.dgi, deps.lookups),
    settings: { uiValue: config.emission.uiValue },
    log,
    ...overrides,
  });
  return { service, routes: dailyReportRoutes(service), jobs: dailyReportJobHandlers(service, config.dailyReport), cron: [dailyReportCrontab] };
}
