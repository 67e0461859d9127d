/** Front door of the receiver-exchange module (BRIEF 8): wires it to the other modules' services. */
import type { AppConfig } from '../../config.js';
import type { Db } from '../../platform/db/client.js';
import type { Mailer } from '../../platform/mailer.js';
import type { CertificatesService } from '../certificates/certificates.service.js';
import type { CompaniesService } from '../companies/companies.service.js';
import type { CustomersService } from '../customers/customers.service.js';
import type { EventsService } from '../events/events.service.js';
import { receiverExchangeCrontab, receiverExchangeJobHandlers } from './receiver-exchange.jobs.js';
import { receiverExchangeRoutes } from './receiver-exchange.routes.js';
import { createReceiverExchangeService, type ReceiverExchangeDeps } from './receiver-exchange.service.js';

export interface ReceiverExchangeModuleDeps {
  db: Db;
  config: AppConfig;
  mailer: Mailer;
  companies: CompaniesService;
  certificates: CertificatesService;
  customers: CustomersService;
  events: EventsService;
  /** The issued CFEs it sends on, and their receiver-side state (issued-cfe module). */
  cfes: ReceiverExchangeDeps['cfes'];
  setReceptorState: ReceiverExchangeDeps['setReceptorState'];
  replyToOf?: ReceiverExchangeDeps['replyToOf'];
  noteReceptor: ReceiverExchangeDeps['noteReceptor'];
  registrySynced: ReceiverExchangeDeps['registrySynced'];
  /** companies outbound-mail: the company's SMTP server and sender, when configured. */
  companyTransport: ReceiverExchangeDeps['companyTransport'];
}

export function createReceiverExchangeModule(deps: ReceiverExchangeModuleDeps) {
  const service = createReceiverExchangeService({
    db: deps.db,
    rutOf: deps.companies.rutOf,
    signingContext: (companyId) => deps.certificates.signingContextOf(companyId),
    electronicReceivers: (tx, companyId) => deps.customers.electronicReceivers(tx, companyId),
    events: deps.events,
    mailer: deps.mailer,
    settings: deps.config.receiverExchange,
    cfes: deps.cfes,
    setReceptorState: deps.setReceptorState,
    replyToOf: deps.replyToOf,
    noteReceptor: deps.noteReceptor,
    findCustomer: async (companyId, customerId, documento) =>
      (customerId !== null ? await deps.customers.findForCompany(deps.db, companyId, customerId) : undefined) ?? (documento ? (await deps.customers.findByDocument(deps.db, companyId, documento))[0] : undefined),
    registrySynced: deps.registrySynced,
    companyTransport: deps.companyTransport,
  });
  return { service, routes: receiverExchangeRoutes(service), jobs: receiverExchangeJobHandlers(service), cron: [receiverExchangeCrontab] };
}
