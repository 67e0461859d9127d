/**
 * The DGI submission worker (issue 6 point 3; BRIEF 5-6). Three steps, each crash-safe:
 * 1. createEnvelope: ONE transaction claims `firmado` CFEs (SKIP LOCKED), takes the next Idemisor,
 *    stores the EnvioCFE bytes and its items, moves the CFEs to `en_cola_dgi` and enqueues the send.
 * 2. sendEnvelope: sends the stored bytes (a retry after a crash resends the same bytes and Idemisor:
 *    DGI answers S08 if it had it, and the CFEs are never put in another envelope).
 * 3. pollEnvelope: EFACCONSULTARESTADOENVIO after DGI's Fechahora; applies AE/BE/CE per CFE (voiding,
 *    events) in one transaction with the envelope.
 */
import type { Db, DbOrTx } from '../../platform/db/client.js';
import type { Logger } from '../../platform/logger.js';
import { SESSION_LOCKS, withSessionLock } from '../../platform/db/session-lock.js';
import { DgiError, DgiPermanentError, isTransientDgiError } from '../dgi/dgi.errors.js';
import type { DgiReceptionClient } from '../dgi/dgi.client.js';
import { assembleEnvioCfe, envelopeOverheadBytes, envioCfeHead, planEnvelopes } from '../emission/sobre.js';
import * as repo from './dgi-submission.repository.js';
import { enqueuePoll, enqueueRecover, enqueueSend } from './dgi-submission.jobs.js';
import { NET_AMOUNT_FIELDS, pollAt, retryDelayMs, TICKET_TYPES, uyFechaHora, type RetrySettings } from './dgi-submission.policy.js';
import type { BelowThresholdFilter, PendingCfe } from '../issued-cfe/index.js';
import { applyEnvelopeAck, applyStatusAck, type OutcomeDeps } from './dgi-submission.outcomes.js';

export interface SubmissionSettings {
  rutReceptor: string;
  maxCfePerEnvelope: number;
  maxEnvelopeBytes: number;
  uiThresholdUyu: string;
  leaseMs: number;
  pollDelayCapMs: number;
  send: RetrySettings;
  poll: RetrySettings;
}

/** The issued CFEs waiting for DGI (issued-cfe.handoff.ts). */
export interface PendingCfes {
  companiesWithPending(db: Db): Promise<number[]>;
  /** Locks (SKIP LOCKED) up to `limit`; with `skip`, receipts of those types at or below the threshold stay. */
  claimPending(tx: DbOrTx, companyId: number, limit: number, skip?: BelowThresholdFilter): Promise<PendingCfe[]>;
  /** Their signed XML, to assemble an envelope that stores only its head (repository envelopeXml). */
  cfesForEnvelope: repo.CfeXmlReader;
}

export interface SubmissionWorkerDeps extends OutcomeDeps {
  db: Db;
  cfes: PendingCfes;
  logger: Logger;
  settings: SubmissionSettings;
  /** Base64 DER of the company's active certificate (Caratula/X509Certificate). */
  certificateOf(companyId: number): Promise<string>;
  /** WS_eFactura client with the company's WS-Security credentials. */
  clientFor(companyId: number): Promise<DgiReceptionClient>;
}

