/**
 * Pure rules of the DGI submission worker: envelope states, retry backoff, when to poll, and which
 * CFE types go individually to DGI (BRIEF 1).
 */

/**
 * Our envelope states:
 *   creado     built and committed with its items; not yet answered (sent 0..n times)
 *   recibido   ACKSobre AS: waiting for EFACCONSULTARESTADOENVIO
 *   procesado  ACKCFE applied to every CFE
 *   rechazado  ACKSobre BS/BA (S-codes): its CFEs are `sobre_rechazado` and may go in a new envelope
 *   duplicado  ACKSobre S08 / fault 108: DGI already has this Idemisor (a send whose answer we lost);
 *              its CFEs stay `en_cola_dgi` and are never put in another envelope
 *   error      a permanent failure or retries exhausted (errorCodigo/errorMensaje say why)
 */
export const ENVELOPE_STATES = ['creado', 'recibido', 'procesado', 'rechazado', 'duplicado', 'error'] as const;
export type EnvelopeState = (typeof ENVELOPE_STATES)[number];

export const ENVIO_INDIVIDUAL_MODES = ['todos', 'obligatorios'] as const;
export type EnvioIndividualMode = (typeof ENVIO_INDIVIDUAL_MODES)[number];

/**
 * e-Ticket family (101-103, 131-133): below 5,000 UI they go only in the daily report when the
 * company chooses 'obligatorios' (BRIEF 1, FSOB §1). Every other CFE, and every CFC (2xx, sent after
 * the contingency ends), must be sent individually.
 */
export const TICKET_TYPES: readonly number[] = [101, 102, 103, 131, 132, 133];

/** Σ(A-C112..A-C118) in UYU, the amount compared with the 5,000 UI threshold (BRIEF 1). */
export const NET_AMOUNT_FIELDS = ['MntNoGrv', 'MntExpoyAsim', 'MntImpuestoPerc', 'MntIVaenSusp', 'MntNetoIvaTasaMin', 'MntNetoIVATasaBasica', 'MntNetoIVAOtra'] as const;

/**
 * DGI states of the CFEs a new envelope built on request (generarSobreDgi) refuses, because
 * sending them again makes no sense:
 * - `rechazado`: annulled, "no pudiendo volver a utilizarse" (BRIEF 10); DGI answers E01 (or E02/E09
 *   again for the two codes that do not void);
 * - `aceptado`, `aceptado_manual`: DGI has it; a second copy is a duplicate (E02, BRIEF 6);
 * - `sobre_recibido`: DGI received its envelope (ACKSobre AS) and the result comes by polling that
 *   envelope; a second copy is E02.
 * Allowed: `firmado`, `en_cola_dgi` (an envelope may be stuck in `error` or `duplicado`: the portal
 * upload is the way out), `sobre_rechazado` (DGI never processed it), `observado` (a corrected CFC
 * is resent, BRIEF 6 "CFC observations").
 */
export const ANNULLED_STATES: readonly string[] = ['rechazado'];
export const AT_DGI_STATES: readonly string[] = ['aceptado', 'aceptado_manual', 'sobre_recibido'];

/** The CFEs that must not go into a new envelope, split by reason. */
export function notResendable<T extends { estado: string }>(cfes: readonly T[]) {
  return { anulados: cfes.filter((c) => ANNULLED_STATES.includes(c.estado)), enDgi: cfes.filter((c) => AT_DGI_STATES.includes(c.estado)) };
}

export interface RetrySettings {
  baseDelayMs: number;
  maxDelayMs: number;
  maxAttempts: number;
}

/** Exponential backoff with full cap: base·2^(attempt-1), at most maxDelayMs; `null` = give up. */
export function retryDelayMs(attempt: number, s: RetrySettings): number | null {
  if (attempt >= s.maxAttempts) return null;
  return Math.min(s.maxDelayMs, s.baseDelayMs * 2 ** Math.max(0, attempt - 1));
}

/**
 * When to call EFACCONSULTARESTADOENVIO: at DGI's Fechahora ("a partir de la cual se puede consultar",
 * BRIEF 6), never earlier than now and never later than now + cap (a wrong clock on either side must
 * not park an envelope for days). An unparseable Fechahora means "now".
 */
export function pollAt(fechahora: string | null | undefined, now: Date, capMs: number): Date {
  const t = fechahora ? Date.parse(fechahora) : NaN;
  if (Number.isNaN(t)) return now;
  return new Date(Math.min(Math.max(t, now.getTime()), now.getTime() + capMs));
}

/** Caratula/Fecha (FechaHoraType with offset): Uruguay has a fixed -03:00 offset since 2015. */
export function uyFechaHora(d: Date): string {
  return `${new Date(d.getTime() - 3 * 3600_000).toISOString().slice(0, 19)}-03:00`;
}
