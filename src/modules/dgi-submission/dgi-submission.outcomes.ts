/**
 * Applies DGI's answers (BRIEF 6; FMR v19) to the envelope and its CFEs, each in one transaction:
 * envelope row + `issued_cfes` states + history rows + voided numbers + outbox events.
 * The decisions themselves are emission/cfe-states.ts (applyAckSobre / applyAckCfe).
 */
import type { Db, DbOrTx } from '../../platform/db/client.js';
import type { AckCfe, AckSobre, DatosSobre, Motivo } from '../dgi/dgi.client.js';
import { applyAckCfe, CfeStateError, findAckCfeDetalle, type CfeState, type StateDecision } from '../emission/cfe-states.js';
import type { RecordEventInput } from '../events/events.service.js';
import type { DgiStateChange } from '../issued-cfe/issued-cfe.history.js';
import { enqueuePoll, enqueueRecover } from './dgi-submission.jobs.js';
import * as repo from './dgi-submission.repository.js';
import type { DgiEnvelopeRow } from './dgi-submission.tables.js';

type LockedCfe = { id: number; companyId: number; estado: string; tipoCfe: number; serie: string; numero: number; caeRangeId: number | null; fechaEmision: string };

export interface OutcomeDeps {
  states: {
    lockCfesForState(tx: DbOrTx, ids: number[]): Promise<LockedCfe[]>;
    applyDgiStateChanges(tx: DbOrTx, changes: DgiStateChange[]): Promise<DgiStateChange[]>;
  };
  voidNumber(tx: DbOrTx, v: { companyId: number; caeRangeId: number; tipoCfe: number; serie: string; numero: number }): Promise<void>;
  recordEvent(tx: DbOrTx, input: RecordEventInput): Promise<unknown>;
}

const mensajeOf = (motivos: Motivo[]) => (motivos.length ? motivos.map((m) => `${m.Motivo} ${m.Glosa}${m.Detalle ? ` (${m.Detalle})` : ''}`).join('; ') : null);

/** ACKSobre: AS → CFEs sobre_recibido + poll scheduled; S08 → duplicado; other BS/BA → sobre_rechazado. */
export async function applyEnvelopeAck(deps: OutcomeDeps, db: Db, env: DgiEnvelopeRow, ack: AckSobre, pollAt: (fechahora: string | null) => Date): Promise<string> {
  return db.transaction(async (tx) => {
    const locked = await repo.lockEnvelope(tx, env.id);
    if (!locked || locked.estado !== 'creado') return 'skipped';
    const common = { ackSobreXml: ack.xml, ackEstado: ack.Estado, idReceptor: ack.caratula.IDReceptor, sentAt: new Date(), leaseUntil: null, nextAttemptAt: null };
    const referencia = `sobre:${env.id} IDReceptor:${ack.caratula.IDReceptor}`;
    if (ack.Estado !== 'AS' && ack.motivos.some((m) => m.Motivo === 'S08')) {
      // BRIEF 5: the same Idemisor again is S08. Only a resend of ours gets here (the answer to an
      // earlier attempt was lost): the CFEs stay en_cola_dgi, in this envelope only, never resent.
      // DGI does not repeat the lost ACKSobre: ask it what it holds (dgi-submission.recovery.ts).
      await repo.updateEnvelope(tx, env.id, { ...common, estado: 'duplicado', errorCodigo: 'S08', errorMensaje: mensajeOf(ack.motivos) });
      await enqueueRecover(tx, env.id);
      return 'duplicado';
    }
    const ids = await repo.envelopeItems(tx, env.id);
    const cfes = await deps.states.lockCfesForState(tx, ids);
    if (ack.Estado === 'AS') {
      const consultarDesde = pollAt(ack.paramConsulta?.Fechahora ?? null);
      await repo.updateEnvelope(tx, env.id, { ...common, estado: 'recibido', token: ack.paramConsulta?.Token ?? null, consultarDesde, errorCodigo: null, errorMensaje: null });
      await deps.states.applyDgiStateChanges(tx, cfes.filter((c) => c.estado === 'en_cola_dgi').map((c) => ({
        issuedCfeId: c.id, companyId: c.companyId, from: 'en_cola_dgi' as const, to: 'sobre_recibido' as const, codigo: 'AS', referencia,
        mensaje: 'Sobre recibido por DGI',
      })));
      await enqueuePoll(tx, env.id, consultarDesde);
      return 'recibido';
    }
    await repo.updateEnvelope(tx, env.id, { ...common, estado: 'rechazado', errorCodigo: ack.motivos[0]?.Motivo ?? ack.Estado, errorMensaje: mensajeOf(ack.motivos) });
    // The CFEs were not processed: free them for a new envelope once corrected (cfe-states).
    await repo.markItemsDead(tx, env.id);
    await deps.states.applyDgiStateChanges(tx, cfes.filter((c) => c.estado === 'en_cola_dgi').map((c) => ({
      issuedCfeId: c.id, companyId: c.companyId, from: 'en_cola_dgi' as const, to: 'sobre_rechazado' as const,
      codigo: ack.motivos[0]?.Motivo ?? ack.Estado, motivos: ack.motivos, mensaje: mensajeOf(ack.motivos), referencia,
    })));
    return 'rechazado';
  });
}