export function createSubmissionWorker(deps: SubmissionWorkerDeps) {
  const { db, logger, settings } = deps;

  /** One envelope from the company's oldest pending CFEs; null when nothing is pending. */
  async function createEnvelope(companyId: number) {
    return (await nextEnvelope(companyId))?.env ?? null;
  }

  /**
   * The bytes of the envelopes this process built and has not sent yet, by id: the send job, which usually follows here
   * within milliseconds, takes them at its first attempt instead of reading 250 CFEs back (~13 ms of PostgreSQL an
   * envelope). Another process's send, a retry or a restart assembles them from the database (repository envelopeXml).
   */
  const built = new Map<number, string>();

  /** `full`: the claim hit a limit, so more CFEs may be waiting right now. */
  async function nextEnvelope(companyId: number) {
    const next = await buildEnvelope(companyId);
    if (next) {
      built.set(next.env.id, next.env.xml);
      if (built.size > 8) built.delete(built.keys().next().value!);
    }
    return next;
  }

  async function buildEnvelope(companyId: number) {
    const mode = await repo.getSettings(db, companyId);
    const cert = await deps.certificateOf(companyId);
    return db.transaction(async (tx) => {
      // 'obligatorios': e-Tickets at or below the UI threshold go only in the daily report (BRIEF 1).
      const skip = mode === 'todos' ? undefined : { types: TICKET_TYPES, netFields: NET_AMOUNT_FIELDS, uiThresholdUyu: settings.uiThresholdUyu };
      const pending = await deps.cfes.claimPending(tx, companyId, settings.maxCfePerEnvelope, skip);
      if (pending.length === 0) return null;
      const [batch] = planEnvelopes(pending, {
        maxCfe: settings.maxCfePerEnvelope,
        maxBytes: settings.maxEnvelopeBytes,
        overheadBytes: envelopeOverheadBytes(cert),
      });
      const idEmisor = await repo.nextIdEmisor(tx, companyId);
      const fecha = uyFechaHora(new Date());
      const rucEmisor = /<(?:[\w.-]+:)?RUCEmisor>\s*(\d{12})\s*</.exec(batch[0].xml)?.[1] ?? '';
      // Only the head is stored: the CFEs' bytes are in issued_cfes (repository envelopeXml).
      const xmlHead = envioCfeHead({ rutReceptor: settings.rutReceptor, rucEmisor, idEmisor, fecha, certificateDerBase64: cert }, batch.length);
      const xml = assembleEnvioCfe(xmlHead, batch.map((c) => c.xml));
      const env = { ...(await repo.insertEnvelope(tx, { companyId, idEmisor, xmlHead, cantCfe: batch.length, bytes: Buffer.byteLength(xml), fecha }, batch.map((c) => c.id))), xml };
      await deps.states.applyDgiStateChanges(tx, batch.map((c) => ({
        issuedCfeId: c.id, companyId, from: 'firmado' as const, to: 'en_cola_dgi' as const, referencia: `sobre:${env.id}`, mensaje: `Sobre Idemisor ${idEmisor}`,
      })));
      await enqueueSend(tx, env.id);
      return { env, full: pending.length === settings.maxCfePerEnvelope || batch.length < pending.length };
    });
  }

  async function submitPending(): Promise<number> {
    let created = 0;
    for (const companyId of await deps.cfes.companiesWithPending(db)) {
      try {
        // Only full envelopes are chained. A part-filled one means the backlog is gone; CFEs signed
        // from now on wake another run after the debounce (dgi-submission.waker.ts), so under load
        // envelopes fill up (~190 CFE at 700/s instead of ~64): each envelope costs two signed SOAP
        // calls, the simulator's (or DGI's) answers and ~20 statements, whatever its size.
        for (;;) {
          const next = await nextEnvelope(companyId);
          if (!next) break;
          created++;
          if (!next.full) break;
        }
      } catch (err) {
        logger.error({ err, companyId }, 'DGI submission: could not build an envelope');
      }
    }
    // Jobs lost with a killed worker: the envelope row says what is still owed.
    for (const env of await repo.strandedEnvelopes(db)) {
      if (env.estado === 'creado') await enqueueSend(db, env.id);
      else await enqueuePoll(db, env.id);
    }
    return created;
  }

  async function failEnvelope(id: number, codigo: string, mensaje: string) {
    await repo.updateEnvelope(db, id, { estado: 'error', errorCodigo: codigo, errorMensaje: mensaje.slice(0, 2000), leaseUntil: null, nextAttemptAt: null });
  }

  /**
   * One sender per envelope in the fleet (issue 45): the send runs under the envelope's session lock,
   * which PostgreSQL frees the moment a killed sender's connection ends. So a lease still on the row
   * when the lock is free was left by a dead sender and is taken over at once (the job, unlocked by
   * the fleet sweep, runs again within seconds) rather than when it runs out (2 × DGI_TIMEOUT_MS).
   */
  async function sendEnvelope(id: number): Promise<string> {
    const pass = await withSessionLock(db.$client, SESSION_LOCKS.dgiEnvelopeSend, id & 0x7fffffff, () => sendEnvelopeLocked(id));
    return pass.locked ? pass.value : 'skipped';
  }

  async function sendEnvelopeLocked(id: number): Promise<string> {
    const env = await repo.leaseForSend(db, id, settings.leaseMs, { takeOver: true });
    if (!env) return 'skipped';
    let ack;
    try {
      const client = await deps.clientFor(env.companyId);
      // A first attempt only: a retry (the process that built it may have died meanwhile) reads what was committed.
      const xml = (env.sendAttempts === 1 ? built.get(id) : undefined) ?? (await repo.envelopeXml(db, env, deps.cfes.cfesForEnvelope));
      built.delete(id);
      ack = await client.sendEnvelope(xml);
    } catch (err) {
      if (err instanceof DgiPermanentError) {
        // Fault 108 "Sobre duplicado" (ExcepcionesServicios.xsd): DGI already holds this Idemisor;
        // what it made of it is asked for (dgi-submission.recovery.ts).
        const duplicate = err.faultCode === 108;
        await db.transaction(async (tx) => {
          await repo.updateEnvelope(tx, id, {
            estado: duplicate ? 'duplicado' : 'error', errorCodigo: err.faultCode === null ? 'FALLA' : String(err.faultCode),
            errorMensaje: err.message.slice(0, 2000), leaseUntil: null,
          });
          if (duplicate) await enqueueRecover(tx, id);
        });
        if (duplicate) logger.warn({ envelopeId: id, idEmisor: env.idEmisor }, 'DGI envelope: fault 108 (already received); asking DGI what it holds');
        else logger.error({ companyId: env.companyId, envelopeId: id, faultCode: err.faultCode, err: err.message }, `DGI refused envelope ${id} of company ${env.companyId} (SOAP fault ${err.faultCode ?? '-'}); its receipts wait in it`);
        return duplicate ? 'duplicado' : 'error';
      }
      if (!(err instanceof DgiError) && !isNetworkError(err)) {
        await failEnvelope(id, 'RESPUESTA_INVALIDA', (err as Error).message ?? String(err));
        logger.error({ err, companyId: env.companyId, envelopeId: id }, 'DGI envelope: unusable answer');
        return 'error';
      }
      const delay = retryDelayMs(env.sendAttempts, settings.send);
      if (delay === null) {
        await failEnvelope(id, 'REINTENTOS_AGOTADOS', (err as Error).message);
        logger.error({ companyId: env.companyId, envelopeId: id, attempts: env.sendAttempts, err: (err as Error).message }, `DGI unreachable: envelope ${id} of company ${env.companyId} gave up after ${env.sendAttempts} attempts`);
        return 'error';
      }
      const runAt = new Date(Date.now() + delay);
      await db.transaction(async (tx) => {
        await repo.updateEnvelope(tx, id, { leaseUntil: null, nextAttemptAt: runAt, errorCodigo: 'TRANSITORIO', errorMensaje: (err as Error).message.slice(0, 2000) });
        await enqueueSend(tx, id, runAt);
      });
      logger.warn({ envelopeId: id, attempt: env.sendAttempts, retryInMs: delay, err: (err as Error).message }, 'DGI envelope send failed; retrying');
      return 'retry';
    }
    const outcome = await applyEnvelopeAck(deps, db, env, ack, (runAtFechahora) => pollAt(runAtFechahora, new Date(), settings.pollDelayCapMs));
    if (outcome === 'duplicado') logger.warn({ envelopeId: id, idEmisor: env.idEmisor }, 'DGI ACKSobre S08 (an earlier send reached DGI, its answer was lost); asking DGI what it holds');
    else if (outcome === 'rechazado') {
      const motivos = ack.motivos.map((m) => `${m.Motivo} ${m.Glosa}`).join('; ');
      logger.warn({ companyId: env.companyId, envelopeId: id, idEmisor: env.idEmisor, estado: ack.Estado, motivos }, `DGI refused envelope ${id} of company ${env.companyId} (ACKSobre ${ack.Estado}: ${motivos})`);
    } else logger.info({ envelopeId: id, idEmisor: env.idEmisor, estado: ack.Estado, outcome }, 'DGI ACKSobre');
    return outcome;
  }

  async function pollEnvelope(id: number): Promise<string> {
    const env = await repo.findEnvelopeState(db, id);
    if (!env || env.estado !== 'recibido' || !env.idReceptor || !env.token) return 'skipped';
    const attempt = env.pollAttempts + 1;
    await repo.updateEnvelope(db, id, { pollAttempts: attempt });
    let reason: string;
    try {
      const status = await (await deps.clientFor(env.companyId)).queryEnvelopeStatus(env.idReceptor, env.token);
      if (status.ready) {
        const outcome = await applyStatusAck(deps, db, id, status);
        if (outcome !== 'incompleto') return outcome;
        reason = 'ACKCFE sin respuesta para todos los CFE del sobre';
      } else reason = `Código ${status.codigo}: ${status.descripcion}`;
    } catch (err) {
      if (err instanceof DgiPermanentError || (!(err instanceof DgiError) && !isNetworkError(err))) {
        await failEnvelope(id, err instanceof DgiPermanentError && err.faultCode !== null ? String(err.faultCode) : 'RESPUESTA_INVALIDA', (err as Error).message);
        return 'error';
      }
      reason = (err as Error).message;
    }
    const delay = retryDelayMs(attempt, settings.poll);
    if (delay === null) {
      await failEnvelope(id, 'CONSULTAS_AGOTADAS', reason);
      return 'error';
    }
    const runAt = new Date(Date.now() + delay);
    await db.transaction(async (tx) => {
      await repo.updateEnvelope(tx, id, { nextAttemptAt: runAt, errorMensaje: reason.slice(0, 2000) });
      await enqueuePoll(tx, id, runAt);
    });
    logger.info({ envelopeId: id, attempt, retryInMs: delay, reason }, 'DGI envelope status not final yet; polling again');
    return 'retry';
  }

  return { createEnvelope, submitPending, sendEnvelope, pollEnvelope };
}

function isNetworkError(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return typeof code === 'string' && /^(E[A-Z]+|UND_ERR.*)$/.test(code);
}

export type SubmissionWorker = ReturnType<typeof createSubmissionWorker>;
