import type { Db } from '../../platform/db/client.js';
import * as repo from './companies.repository.js';

/** Companies (empresas). The platform needs `exists` for the tenancy rule. */
export function createCompaniesService(deps: { db: Db }) {
  return {
    exists: (id: number) => repo.companyExists(deps.db, id),
  };
}

export type CompaniesService = ReturnType<typeof createCompaniesService>;
