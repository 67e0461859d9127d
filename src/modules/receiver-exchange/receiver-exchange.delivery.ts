/**
 * Which issued CFEs may go to an electronic receiver, by their DGI state (`estado`, emission/cfe-states.ts).
 *
 * BRIEF 1 (FSOB §1): each CFE "must be sent to DGI *before* it goes to the electronic receiver";
 * there is no need to wait for DGI's authorisation. So a CFE is delivered once DGI has it:
 * - `sobre_recibido`: ACKSobre AS, DGI received the envelope (BRIEF 6 step 1);
 * - `aceptado`: ACKCFE AE;
 * - `aceptado_manual`: accepted through DGI's portal and marked by hand (marcar-aceptado).
 * Never:
 * - `firmado`, `en_cola_dgi`: DGI has not received it yet (not sent, or sending / DGI unreachable);
 * - `sobre_rechazado`: DGI refused the envelope (BS/BA), so it never received the CFE; it goes again
 *   in a new envelope and is delivered after that one is received;
 * - `rechazado`: ACKCFE BE. The number is annulled and can never be used (BRIEF 10), so the CFE is
 *   not a valid document and is never handed to the receiver as one (BRIEF 8);
 * - `observado`: CE, contingency CFCs only, which never go to receivers (BRIEF 5, 10).
 */
import type { CfeState } from '../emission/index.js';

export const RECEIVER_DELIVERABLE_STATES: readonly CfeState[] = ['sobre_recibido', 'aceptado', 'aceptado_manual'];

/** The CFEs of a would-be envelope that must not go to the receiver: annulled by DGI, or not at DGI yet. */
export function undeliverable<T extends { estado: string }>(cfes: readonly T[]) {
  const rechazados = cfes.filter((c) => c.estado === 'rechazado');
  const sinDgi = cfes.filter((c) => c.estado !== 'rechazado' && !(RECEIVER_DELIVERABLE_STATES as readonly string[]).includes(c.estado));
  return { rechazados, sinDgi };
}

/**
 * Envelopes that reached (or are on their way to) the receiver by our e-mail: their CFEs, once DGI
 * rejects them, are annulled towards the receiver with CFEs_Anulados_x_RechazoDGI (BRIEF 8).
 * Not 'generado' (only returned to the API caller: we do not know it was delivered) nor 'error'
 * (e-mail attempts used up: never delivered).
 */
export const NOTICE_ENVELOPE_STATES = ['pendiente', 'enviado', 'recibido', 'rechazado'] as const;
