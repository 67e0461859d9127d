/** Front door of the received-CFE module (BRIEF 8; issue 30): wires it to the other modules' services. */
import type { AppConfig } from '../../config.js';
import type { Db } from '../../platform/db/client.js';
import type { Mailer } from '../../platform/mailer.js';
import type { CertificatesService } from '../certificates/certificates.service.js';
import type { CompaniesService } from '../companies/companies.service.js';
import type { EventsService } from '../events/events.service.js';
import { receivedCfeJobHandlers } from './received-cfe.jobs.js';
import { receivedCfeRoutes } from './received-cfe.routes.js';
import { createReceivedCfeService } from './received-cfe.service.js';

export interface ReceivedCfeModuleDeps {
  db: Db;
  config: AppConfig;
  mailer: Mailer;
  companies: CompaniesService;
  certificates: CertificatesService;
  events: EventsService;
}

export function createReceivedCfeModule(deps: ReceivedCfeModuleDeps) {
  const service = createReceivedCfeService({
    db: deps.db,
    mailer: deps.mailer,
    events: deps.events,
    rutOf: deps.companies.rutOf,
    settingsOf: deps.companies.settingsOf,
    signingContext: (companyId) => deps.certificates.signingContextOf(companyId),
    defaultResponseDays: 30,
  });
  return { service, routes: receivedCfeRoutes(service), jobs: receivedCfeJobHandlers(service), cron: [] as string[] };
}
