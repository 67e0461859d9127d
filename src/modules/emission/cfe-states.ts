/**
 * States of an issued CFE towards DGI and towards an electronic receiver (issue 6 point 1), the
 * allowed transitions as one table, and pure decision functions that turn a parsed DGI ACK
 * (src/modules/dgi/dgi.acks.ts) into the next state, whether the number is voided, and the event.
 *
 * DGI side (BRIEF 6, FMR v19):
 *   firmado → en_cola_dgi → sobre_recibido (ACKSobre AS) | sobre_rechazado (BS/BA, S-codes)
 *   sobre_recibido → aceptado (AE) | rechazado (BE, E-codes) | observado (CE, CFC only)
 *   any DGI-pending state → aceptado_manual (manual mark; the caller audits it)
 *   sobre_rechazado → en_cola_dgi (the CFEs were not processed: resend them in a new envelope)
 *   observado → en_cola_dgi (a CFC is corrected and resent, BRIEF 6 "CFC observations")
 * A BE voids the number ("todo CFE rechazado por DGI debe anularse"), except E02 (already in DGI's
 * records: the original was received) and E09 (RUC/type do not match the CAE: not our number).
 * Receiver side (BRIEF 8) is tracked separately; a receiver's BE never voids (NC/ND instead).
 */
import type { AckCfe, AckCfeDetalle, AckSobre, Motivo } from '../dgi/dgi.client.ts';

export const CFE_STATES = [
  'firmado',
  'en_cola_dgi',
  'sobre_recibido',
  'sobre_rechazado',
  'aceptado',
  'rechazado',
  'observado',
  'aceptado_manual',
] as const;
export type CfeState = (typeof CFE_STATES)[number];

export const RECEPTOR_STATES = ['receptor_pendiente', 'receptor_aceptado', 'receptor_rechazado', 'receptor_observado'] as const;
export type ReceptorState = (typeof RECEPTOR_STATES)[number];

/** States still waiting for a DGI outcome: the ones a user may mark as accepted by hand. */
export const DGI_PENDING_STATES: ReadonlySet<CfeState> = new Set(['firmado', 'en_cola_dgi', 'sobre_recibido', 'sobre_rechazado']);

export const CFE_TRANSITIONS: Readonly<Record<CfeState, readonly CfeState[]>> = {
  firmado: ['en_cola_dgi', 'aceptado_manual'],
  en_cola_dgi: ['sobre_recibido', 'sobre_rechazado', 'aceptado_manual'],
  sobre_recibido: ['aceptado', 'rechazado', 'observado', 'aceptado_manual'],
  sobre_rechazado: ['en_cola_dgi', 'aceptado_manual'],
  aceptado: [],
  rechazado: [],
  observado: ['en_cola_dgi'],
  aceptado_manual: [],
};

export const RECEPTOR_TRANSITIONS: Readonly<Record<ReceptorState, readonly ReceptorState[]>> = {
  receptor_pendiente: ['receptor_aceptado', 'receptor_rechazado', 'receptor_observado'],
  // The receiver's per-CFE answer may come in several messages (BRIEF 8).
  receptor_observado: ['receptor_aceptado', 'receptor_rechazado'],
  receptor_aceptado: [],
  receptor_rechazado: [],
};

export function canTransition(from: CfeState, to: CfeState): boolean {
  return CFE_TRANSITIONS[from]?.includes(to) ?? false;
}

export function canTransitionReceptor(from: ReceptorState, to: ReceptorState): boolean {
  return RECEPTOR_TRANSITIONS[from]?.includes(to) ?? false;
}

/** Event names from the catalogue (src/modules/events/events.catalogue.ts). */
export type CfeStateEvent = 'Cfe.RechazadoDgi' | 'Cfe.ObservadoDgi' | 'Cfe.RechazadoReceptor' | 'Cfe.ObservadoReceptor';

export interface StateDecision<S extends string> {
  state: S;
  /** false when the ACK only repeats the current state (replayed job): write nothing, emit nothing. */
  changed: boolean;
  /** The number can never be used again and goes to the daily report's RngDocsAnulados. */
  numberVoided: boolean;
  event: CfeStateEvent | null;
  motivos: Motivo[];
}

export class CfeStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CfeStateError';
  }
}

/** BE motives that do NOT void the number (BRIEF 6 "After a rejection"; FMR §1). */
export const NON_VOIDING_REJECTIONS: ReadonlySet<string> = new Set(['E02', 'E09']);

