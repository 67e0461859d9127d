/**
 * Every receipt reaches DGI's verdict by itself (issue 29 point 1). When an envelope's answer was
 * lost (the process died after DGI received it: the resend gets S08 or fault 108, BRIEF 5-6, and
 * DGI does not repeat the ACKSobre), or a receipt sent to DGI shows no progress for
 * DGI_STALE_RECEIPT_MINUTES, the worker asks DGI's consultas service what it holds (BRIEF 7:
 * EFACCONSULTARENVIOSCFE for one CFE of the envelope lists the envelopes that carried it; ours is
 * the one with our Idemisor) and applies it through the usual outcomes: AS → `recibido` and the
 * ACKCFE poll gives the verdicts (accepted, rejected with codes, observed); BS/BA → rejected.
 */
import type { Db } from '../../platform/db/client.js';
import type { Logger } from '../../platform/logger.js';
import type { DgiConsultasClient } from '../dgi/dgi.client.js';
import { DgiPermanentError, DgiTransientError } from '../dgi/dgi.errors.js';
import { enqueuePoll, enqueueRecover } from './dgi-submission.jobs.js';
import { applyRecoveredEnvelope, RECOVERABLE_ENVELOPE_STATES, type OutcomeDeps } from './dgi-submission.outcomes.js';
import { pollAt, retryDelayMs, type RetrySettings } from './dgi-submission.policy.js';
import * as repo from './dgi-submission.repository.js';

export interface RecoverySettings {
  /** A receipt en_cola_dgi / sobre_recibido unchanged this long is asked about. */
  staleAfterMs: number;
  pollDelayCapMs: number;
  /** Backoff between recovery queries of one envelope (DGI may not list it yet). */
  retry: RetrySettings;
}

export interface RecoveryDeps extends OutcomeDeps {
  db: Db;
  logger: Logger;
  settings: RecoverySettings;
  consultasFor(companyId: number): Promise<DgiConsultasClient>;
  /** Ids of receipts sent to DGI whose state has not changed since `before` (issued-cfe.handoff.ts). */
  awaitingDgiSince(db: Db, before: Date, limit: number): Promise<number[]>;
}

const STALE_BATCH = 500;

export function createRecovery(deps: RecoveryDeps) {
  const { db, logger, settings } = deps;

  async function retryLater(envelopeId: number, attempt: number, reason: string, codigo: string): Promise<string> {
    const delay = retryDelayMs(attempt, settings.retry);
    if (delay === null) {
      // Left as it is, with the reason: the stale sweep asks again after DGI_STALE_RECEIPT_MINUTES.
      await repo.updateEnvelope(db, envelopeId, { errorCodigo: codigo, errorMensaje: reason.slice(0, 2000), nextAttemptAt: null });
      logger.error({ envelopeId, attempt, reason }, 'DGI recovery: gave up for now; the stale-receipt sweep will ask again');
      return 'agotado';
    }
    const runAt = new Date(Date.now() + delay);
    await db.transaction(async (tx) => {
      await repo.updateEnvelope(tx, envelopeId, { errorMensaje: reason.slice(0, 2000), nextAttemptAt: runAt });
      await enqueueRecover(tx, envelopeId, runAt);
    });
    return 'retry';
  }

  /** Asks DGI what it holds of one envelope and applies it. */
  async function recoverEnvelope(envelopeId: number): Promise<string> {
    const env = await repo.findEnvelopeState(db, envelopeId);
    if (!env) return 'skipped';
    // Received with DGI's ids (e.g. polls exhausted): ask for the ACKCFE again.
    if ((env.estado === 'recibido' || env.estado === 'error') && env.idReceptor && env.token) {
      await db.transaction(async (tx) => {
        await repo.updateEnvelope(tx, envelopeId, { estado: 'recibido', pollAttempts: 0, errorCodigo: null, nextAttemptAt: null });
        await enqueuePoll(tx, envelopeId);
      });
      logger.info({ envelopeId, idEmisor: env.idEmisor }, 'DGI recovery: envelope received by DGI, asking for its ACKCFE again');
      return 'poll';
    }
    if (!RECOVERABLE_ENVELOPE_STATES.has(env.estado)) return 'skipped';
    // Never sent, or a send in progress: the send job owns it.
    if (env.estado === 'creado' && (env.sendAttempts === 0 || (env.leaseUntil && env.leaseUntil > new Date()))) return 'skipped';
    const ids = await repo.envelopeItems(db, envelopeId);
    const cfes = await db.transaction((tx) => deps.states.lockCfesForState(tx, ids));
    const probe = cfes.find((c) => c.estado === 'en_cola_dgi');
    if (!probe) return 'skipped';
    const attempt = env.recoveryAttempts + 1;
    await repo.updateEnvelope(db, envelopeId, { recoveryAttempts: attempt });
    const cfeId = { TipoCFE: probe.tipoCfe, Serie: probe.serie, Nro: probe.numero };
    let held;
    try {
      held = await (await deps.consultasFor(env.companyId)).cfeEnvelopes(cfeId);
    } catch (err) {
      const codigo = err instanceof DgiPermanentError ? `CONSULTA_${err.faultCode ?? 'FALLA'}` : 'CONSULTA_TRANSITORIA';
      if (!(err instanceof DgiTransientError) && !(err instanceof DgiPermanentError)) logger.error({ err, envelopeId }, 'DGI recovery: unusable answer');
      return retryLater(envelopeId, attempt, `EFACCONSULTARENVIOSCFE: ${(err as Error).message}`, codigo.slice(0, 20));
    }
    const ours = held.find((d) => d.IdEmisor === String(env.idEmisor));
    if (!ours) {
      const known = held.map((d) => d.IdEmisor).join(', ') || 'ninguno';
      logger.warn({ envelopeId, idEmisor: env.idEmisor, cfe: cfeId, known }, 'DGI recovery: DGI lists no envelope with our Idemisor for this CFE yet');
      return retryLater(envelopeId, attempt, `DGI no registra el sobre Idemisor ${env.idEmisor} para ${cfeId.TipoCFE}-${cfeId.Serie}-${cfeId.Nro} (sobres: ${known})`, 'RECUPERACION_SIN_DATOS');
    }
    const outcome = await applyRecoveredEnvelope(deps, db, envelopeId, ours, (fechahora) => pollAt(fechahora, new Date(), settings.pollDelayCapMs));
    logger.info({ envelopeId, idEmisor: env.idEmisor, idReceptor: ours.IdReceptor, estadoSobre: ours.EstadoSobre, outcome, was: env.estado }, 'DGI recovery: envelope state learnt from EFACCONSULTARENVIOSCFE');
    return outcome;
  }

  /** The sweep: receipts without progress → their live envelope is asked about. */
  async function recoverStale(): Promise<number> {
    const ids = await deps.awaitingDgiSince(db, new Date(Date.now() - settings.staleAfterMs), STALE_BATCH);
    const envelopes = [...new Set((await repo.liveEnvelopesOf(db, ids)).map((e) => e.envelopeId))];
    for (const envelopeId of envelopes) await enqueueRecover(db, envelopeId);
    if (envelopes.length > 0) logger.warn({ receipts: ids.length, envelopes }, 'DGI recovery: receipts without progress, asking DGI');
    return envelopes.length;
  }

  return { recoverEnvelope, recoverStale };
}
