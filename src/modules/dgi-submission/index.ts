/** Front door of the DGI submission module: wires the worker, its jobs, the wake-up and the routes. */
import { X509Certificate } from 'node:crypto';
import type { Database } from '../../platform/db/client.js';
import type { JobHandler } from '../../platform/jobs/queue.js';
import type { Logger } from '../../platform/logger.js';
import type { CaeService } from '../cae/cae.service.js';
import type { CertificatesService } from '../certificates/certificates.service.js';
import type { DgiReceptionClient } from '../dgi/dgi.client.js';
import { DgiSoapReceptionClient } from '../dgi/dgi.soap-client.js';
import { DgiSoapConsultasClient } from '../dgi/dgi.consultas-client.js';
import type { DgiConsultasClient } from '../dgi/dgi.client.js';
import type { EventsService } from '../events/events.service.js';
import type { DgiSubmissionServiceDeps } from './dgi-submission.service.js';
import { createDgiSubmissionService } from './dgi-submission.service.js';
import { dgiSubmissionJobHandlers, RECOVER_STALE_CRON, SUBMIT_PENDING_CRON } from './dgi-submission.jobs.js';
import { createRecovery, type RecoveryDeps } from './dgi-submission.recovery.js';
import type { OutcomeDeps } from './dgi-submission.outcomes.js';
import { dgiSubmissionRoutes } from './dgi-submission.routes.js';
import { createSubmissionWaker } from './dgi-submission.waker.js';
import { createSubmissionWorker, type PendingCfes, type SubmissionSettings } from './dgi-submission.worker.js';

export interface DgiSubmissionModuleDeps {
  database: Database;
  logger: Logger;
  settings: SubmissionSettings & { timeoutMs: number; wakeDebounceMs: number; staleAfterMs: number };
  /** WS_eFactura endpoint: DGI's (DGI_MODE=real) or the simulator's shared with the RUT lookup. */
  endpoint(): Promise<string>;
  /** ws_consultas endpoint (BRIEF 7), the same way. */
  consultasEndpoint(): Promise<string>;
  certificates: Pick<CertificatesService, 'getSigningContext'>;
  cae: Pick<CaeService, 'voidNumber'>;
  events: Pick<EventsService, 'record'>;
  states: DgiSubmissionServiceDeps['states'];
  /** The issued CFEs it puts in envelopes (issued-cfe module). */
  cfes: PendingCfes & Pick<DgiSubmissionServiceDeps, 'cfesForEnvelope'> & Pick<RecoveryDeps, 'awaitingDgiSince'>;
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
  const consultasClients = new Map<number, { certificateId: number; client: DgiConsultasClient }>();
  async function consultasFor(companyId: number): Promise<DgiConsultasClient> {
    const material = await deps.certificates.getSigningContext(companyId);
    const hit = consultasClients.get(companyId);
    if (hit && hit.certificateId === material.certificateId) return hit.client;
    const client = new DgiSoapConsultasClient({
      endpoint: await deps.consultasEndpoint(),
      timeoutMs: deps.settings.timeoutMs,
      credentials: {
        privateKeyPem: material.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        certificatePem: new X509Certificate(material.certificatePem).toString(),
      },
    });
    consultasClients.set(companyId, { certificateId: material.certificateId, client });
    return client;
  }
  // Caratula/X509Certificate: the certificate that signed the CFEs (S06). The active one; CFEs signed
  // before a certificate change would need an envelope of their own (not handled: see ARCHITECTURE).
  const certificateOf = async (companyId: number) => derBase64((await deps.certificates.getSigningContext(companyId)).certificatePem);

  const logger = deps.logger.child({ module: 'dgi-submission' });
  const outcomeDeps: OutcomeDeps = { states: deps.states, voidNumber: (tx, v) => deps.cae.voidNumber(tx, v), recordEvent: (tx, input) => deps.events.record(tx, input) };
  const submission = createSubmissionWorker({ ...outcomeDeps, db, logger, settings: deps.settings, certificateOf, clientFor, cfes: deps.cfes });
  const recovery = createRecovery({
    ...outcomeDeps, db, logger, consultasFor, awaitingDgiSince: deps.cfes.awaitingDgiSince,
    settings: { staleAfterMs: deps.settings.staleAfterMs, pollDelayCapMs: deps.settings.pollDelayCapMs, retry: deps.settings.poll },
  });
  const worker = { ...submission, ...recovery };
  const service = createDgiSubmissionService({ db, rutReceptor: deps.settings.rutReceptor, states: deps.states, cfesForEnvelope: deps.cfes.cfesForEnvelope, certificateOf });
  const waker = createSubmissionWaker({ database: deps.database, logger: deps.logger, debounceMs: deps.settings.wakeDebounceMs });
  const jobs: JobHandler[] = dgiSubmissionJobHandlers(worker);
  return { worker, service, waker, jobs, cron: [SUBMIT_PENDING_CRON, RECOVER_STALE_CRON], routes: dgiSubmissionRoutes(service) };
}

export type DgiSubmissionModule = ReturnType<typeof createDgiSubmissionModule>;
