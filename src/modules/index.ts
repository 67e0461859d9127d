/**
 * Wires the modules in dependency order, one line each. A module reaches another only through the
 * service created here (STYLE 5.3).
 */
import { operatorCheckHandlers, operatorChecksCrontab } from './metrics/operator-checks.jobs.js';
import type { FastifyPluginAsync } from 'fastify';
import type { AppConfig } from '../config.js';
import type { Database } from '../platform/db/client.js';
import type { JobHandler } from '../platform/jobs/queue.js';
import type { Logger } from '../platform/logger.js';
import type { Mailer } from '../platform/mailer.js';
import { createCompaniesService } from './companies/companies.service.js';
import { companiesRoutes } from './companies/companies.routes.js';
import { createUsersService } from './users/users.service.js';
import { usersRoutes } from './users/users.routes.js';
import { createAuthService } from './auth/auth.service.js';
import { authRoutes } from './auth/auth.routes.js';
import { authJobHandlers } from './auth/auth.jobs.js';
import { createEventsService } from './events/events.service.js';
import { eventsRoutes } from './events/events.routes.js';
import { createWebhooksService } from './webhooks/webhooks.service.js';
import { webhooksRoutes } from './webhooks/webhooks.routes.js';
import { createDeliveryEngine } from './webhooks/delivery-engine.js';
import { createSalesOrdersService } from './sales-orders/sales-orders.service.js';
import { salesOrdersRoutes } from './sales-orders/sales-orders.routes.js';
import { createCaeService } from './cae/cae.service.js';
import { createCaeTrust } from './cae/cae.trust.js';
import { caeRoutes } from './cae/cae.routes.js';
import { createDgiSandboxService } from './dgi-sandbox/dgi-sandbox.service.js';
import { dgiSandboxRoutes } from './dgi-sandbox/dgi-sandbox.routes.js';
import { simulatedDgiRegistrar } from './dgi-sandbox/dgi-sandbox.registrar.js';
import { cfcRoutes } from './cae/cfc.routes.js';
import { createCertificatesService } from './certificates/certificates.service.js';
import { certificatesRoutes } from './certificates/certificates.routes.js';
import { decryptSecret, encryptSecret, resolveMasterKey } from './certificates/certificates.crypto.js';
import { createCertificateTrust } from './certificates/certificates.trust.js';
import { createOutboundMailService } from './companies/outbound-mail.service.js';
import { outboundMailRoutes } from './companies/outbound-mail.routes.js';
import { createIssuedCfeModule, createSealedXmlCache } from './issued-cfe/index.js';
import { createIssuedCfeReports } from './issued-cfe/issued-cfe.reports.service.js';
import { issuedCfeReportsRoutes } from './issued-cfe/issued-cfe.reports.routes.js';
import { createCustomersService } from './customers/customers.service.js';
import { customersRoutes } from './customers/customers.routes.js';
import { createProductsService } from './products/products.service.js';
import { productsRoutes } from './products/products.routes.js';
import { createCurrenciesService } from './currencies/currencies.service.js';
import { currenciesRoutes } from './currencies/currencies.routes.js';
import { createPriceBooksService } from './price-books/price-books.service.js';
import { priceBooksRoutes } from './price-books/price-books.routes.js';
import { createCfeDocumentsModule } from './cfe-documents/index.js';
import { createDailyReportModule } from './daily-report/index.js';
import { createReceiverExchangeModule } from './receiver-exchange/index.js';
import { createDgiSubmissionModule } from './dgi-submission/index.js';
import { createReceivedCfeModule } from './received-cfe/index.js';
import { createIssuerRegistryModule } from './issuer-registry/index.js';
import { createTaxBenefitModule } from './tax-benefit/index.js';
import { createUsageModule } from './usage/index.js';
import { createRecurringModule } from './recurring/index.js';
import { createContractBillingModule } from './contract-billing/index.js';
import { createSandboxClockModule } from './sandbox-clock/index.js';
import { createShiftableClock } from '../platform/clock.js';
import { createDgiTestingModule } from './dgi-testing/index.js';
import * as issuedCfeStates from './issued-cfe/issued-cfe.history.js';
import * as issuedCfeHandoff from './issued-cfe/issued-cfe.handoff.js';
import { SIMULATOR_PATHS } from './dgi/dgi.simulator.js';
import { DGI_RUC } from './emission/sobre.js';
import { Decimal } from 'decimal.js';
import { companyRefResolvers } from './company-refs.js';

/** The worker acting for a company on input that arrived by mail (no user): sees every company. */
const SYSTEM_ACTOR = { userId: 0, email: 'sistema', isOperator: true, companies: new Map() } as const;

