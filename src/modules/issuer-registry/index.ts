/** Front door of the issuer-registry module (BRIEF 7, 8): DGI's registry of electronic issuers, synced locally. */
import type { Db } from '../../platform/db/client.js';
import type { Logger } from '../../platform/logger.js';
import { issuerRegistryCrontab, issuerRegistryJobHandlers } from './issuer-registry.jobs.js';
import { createIssuerRegistryService, type IssuerRegistryDeps } from './issuer-registry.service.js';

export interface IssuerRegistryModuleDeps {
  db: Db;
  logger: Logger;
  settings: { compressed: boolean; syncHour: number };
  clientFor: IssuerRegistryDeps['clientFor'];
  signers: IssuerRegistryDeps['signers'];
}

export function createIssuerRegistryModule(deps: IssuerRegistryModuleDeps) {
  const service = createIssuerRegistryService({ db: deps.db, logger: deps.logger, settings: deps.settings, clientFor: deps.clientFor, signers: deps.signers });
  return { service, jobs: issuerRegistryJobHandlers(service, deps.settings), cron: [issuerRegistryCrontab] };
}
