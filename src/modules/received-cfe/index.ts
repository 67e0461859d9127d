/** Front door of the received-CFE module (BRIEF 8; issue 30): wires it to the other modules' services. */
import type { AppConfig } from '../../config.js';
import type { Db } from '../../platform/db/client.js';
import type { Mailer } from '../../platform/mailer.js';
import type { CertificatesService } from '../certificates/certificates.service.js';
import type { CompaniesService } from '../companies/companies.service.js';
import type { EventsService } from '../events/events.service.js';
import { receivedCfeCrontab, receivedCfeJobHandlers } from './received-cfe.jobs.js';
import { createMailboxService, type MailboxPorts, type SecretBox } from './received-cfe.mailbox.js';
import { createMailboxWatcher } from './received-cfe.idle.js';
import type { Logger } from '../../platform/logger.js';
import * as mailboxRepo from './received-cfe.mailbox.repository.js';
import { mailboxRoutes } from './received-cfe.mailbox.routes.js';
import { receivedCfeRoutes } from './received-cfe.routes.js';
import { receivedCfeSearchRoutes } from './received-cfe.search.routes.js';
import { createReceivedExports, type ReceivedExportsPorts } from './received-cfe.exports.js';
import { receivedCfeExportsRoutes } from './received-cfe.exports.routes.js';
import { receivedDgiClients, type ReceivedDgiEndpoints } from './received-cfe.dgi-clients.js';
import { receivedCfeDgiChecksRoutes } from './received-cfe.dgi-checks.routes.js';
import { createReceivedQr } from './received-cfe.qr.js';
import { createReceivedReconcile } from './received-cfe.reconcile.js';
import { receivedReportJobHandlers } from './received-cfe.reports.jobs.js';
import { createReceivedCfeService, type ReceivedCfeDeps } from './received-cfe.service.js';

export interface ReceivedCfeModuleDeps {
  db: Db;
  config: AppConfig;
  mailer: Mailer;
  companies: CompaniesService;
  certificates: CertificatesService;
  events: EventsService;
  secrets: SecretBox;
  logger: Logger;
  /** The certificates module's trust store of accredited CAs, for issuers' certificates. */
  issuerTrust: { enforce: boolean; check(certificatePem: string, chainPem: readonly string[], at?: Date): Promise<Array<{ mensaje: string }>> };
  /** companies outbound-mail: the company's SMTP server and sender for our answers, when configured (issue 42 point 2). */
  companyTransport: ReceivedCfeDeps['companyTransport'];
  /** receiver-exchange: a receiver's answer to one of the company's own issued CFEs, arrived by mail. */
  applyReceiverAnswer: MailboxPorts['applyReceiverAnswer'];
  /** issued-cfe reports: who may read or save another user's export configuration. */
  assertExportConfigAccess: ReceivedExportsPorts['assertConfigAccess'];
  /** DGI's consultas service (EFACCONSULTARCFERECIBIDOS) and QR page: DGI's or the simulator's. */
  dgiEndpoints: ReceivedDgiEndpoints;
}

export function createReceivedCfeModule(deps: ReceivedCfeModuleDeps) {
  const service = createReceivedCfeService({
    db: deps.db,
    mailer: deps.mailer,
    events: deps.events,
    rutOf: deps.companies.rutOf,
    settingsOf: deps.companies.settingsOf,
    signingContext: (companyId) => deps.certificates.signingContextOf(companyId),
    issuerTrust: { enforce: deps.issuerTrust.enforce, check: async (pem, at) => (await deps.issuerTrust.check(pem, [], at)).map((w) => w.mensaje) },
    defaultResponseDays: deps.config.receivedCfe.responseDays,
    verifyWorkers: deps.config.receivedCfe.verifyWorkers,
    companyTransport: deps.companyTransport,
  });
  const mailbox = createMailboxService({
    db: deps.db,
    secrets: deps.secrets,
    ports: { intakeIn: service.intakeIn, annulIn: service.annulIn, applyReceiverAnswer: deps.applyReceiverAnswer },
    maxAttachmentBytes: deps.config.receivedCfe.maxAttachmentBytes,
    batch: deps.config.receivedCfe.pollBatch,
  });
  // IMAP IDLE per active mailbox (issue 42 point 5); started by the process that runs jobs.
  const watcher = createMailboxWatcher({ mailbox, logger: deps.logger, enabled: deps.config.receivedCfe.idle });
  const dgi = receivedDgiClients(deps.certificates, deps.dgiEndpoints);
  const qr = createReceivedQr({ db: deps.db, qrClient: dgi.qrClient });
  const reconcile = createReceivedReconcile({ db: deps.db, ports: { recibidosClientFor: dgi.recibidosClientFor } });
  const exports = createReceivedExports({ db: deps.db, ports: { assertConfigAccess: deps.assertExportConfigAccess } });
  /** The company's inbound address (Reply-To of the envelopes it sends), or null. */
  const addressOf = async (companyId: number) => (await mailboxRepo.find(deps.db, companyId))?.direccion ?? null;
  return {
    service, mailbox, watcher, addressOf, exports, qr, reconcile,
    routes: [receivedCfeRoutes(service), receivedCfeSearchRoutes(service), mailboxRoutes(mailbox), receivedCfeExportsRoutes(exports), receivedCfeDgiChecksRoutes(qr, reconcile)],
    jobs: [...receivedCfeJobHandlers(service, mailbox), ...receivedReportJobHandlers(qr)],
    cron: [receivedCfeCrontab],
  };
}