export interface ModuleDeps {
  config: AppConfig;
  database: Database;
  logger: Logger;
  mailer: Mailer;
  jwtSecret: string;
  /** The base of the scheduling clock (recurring plans, contract closes); tests move it. Default the system's. */
  now?: () => Date;
}

export function createModules(deps: ModuleDeps) {
  const { config, database, logger, mailer } = deps;
  const db = database.db;

  const { invalidation } = database;
  const companies = createCompaniesService({ db, invalidation });
  const users = createUsersService({ db, logger, invalidation });
  const auth = createAuthService({ db, users, logger, settings: { ...config.auth, jwtSecret: deps.jwtSecret } });

  // A CAE file's signer must chain to Correo Uruguayo's CA, CAE_TRUST_ANCHORS or, outside production, the in-process simulator's CA.
  const caeTrust = createCaeTrust({
    anchorsFile: config.cae.trustAnchorsFile,
    simulatorCa: config.dgi.mode === 'simulator' && !config.isProduction ? async () => (await issuedCfe.lookups.simulator())?.control.caCertificatePem : undefined,
  });
  // The in-process simulated DGI (DGI_MODE=simulator, no DGI_SIMULATOR_URL): the sandbox hands out its
  // certificates and CAE files, and learns the ranges imported by hand (issue 27 point 2).
  const inProcessSimulator = config.dgi.mode === 'simulator' && !config.dgi.simulatorUrl;
  const sandboxEnabled = inProcessSimulator && !config.isProduction;
  const simulatorControl = async () => (await issuedCfe.lookups.simulator())?.control;
  const cae = createCaeService({
    db, logger, trust: caeTrust, companyRut: companies.rutOf,
    registerWithSimulatedDgi: simulatedDgiRegistrar({ mode: config.dgi.mode, simulator: inProcessSimulator ? simulatorControl : undefined, logger }),
  });
  const masterKey = resolveMasterKey({ masterKey: config.secrets.masterKey, isProduction: config.isProduction, dataDir: config.dataDir });
  // Signing certificates must chain to an accredited Uruguayan CA (BRIEF 3); in simulator mode the in-process simulator's test CA counts too.
  const certificateTrust = createCertificateTrust({
    mode: config.dgi.mode,
    extraAnchorsPath: config.certificates.trustAnchorsPath,
    simulatorCa: async () => (await issuedCfe.lookups.simulator())?.control.caCertificatePem,
  });
  const certificates = createCertificatesService({ db, logger, masterKey, trust: certificateTrust, invalidation, companyRut: companies.rutOf });
  // Company SMTP settings (issue 7 point 5): the password is sealed under the same master key as the private keys.
  // Secrets at rest (SMTP and IMAP passwords, webhook secrets) are sealed under the same master key as the private keys.
  const secretBox = { seal: (s: string) => encryptSecret(masterKey, s), unseal: (s: string) => decryptSecret(masterKey, s) };
  const outboundMail = createOutboundMailService({ db, mailer, secrets: secretBox });
  // DGI's registry of electronic issuers (issue 35): synced daily, signed with a company's certificate; customers read it for the exchange (BRIEF 8).
  const issuerRegistry = createIssuerRegistryModule({
    db, logger, settings: config.issuerRegistry,
    signers: () => certificates.companiesWithActiveCertificate(),
    clientFor: async (companyId) => {
      const ctx = await certificates.signingContextOf(companyId);
      return ctx ? issuedCfe.lookups.registryClient(ctx) : undefined;
    },
  });
  const customers = createCustomersService({ db, registry: { activeRucs: (tx) => issuerRegistry.service.activeRucs(tx), entries: issuerRegistry.service.entries } });
  const products = createProductsService({ db });
  const currencies = createCurrenciesService({ db });
  // Price books (issue 34 point 1): prices per metric code; contracts pin a version (versionById / versionInForce).
  const priceBooks = createPriceBooksService({ db, isKnownCurrency: currencies.isKnownCurrency });

  const events = createEventsService({ db });
  // The XML of receipts stored here waits in memory for this process's DGI submission worker, when it runs one (issue 45).
  const sealedXml = config.worker.inProcess ? createSealedXmlCache() : undefined;
  const issuedCfe = createIssuedCfeModule({ db, config, logger, companies, cae, certificates, events, customers, currencies, products, xmlCache: sealedXml });
  // Search, exports and charts of issued CFEs (issue 7): reads issued_cfes; the users service decides whose export configuration a caller may see.
  const issuedCfeReports = createIssuedCfeReports({ db, ports: { userCompanies: async (actor, userId) => (await users.get(actor, userId)).empresas.map((e) => e.idEmpresa) } });
  // Webhook signing secrets are sealed under the master key like certificate keys and SMTP passwords (issue 28 point 7).
  const webhooks = createWebhooksService({ db, events, allowPrivateUrls: config.webhooks.allowPrivateUrls, secrets: secretBox });
  // Started by main.ts (when config.worker.inProcess) and worker.ts; idle until start(), which first seals secrets left in clear.
  const webhookEngine = createDeliveryEngine({ database, logger, ...config.webhooks, secrets: secretBox });
  const dailyReport = createDailyReportModule({ db, config, logger, companies, cae, certificates, lookups: issuedCfe.lookups, cfesSignedOn: issuedCfeHandoff.cfesSignedOn });
  /** A DGI address: DGI's own in DGI_MODE=real, else the same path on the external or in-process simulator. */
  const dgiEndpoint = (realUrl: string, simulatorPath: string) => () => issuedCfe.lookups.dgiUrl(realUrl, simulatorPath);
  // DGI's consultas service (BRIEF 7): recovery of lost answers (dgi-submission) and the reconciliation of received CFE.
  const consultasEndpoint = dgiEndpoint(config.dgi.consultasUrl, SIMULATOR_PATHS.consultas);
  // DGI round trip (issue 6): envelopes to DGI, ACKs, states. The simulator is the one the RUT lookup uses.
  const dgiSubmission = createDgiSubmissionModule({
    database, logger, certificates, cae, events,
    // A DGI rejection of a recurring plan's CFE marks its run, in the same transaction (issue 32 point 3).
    states: {
      ...issuedCfeStates,
      async applyDgiStateChanges(tx, changes) {
        const written = await issuedCfeStates.applyDgiStateChanges(tx, changes);
        const rejected = written.filter((c) => c.to === 'rechazado');
        if (rejected.length) await recurring.scheduler.markRejected(tx, rejected.map((c) => ({ issuedCfeId: c.issuedCfeId, codigo: c.codigo, mensaje: c.mensaje ?? c.motivos?.map((m) => `${m.Motivo} ${m.Glosa ?? ''}`.trim()).join('; ') })));
        return written;
      },
    },
    cfes: { companiesWithPending: issuedCfeHandoff.companiesWithPending, claimPending: (tx, companyId, limit, skip) => issuedCfeHandoff.claimPending(tx, companyId, limit, skip, sealedXml), cfesForEnvelope: issuedCfeHandoff.cfesForEnvelope, awaitingDgiSince: issuedCfeHandoff.awaitingDgiSince },
    settings: { ...config.dgiSubmission, rutReceptor: DGI_RUC[config.dgiSubmission.environment], uiThresholdUyu: new Decimal(5000).times(config.emission.uiValue).toString(), leaseMs: config.dgiSubmission.timeoutMs * 2 },
    endpoint: dgiEndpoint(config.dgi.efacturaUrl, SIMULATOR_PATHS.efactura),
    consultasEndpoint,
  });
  const receiverExchange = createReceiverExchangeModule({
    db, config, mailer, companies, certificates, customers, events,
    cfes: { byIds: issuedCfeHandoff.exchangeCfesByIds, claimUnsent: issuedCfeHandoff.claimUnsentToReceivers, lockOne: issuedCfeHandoff.lockExchangeCfe, rejectedSent: issuedCfeHandoff.rejectedSentToReceivers, claimRejected: issuedCfeHandoff.claimRejected },
    setReceptorState: issuedCfeStates.applyReceptorStateChange,
    noteReceptor: issuedCfeStates.recordReceptorNote,
    registrySynced: async () => (await issuerRegistry.service.syncState())?.lastSuccessAt ?? null,
    // Exchange mail leaves through the company's SMTP server and sender when it has one (issue 42 point 2).
    companyTransport: outboundMail.transportOf,
    // Answers to the company's envelopes come back to its inbound mailbox, when it has one (received-cfe).
    replyToOf: (companyId) => receivedCfe.addressOf(companyId),
  });
  // Received CFEs (issue 30): intake from mailboxes and uploads, verification, answers to the issuer, decisions.
  const receivedCfe = createReceivedCfeModule({
    db, config, mailer, companies, certificates, events, issuerTrust: certificateTrust, logger,
    secrets: secretBox,
    companyTransport: outboundMail.transportOf,
    assertExportConfigAccess: issuedCfeReports.assertExportConfigAccess,
    dgiEndpoints: {
      consultas: consultasEndpoint,
      qr: dgiEndpoint(config.dgi.qrUrl, SIMULATOR_PATHS.consultaQr),
      timeoutMs: config.dgiSubmission.timeoutMs,
    },
    applyReceiverAnswer: async (companyId, xml) => {
      try {
        const r = await receiverExchange.service.applyAck(SYSTEM_ACTOR, { idEmpresa: companyId, xml }, 'correo');
        return { aplicada: true, detalle: r.tipo === 'ACKSobre' ? `ACKSobre ${r.idRespuesta} del sobre ${r.idSobre}: ${r.estadoSobre}.` : `ACKCFE ${r.idRespuesta} aplicado a ${r.cfes.length} CFE emitidos.` };
      } catch (err) {
        const code = (err as { code?: string }).code;
        return { aplicada: false, detalle: `respuesta no aplicada${code ? ` (${code})` : ''}: ${(err as Error).message}` };
      }
    },
  });
  const salesOrders = createSalesOrdersService({ db, events, issuedCfe: issuedCfe.service, customers });
  const cfeDocuments = createCfeDocumentsModule({ db, mailer, companies, outboundMail, customers, issuedCfe: issuedCfe.service, publicUrl: config.http.publicUrl, publicLookupRateLimitPerMinute: config.http.publicLookupRateLimitPerMinute });

  // Tax-benefit declarations (issue 35, BRIEF 12): start date from the issuer registry, UI and USD from BCU.
  const taxBenefit = createTaxBenefitModule({
    db, events, settings: config.taxBenefit,
    companyFacts: companies.taxFactsOf,
    registryEntry: (ruc, askAs) => issuerRegistry.service.entry(ruc, askAs),
    registryStatus: async () => {
      const s = await issuerRegistry.service.syncState();
      return { sincronizado: s?.lastSuccessAt ?? null, ultimoError: s?.lastError ?? null };
    },
    rate: async (currency, date) => issuedCfe.lookups.getRate(currency, date),
  });
  // The one scheduling clock every scheduler reads; the sandbox moves it (sandbox-clock, issue 40 point 5).
  const clock = createShiftableClock(deps.now);
  // Usage metering (issue 33): metrics, contracts, usage events and the usage query.
  const usage = createUsageModule({ db, config, invalidation });
  // Recurring invoicing plans (issue 32): issue through emission (prepare, emit with the run key as Idempotency-Key).
  const recurring = createRecurringModule({
    db, logger, now: clock.now,
    ports: {
      prepare: (body) => issuedCfe.service.prepare(body),
      emit: (body, key) => issuedCfe.service.emit(body, key),
      dgiStates: (ids) => issuedCfeHandoff.dgiStatesOf(db, ids),
      cfesByKeys: (companyId, keys) => issuedCfeHandoff.cfesByIdempotencyKeys(db, companyId, keys),
      customerIdsByDocument: async (companyId, documento) => (await customers.findByDocument(db, companyId, documento)).map((c) => c.id),
      documentOfCustomer: async (companyId, id) => (await customers.findForCompany(db, companyId, id))?.documento,
      recordEvents: (tx, inputs) => events.recordMany(tx, inputs),
      sendMail: async (_companyId, idCfe, destinatarios) => void (await cfeDocuments.mail.request(SYSTEM_ACTOR, { idCfe, destinatarios, formato: 'A4' })),
    },
  });
  // Contract billing (issue 34): terms, usage-rule states (event 8), period CFEs through emission, corrections.
  const contractBilling = createContractBillingModule({
    db, logger, events, priceBooks, issuedCfe: issuedCfe.service, usage, now: clock.now, invalidation,
    cfeIdByKey: async (companyId, key) => (await issuedCfeHandoff.cfesByIdempotencyKeys(db, companyId, [key])).get(key)?.id,
  });
  const sandboxClock = createSandboxClockModule({
    clock,
    schedulers: {
      async recurring(at) {
        const reanudados = await recurring.service.resumeDue(at);
        const { plans, runs } = await recurring.scheduler.tick(at);
        return { reanudados, planes: plans, ejecuciones: runs };
      },
      async contracts(at) {
        const { requeued, claimed, alerts } = await contractBilling.runClose(at);
        const emitidos = await contractBilling.close.issuePending(at);
        return { reencolados: requeued, periodosCerrados: claimed, emitidos, alertas: alerts };
      },
    },
  });

  // DGI's "Prueba de Testing" set in one run (issue 47): scripts/dgi-testing.ts drives it.
  const dgiTesting = createDgiTestingModule({ db, config, system: SYSTEM_ACTOR, companies, certificates, cae, issuedCfe: issuedCfe.service, lookups: issuedCfe.lookups, dgiSubmission: dgiSubmission.service, dailyReport: dailyReport.service });

  const dgiSandbox = createDgiSandboxService({ simulator: simulatorControl, company: companies.get, assertCaeRules: cae.assertRangeRules });

  const routes: FastifyPluginAsync[] = [
    authRoutes(auth, { rateLimitPerMinute: config.http.authRateLimitPerMinute }),
    usersRoutes(users),
    eventsRoutes(events),
    webhooksRoutes(webhooks),
    salesOrdersRoutes(salesOrders),
    companiesRoutes(companies),
    outboundMailRoutes(outboundMail),
    caeRoutes(cae),
    certificatesRoutes(certificates),
    issuedCfe.routes,
    issuedCfeReportsRoutes(issuedCfeReports),
    cfeDocuments.routes,
    cfeDocuments.buyerRoutes,
    customersRoutes(customers),
    cfcRoutes(cae),
    productsRoutes(products),
    currenciesRoutes(currencies),
    priceBooksRoutes(priceBooks),
    dailyReport.routes,
    receiverExchange.routes,
    ...receivedCfe.routes,
    dgiSubmission.routes,
    taxBenefit.routes,
    ...usage.routes,
    ...recurring.routes,
    ...contractBilling.routes,
    dgiTesting.routes,
    // Sandbox-only routes: absent (404) in DGI_MODE=real, with an external simulator and in production.
    ...(sandboxEnabled ? [dgiSandboxRoutes(dgiSandbox), ...sandboxClock.routes] : []),
  ] as unknown as FastifyPluginAsync[];

  const jobs: JobHandler[] = [
    ...authJobHandlers({
      createResetToken: auth.createResetToken,
      emailOf: async (id) => (await users.loadActorState(id))?.user.email,
      mailer,
      publicUrl: config.http.publicUrl,
      ttlMinutes: config.auth.passwordResetTtlMinutes,
    }),
  ];
  jobs.push(...dailyReport.jobs);
  jobs.push(...receiverExchange.jobs);
  jobs.push(...cfeDocuments.jobs);
  jobs.push(...dgiSubmission.jobs);
  jobs.push(...receivedCfe.jobs);
  jobs.push(...issuerRegistry.jobs);
  jobs.push(...usage.jobs);
  jobs.push(...recurring.jobs);
  jobs.push(...contractBilling.jobs);
  jobs.push(...operatorCheckHandlers(deps.database.db));
  jobs.push(...dgiTesting.jobs);
  const cron: string[] = [...receivedCfe.cron, ...recurring.cron, ...cfeDocuments.cron, ...dailyReport.cron, ...receiverExchange.cron, ...dgiSubmission.cron, ...issuerRegistry.cron, ...usage.cron, ...contractBilling.cron, ...operatorChecksCrontab];

  return { services: { secretBox, products, companies, users, auth, cae, certificates, customers, currencies, priceBooks, events, webhooks, webhookEngine, salesOrders, issuedCfe: issuedCfe.service, lookups: issuedCfe.lookups, cfeDocuments: cfeDocuments.service, cfeMail: cfeDocuments.mail, dailyReport: dailyReport.service, receiverExchange: receiverExchange.service, receivedCfe: receivedCfe.service, receivedCfeMailbox: receivedCfe.mailbox, receivedCfeMailboxWatcher: receivedCfe.watcher, issuerRegistry: issuerRegistry.service, dgiSubmission: dgiSubmission.service, dgiSubmissionWorker: dgiSubmission.worker, dgiSubmissionWaker: dgiSubmission.waker, usage: usage.service, usageIngestion: usage.ingestion, usageQuery: usage.query, recurring: recurring.service, recurringScheduler: recurring.scheduler, contractBilling: contractBilling.service, contractPeriods: contractBilling.close, contractRulesQueue: contractBilling.queue, contractRecovery: contractBilling.recovery, clock, dgiTesting: dgiTesting.service }, routes, jobs, cron,
    /** How each kind of company-owned id in a request is resolved (issue 28 point 5). */
    companyRefs: companyRefResolvers({ customers, products, companies, cae, certificates, issuedCfe: issuedCfe.service, salesOrders, priceBooks, recurring: recurring.service }),
    /** Releases what modules hold beyond the database (the CFE sealing worker threads). */
    close: () => issuedCfe.service.close(),
  };
}

export type Modules = ReturnType<typeof createModules>;
