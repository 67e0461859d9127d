/**
 * The company's decision on received CFEs (issue 30 point 5; BRIEF 8): accept (ACKCFE AE) or reject
 * with a motive (BE: E20-E26 commercial with DGI's names, E27-E60 agreed between the parties with the
 * company's glosa; E02-E07 and E10-E12 are also allowed). One transaction: each id gets its own
 * result (never a top-level success over failed items), the decided rows, history, events, and one
 * signed ACKCFE per envelope with its mail job. A receiver's BE does not void the CFE (Res. 798/2012
 * num. 12): the issuer corrects it with a note.
 */
import type { DbOrTx } from '../../platform/db/client.js';
import { buildAckCfe, CFE_MOTIVES, isAgreedMotive } from './received-cfe.answers.js';
import { receivedErrors as E } from './received-cfe.errors.js';
import { caratulaOf, cfeAnswerOf, storeAnswer, type IntakePorts } from './received-cfe.intake.js';
import * as repo from './received-cfe.repository.js';
import type { Motive, ReceivedCfeRow } from './received-cfe.tables.js';
import { receivedCfeView } from './received-cfe.view.js';

export type Decision = 'aceptar' | 'rechazar';
/** Per id: hecho (decided now), ya_decidido (the same decision was already made), no_permitido (state does not allow it), no_encontrado. */
export type ItemResult = { id: number; resultado: 'hecho' | 'ya_decidido' | 'no_permitido' | 'no_encontrado'; estado?: string; mensaje?: string };

export interface DecisionPorts extends Pick<IntakePorts, 'signingContext' | 'queueAnswerMail'> {
  recordEvents(tx: DbOrTx, events: Array<{ type: 'CfeRecibido.Aceptado' | 'CfeRecibido.Rechazado'; companyId: number; resource: Record<string, unknown> }>): Promise<void>;
}

/** Validates a rejection motive against DGI's table; 422 for anything else (never silently mapped). */
export function rejectionMotive(m: { codigo: string; glosa?: string; detalle?: string }): Motive {
  const codigo = m.codigo.trim().toUpperCase();
  if (isAgreedMotive(codigo)) {
    if (!m.glosa?.trim()) throw E.MOTIVO_RECHAZO_SIN_GLOSA(`El motivo ${codigo} se acuerda entre las partes: indique glosa (hasta 50 caracteres).`);
    return { codigo, glosa: m.glosa.trim(), detalle: m.detalle ?? null };
  }
  const glosa = CFE_MOTIVES[codigo];
  if (!glosa) throw E.MOTIVO_RECHAZO_INVALIDO(`Motivo ${m.codigo} desconocido. Use E02-E07, E10-E12, E20-E26 (con su nombre de DGI) o E27-E60 (con su glosa).`);
  return { codigo, glosa, detalle: m.detalle ?? null };
}

const TARGET: Record<Decision, 'aceptado' | 'rechazado'> = { aceptar: 'aceptado', rechazar: 'rechazado' };

function resultFor(row: ReceivedCfeRow | undefined, id: number, decision: Decision): ItemResult | undefined {
  if (!row) return { id, resultado: 'no_encontrado', mensaje: 'El CFE recibido no existe en la empresa.' };
  if (row.estado === TARGET[decision]) return { id, resultado: 'ya_decidido', estado: row.estado };
  if (row.estado !== 'pendiente') return { id, resultado: 'no_permitido', estado: row.estado, mensaje: `Un CFE en estado ${row.estado} no admite ${decision}; solo los pendientes de decisión.` };
  return undefined;
}

export async function decide(
  tx: DbOrTx, ports: DecisionPorts, companyId: number, companyRut: string, userId: number, ids: number[], decision: Decision, motive?: Motive,
): Promise<ItemResult[]> {
  const unique = [...new Set(ids)];
  const rows = new Map((await repo.lockCfes(tx, companyId, unique)).map((r) => [r.id, r]));
  const results: ItemResult[] = [];
  const done: ReceivedCfeRow[] = [];
  const now = new Date();
  for (const id of unique) {
    const row = rows.get(id);
    const refused = resultFor(row, id, decision);
    if (refused) {
      results.push(refused);
      continue;
    }
    const changes = { estado: TARGET[decision], motivos: motive ? [motive] : [], decididoEn: now, decididoPor: userId };
    await repo.updateCfe(tx, id, changes);
    done.push({ ...row!, ...changes });
    results.push({ id, resultado: 'hecho', estado: changes.estado });
  }
  await repo.insertHistory(tx, done.map((r) => ({ receivedCfeId: r.id, companyId, estado: r.estado, motivos: r.motivos.length ? r.motivos : null, userId, mensaje: decision === 'aceptar' ? 'Aceptado por la empresa' : 'Rechazado por la empresa' })));
  await ports.recordEvents(tx, done.map((r) => ({ type: decision === 'aceptar' ? 'CfeRecibido.Aceptado' as const : 'CfeRecibido.Rechazado' as const, companyId, resource: receivedCfeView(r) })));

  // One ACKCFE per envelope (BRIEF 8: the per-CFE answer may be split across several messages).
  const byEnvelope = new Map<number, ReceivedCfeRow[]>();
  for (const r of done) if (r.envelopeId) byEnvelope.set(r.envelopeId, [...(byEnvelope.get(r.envelopeId) ?? []), r]);
  for (const [envelopeId, list] of byEnvelope) {
    const env = (await repo.findEnvelope(tx, envelopeId))!;
    const answerId = await storeAnswer(tx, ports, env, companyRut, (id, nomArch, tmst) => ({
      tipo: 'ACKCFE',
      xml: buildAckCfe({ ...caratulaOf(env, companyRut, id, nomArch, tmst), cantEnSobre: env.cantCfe ?? list.length }, list.map((r) => cfeAnswerOf(r, decision === 'aceptar' ? 'AE' : 'BE', r.motivos))),
    }));
    await repo.setAnswer(tx, list.map((r) => r.id), answerId);
  }
  return results;
}
