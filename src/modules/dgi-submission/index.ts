/** Front door of the DGI submission module: wires the worker, its jobs, the wake-up and the routes. */
import { X509Certificate } from 'node:crypto';
import type { Database } from '../../platform/db/client.js';
import type { JobHandler } from '../../platform/jobs/queue.js';
import type { Logger } from '../../platform/logger.js';
import type { CaeService } from '../cae/cae.service.js';
import type { CertificatesService } from '../certificates/certificates.service.js';
import type { DgiReceptionClient } from '../dgi/dgi.client.js';
import { DgiSoapReceptionClient } from '../dgi/dgi.soap-client.js';
import type { EventsService } from '../events/events.service.js';
import type { DgiSubmissionServiceDeps } from './dgi-submission.service.js';
import { createDgiSubmissionService } from './dgi-submission.service.js';
import { dgiSubmissionJobHandlers, SUBMIT_PENDING_CRON } from './dgi-submission.jobs.js';
import { dgiSubmissionRoutes } from './dgi-submission.routes.js';
import { createSubmissionWaker } from './dgi-submission.waker.js';
import { createSubmissionWorker, type PendingCfes, type SubmissionSettings } from './dgi-submission.worker.js';

export interface DgiSubmissionModuleDeps {
  database: Database;
  logger: Logger;
  settings: SubmissionSettings & { timeoutMs: number; wakeDebounceMs: number };
  /** WS_eFactura endpoint: DGI's (DGI_MODE=real) or the simulator's shared with the RUT lookup. */
  endpoint(): Promise<string>;
  certificates: Pick<CertificatesService, 'getSigningContext'>;
  cae: Pick<CaeService, 'voidNumber'>;
  events: Pick<EventsService, 'record'>;
  states: DgiSubmissionServiceDeps['states'];
  /** The issued CFEs it puts in envelopes (issued-cfe module). */
  cfes: PendingCfes & Pick<DgiSubmissionServiceDeps, 'cfesForEnvelope'>;
}

const derBase64 = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');

export function createDgiSubmissionModule(deps: DgiSubmissionModuleDeps) {
  const { db } = deps.database;
  const clients = new Map<number, { certificateId: number; client: DgiReceptionClient }>();

  async function clientFor(companyId: number): Promise<DgiReceptionClient> {
    const material = await deps.certificates.getSigningContext(companyId);
    const hit = clients.get(companyId);
    if (hit && hit.certificateId === material.certificateId) return hit.client;
    const client = new DgiSoapReceptionClient({
      endpoint: await deps.endpoint(),
      timeoutMs: deps.settings.timeoutMs,
      credentials: {
        privateKeyPem: material.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        certificatePem: new X509Certificate(material.certificatePem).toString(),
      },
    });
    clients.set(companyId, { certificateId: material.certificateId, client });
    return client;
  }
  // Caratula/X509Certificate: the certificate that signed the CFEs (S06). The active one; CFEs signed
  // before a certificate change would need an envelope of their own (not handled: see ARCHITECTURE).
  const certificateOf = async (companyId: number) => derBase64((await deps.certificates.getSigningContext(companyId)).certificatePem);

  const worker = createSubmissionWorker({
    db, logger: deps.logger.child({ module: 'dgi-submission' }), settings: deps.settings, certificateOf, clientFor, cfes: deps.cfes,
    states: deps.states, voidNumber: (tx, v) => deps.cae.voidNumber(tx, v), recordEvent: (tx, input) => deps.events.record(tx, input),
  });
  const service = createDgiSubmissionService({ db, rutReceptor: deps.settings.rutReceptor, states: deps.states, cfesForEnvelope: deps.cfes.cfesForEnvelope, certificateOf });
  const waker = createSubmissionWaker({ database: deps.database, logger: deps.logger, debounceMs: deps.settings.wakeDebounceMs });
  const jobs: JobHandler[] = dgiSubmissionJobHandlers(worker);
  return { worker, service, waker, jobs, cron: [SUBMIT_PENDING_CRON], routes: dgiSubmissionRoutes(service) };
}

export type DgiSubmissionModule = ReturnType<typeof createDgiSubmissionModule>;
