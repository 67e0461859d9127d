/** Front door of the issued-CFE module: wires its ports to the other modules' services. */
import type { AppConfig } from '../../config.js';
import type { Db } from '../../platform/db/client.js';
import type { Logger } from '../../platform/logger.js';
import type { CaeService } from '../cae/cae.service.js';
import type { CertificatesService } from '../certificates/certificates.service.js';
import type { CompaniesService } from '../companies/companies.service.js';
import type { CurrenciesService } from '../currencies/currencies.service.js';
import type { CustomersService } from '../customers/customers.service.js';
import type { ProductsService } from '../products/products.service.js';
import type { EventsService } from '../events/events.service.js';
import { createLookups } from '../lookups/lookups.service.js';
import type { IssuedCfePorts } from './issued-cfe.ports.js';
import { issuedCfeRoutes } from './issued-cfe.routes.js';
import { createIssuedCfeService } from './issued-cfe.service.js';
import type { SealedXmlCache } from './issued-cfe.xml-cache.js';

export type { AnnulledCfe, BelowThresholdFilter, DayCfeRow, ExchangeCfe, PendingCfe } from './issued-cfe.handoff.js';
export { createSealedXmlCache, type SealedXmlCache } from './issued-cfe.xml-cache.js';

export interface IssuedCfeModuleDeps {
  db: Db;
  config: AppConfig;
  logger: Logger;
  companies: CompaniesService;
  cae: CaeService;
  certificates: CertificatesService;
  events: EventsService;
  customers: CustomersService;
  currencies: CurrenciesService;
  products: ProductsService;
  /** The XML of stored receipts for this process's DGI submission worker (issued-cfe.xml-cache.ts); none without one. */
  xmlCache?: SealedXmlCache;
}

export function createIssuedCfeModule(deps: IssuedCfeModuleDeps) {
  // The in-process simulated DGI judges the 5,000 UI threshold with the service's UI value (issue 47).
  const lookups = createLookups({ ...deps.config.dgi, uiValue: deps.config.emission.uiValue }, deps.logger);
  const signingContext = (companyId: number) => deps.certificates.signingContextOf(companyId);
  const ports: IssuedCfePorts = {
    resolveEmissionPoint: (input) => deps.companies.resolveEmissionPoint(input),
    reserveNumbers: (tx, input, count) => deps.cae.reserveNumbers(tx, input, count),
    exactReservationCtes: (input, block) => deps.cae.exactReservationCtes(input, block),
    numberClaims: deps.cae.claims,
    reserveContingencyNumber: (tx, input) => deps.cae.reserveContingencyNumber(tx, input),
    signingContext,
    customerById: (companyId, id) => deps.customers.findForCompany(deps.db, companyId, id),
    // Several customers may share a document (different codPais): the oldest one, as before.
    customerByDocument: async (companyId, documento) => (await deps.customers.findByDocument(deps.db, companyId, documento))[0],
    checkProductLines: (companyId, lines) => deps.products.checkLines(deps.db, companyId, lines),
    currencyExists: async (code) => deps.currencies.isKnownCurrency(code),
    companyRate: (companyId, currency, fecha) => deps.currencies.findRate(deps.db, companyId, currency, fecha),
    recordEvents: (tx, inputs) => deps.events.recordMany(tx, inputs),
    insertEventsFrom: (select) => deps.events.insertFrom(select),
    async lookupRut(companyId, rut) {
      const ctx = await signingContext(companyId);
      if (!ctx) return null;
      return lookups.lookupRut(companyId, ctx, rut);
    },
    bcuRate: async (currency, fecha) => (await lookups.getRate(currency, fecha))?.rate,
  };
  const service = createIssuedCfeService({ db: deps.db, ports, settings: deps.config.emission, xmlCache: deps.xmlCache });
  return { service, lookups, routes: issuedCfeRoutes(service, lookups) };
}

export type IssuedCfeModule = ReturnType<typeof createIssuedCfeModule>;
