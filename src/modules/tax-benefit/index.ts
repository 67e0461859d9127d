/** Front door of the tax-benefit module (BRIEF 12; issue 35): wires it to companies, the issuer registry and BCU. */
import type { Db } from '../../platform/db/client.js';
import { taxBenefitRoutes } from './tax-benefit.routes.js';
import { createTaxBenefitService, type TaxBenefitDeps } from './tax-benefit.service.js';

export interface TaxBenefitModuleDeps {
  db: Db;
  settings: TaxBenefitDeps['settings'];
  companyFacts: TaxBenefitDeps['companyFacts'];
  registryEntry: TaxBenefitDeps['registryEntry'];
  registryStatus: TaxBenefitDeps['registryStatus'];
  rate: TaxBenefitDeps['rate'];
  events: TaxBenefitDeps['events'];
}

export function createTaxBenefitModule(deps: TaxBenefitModuleDeps) {
  const service = createTaxBenefitService(deps);
  return { service, routes: taxBenefitRoutes(service) };
}