/**
 * ACKCFE: per-CFE AE/BE/CE. A BE voids the number (except E02/E09) and records Cfe.RechazadoDgi; a CE
 * (CFC only) records Cfe.ObservadoDgi. A CFE changed meanwhile (e.g. aceptado_manual) is left alone.
 * 'incompleto' when some CFE of the envelope has no answer yet (DGI may answer in parts).
 */
export async function applyStatusAck(deps: OutcomeDeps, db: Db, envelopeId: number, ack: AckCfe): Promise<string> {
  return db.transaction(async (tx) => {
    const env = await repo.lockEnvelope(tx, envelopeId);
    if (!env || env.estado !== 'recibido') return 'skipped';
    const cfes = await deps.states.lockCfesForState(tx, await repo.envelopeItems(tx, envelopeId));
    // An envelope whose ACKSobre was lost and learnt from ws_consultas: its verdicts say so.
    const recovered = env.recoveredAt !== null;
    const referencia = `sobre:${envelopeId} IDReceptor:${env.idReceptor}${recovered ? ' recuperacion:EFACCONSULTARENVIOSCFE' : ''}`;
    const via = recovered ? ' (veredicto obtenido tras consulta de recuperación a DGI)' : '';
    const decided: { cfe: LockedCfe; decision: StateDecision<CfeState> }[] = [];
    let missing = 0;
    for (const cfe of cfes) {
      if (cfe.estado !== 'sobre_recibido') continue;
      const detalle = findAckCfeDetalle(ack, { tipoCfe: cfe.tipoCfe, serie: cfe.serie, nro: cfe.numero });
      if (!detalle) {
        missing++;
        continue;
      }
      try {
        const decision = applyAckCfe(cfe.estado, detalle);
        if (decision.changed) decided.push({ cfe, decision });
      } catch (err) {
        if (!(err instanceof CfeStateError)) throw err;
      }
    }
    const written = await deps.states.applyDgiStateChanges(tx, decided.map(({ cfe, decision }) => ({
      issuedCfeId: cfe.id, companyId: cfe.companyId, from: cfe.estado as CfeState, to: decision.state,
      codigo: decision.motivos[0]?.Motivo ?? (decision.state === 'aceptado' ? 'AE' : null), motivos: decision.motivos,
      mensaje: (mensajeOf(decision.motivos) ?? (decision.state === 'aceptado' ? 'Comprobante aceptado por DGI' : '')) + via || null, referencia,
    })));
    const writtenIds = new Set(written.map((w) => w.issuedCfeId));
    for (const { cfe, decision } of decided) {
      if (!writtenIds.has(cfe.id)) continue;
      // CFCs (contingency, no CAE range row) are only ever observed, never voided (BRIEF 6).
      if (decision.numberVoided && cfe.caeRangeId !== null) {
        await deps.voidNumber(tx, { companyId: cfe.companyId, caeRangeId: cfe.caeRangeId, tipoCfe: cfe.tipoCfe, serie: cfe.serie, numero: cfe.numero });
      }
      if (decision.event === 'Cfe.RechazadoDgi' || decision.event === 'Cfe.ObservadoDgi') {
        await deps.recordEvent(tx, {
          type: decision.event, companyId: cfe.companyId,
          resource: {
            idCfeEmitido: cfe.id, idEmpresa: cfe.companyId, tipoCfe: cfe.tipoCfe, serie: cfe.serie, numero: cfe.numero, fechaEmision: cfe.fechaEmision,
            estado: decision.state, numeroAnulado: decision.numberVoided,
            motivos: decision.motivos.map((m) => ({ codigo: m.Motivo, glosa: m.Glosa, detalle: m.Detalle })),
            sobre: { id: envelopeId, idEmisor: env.idEmisor, idReceptor: env.idReceptor },
          },
        });
      }
    }
    if (missing > 0) return 'incompleto';
    await repo.updateEnvelope(tx, envelopeId, { estado: 'procesado', ackCfeXml: ack.xml, processedAt: new Date(), nextAttemptAt: null, errorCodigo: null, errorMensaje: null });
    return 'procesado';
  });
}