function decide<S extends string>(
  current: S,
  next: S,
  allowed: (from: S, to: S) => boolean,
  rest: Omit<StateDecision<S>, 'state' | 'changed'>,
): StateDecision<S> {
  if (current === next) return { state: current, changed: false, numberVoided: false, event: null, motivos: rest.motivos };
  if (!allowed(current, next)) throw new CfeStateError(`Transition ${current} → ${next} is not allowed`);
  return { state: next, changed: true, ...rest };
}

/** ACKSobre (first DGI answer): AS → sobre_recibido; BS/BA → sobre_rechazado. No event, no voiding. */
export function applyAckSobre(current: CfeState, ack: Pick<AckSobre, 'Estado' | 'motivos'>): StateDecision<CfeState> {
  const next: CfeState = ack.Estado === 'AS' ? 'sobre_recibido' : 'sobre_rechazado';
  return decide(current, next, canTransition, { numberVoided: false, event: null, motivos: ack.motivos });
}

const isCfc = (tipoCfe: string | number | null): boolean => tipoCfe !== null && /^2\d\d$/.test(String(tipoCfe));

/**
 * ACKCFE_Det of one CFE (second DGI answer): AE → aceptado; BE → rechazado (voided unless E02/E09),
 * event Cfe.RechazadoDgi; CE → observado, CFC (2xx) only, event Cfe.ObservadoDgi.
 * FE ("Comprobante Reliquidado", XSD only, undocumented) is refused rather than guessed.
 */
export function applyAckCfe(current: CfeState, detalle: Pick<AckCfeDetalle, 'Estado' | 'motivos' | 'TipoCFE'>): StateDecision<CfeState> {
  const { motivos } = detalle;
  switch (detalle.Estado) {
    case 'AE':
      return decide(current, 'aceptado', canTransition, { numberVoided: false, event: null, motivos });
    case 'BE': {
      const voided = !motivos.some((m) => NON_VOIDING_REJECTIONS.has(m.Motivo));
      return decide(current, 'rechazado', canTransition, { numberVoided: voided, event: 'Cfe.RechazadoDgi', motivos });
    }
    case 'CE':
      if (!isCfc(detalle.TipoCFE)) throw new CfeStateError(`DGI observed (CE) a non-contingency CFE of type ${detalle.TipoCFE}`);
      return decide(current, 'observado', canTransition, { numberVoided: false, event: 'Cfe.ObservadoDgi', motivos });
    default:
      throw new CfeStateError(`ACKCFE Estado ${detalle.Estado} is not handled (FE "Comprobante Reliquidado" is undocumented)`);
  }
}

/** The ACKCFE_Det for one CFE, matched by type, serie and number (Nro_ordinal is envelope-relative). */
export function findAckCfeDetalle(ack: Pick<AckCfe, 'detalles'>, cfe: { tipoCfe: number | string; serie: string; nro: number | string }): AckCfeDetalle | undefined {
  return ack.detalles.find((d) => d.TipoCFE === String(cfe.tipoCfe) && d.Serie === cfe.serie && d.NroCFE === String(cfe.nro));
}

/** Manual acceptance (audited by the caller): only from a DGI-pending state. */
export function markAceptadoManual(current: CfeState): StateDecision<CfeState> {
  if (!DGI_PENDING_STATES.has(current)) throw new CfeStateError(`A CFE in state ${current} cannot be marked accepted by hand`);
  return decide(current, 'aceptado_manual', canTransition, { numberVoided: false, event: null, motivos: [] });
}

/**
 * The receiver's per-CFE answer (ACKCFE per ACKCFE_Partes.xsd: AE/BE; CE kept for the spec's
 * Cfe.ObservadoReceptor event). A receiver's rejection never voids: the issuer corrects with NC/ND.
 */
export function applyReceptorAckCfe(current: ReceptorState, detalle: Pick<AckCfeDetalle, 'Estado' | 'motivos'>): StateDecision<ReceptorState> {
  const { motivos } = detalle;
  switch (detalle.Estado) {
    case 'AE':
      return decide(current, 'receptor_aceptado', canTransitionReceptor, { numberVoided: false, event: null, motivos });
    case 'BE':
      return decide(current, 'receptor_rechazado', canTransitionReceptor, { numberVoided: false, event: 'Cfe.RechazadoReceptor', motivos });
    case 'CE':
      return decide(current, 'receptor_observado', canTransitionReceptor, { numberVoided: false, event: 'Cfe.ObservadoReceptor', motivos });
    default:
      throw new CfeStateError(`Receiver ACKCFE Estado ${detalle.Estado} is not handled`);
  }
}