/** Envelope states in which DGI's record of the envelope is unknown to us and may be asked for. */
export const RECOVERABLE_ENVELOPE_STATES: ReadonlySet<string> = new Set(['duplicado', 'error', 'creado']);

/**
 * What ws_consultas said DGI holds of our envelope (issue 29), applied as its lost ACKSobre would
 * have been: AS → envelope `recibido` with DGI's IdReceptor/Token, CFEs `sobre_recibido`, poll
 * scheduled (the verdicts then come from ACKCFE); BS/BA → envelope `rechazado`, CFEs
 * `sobre_rechazado`. History rows name the recovery query.
 */
export async function applyRecoveredEnvelope(deps: OutcomeDeps, db: Db, envelopeId: number, datos: DatosSobre, pollAt: (fechahora: string | null) => Date): Promise<string> {
  return db.transaction(async (tx) => {
    const env = await repo.lockEnvelope(tx, envelopeId);
    if (!env || !RECOVERABLE_ENVELOPE_STATES.has(env.estado)) return 'skipped';
    const cfes = await deps.states.lockCfesForState(tx, await repo.envelopeItems(tx, envelopeId));
    const referencia = `sobre:${envelopeId} IDReceptor:${datos.IdReceptor} recuperacion:EFACCONSULTARENVIOSCFE`;
    const common = { idReceptor: datos.IdReceptor, recoveredAt: new Date(), leaseUntil: null, nextAttemptAt: null, errorCodigo: null, errorMensaje: null };
    if (datos.EstadoSobre === 'AS' && datos.ParamConsulta) {
      const consultarDesde = pollAt(datos.ParamConsulta.Fechahora || null);
      await repo.updateEnvelope(tx, envelopeId, { ...common, estado: 'recibido', ackEstado: 'AS', token: datos.ParamConsulta.Token, consultarDesde, pollAttempts: 0 });
      await deps.states.applyDgiStateChanges(tx, cfes.filter((c) => c.estado === 'en_cola_dgi').map((c) => ({
        issuedCfeId: c.id, companyId: c.companyId, from: 'en_cola_dgi' as const, to: 'sobre_recibido' as const, codigo: 'AS', referencia,
        mensaje: 'Sobre recibido por DGI (respuesta perdida; confirmado por consulta de recuperación EFACCONSULTARENVIOSCFE)',
      })));
      await enqueuePoll(tx, envelopeId, consultarDesde);
      return 'recibido';
    }
    await repo.updateEnvelope(tx, envelopeId, { ...common, estado: 'rechazado', ackEstado: datos.EstadoSobre.slice(0, 2), errorCodigo: datos.EstadoSobre.slice(0, 20) });
    await repo.markItemsDead(tx, envelopeId);
    await deps.states.applyDgiStateChanges(tx, cfes.filter((c) => c.estado === 'en_cola_dgi').map((c) => ({
      issuedCfeId: c.id, companyId: c.companyId, from: 'en_cola_dgi' as const, to: 'sobre_rechazado' as const, codigo: datos.EstadoSobre, referencia,
      mensaje: `Sobre rechazado por DGI (${datos.EstadoSobre}; según consulta de recuperación EFACCONSULTARENVIOSCFE)`,
    })));
    return 'rechazado';
  });
}
