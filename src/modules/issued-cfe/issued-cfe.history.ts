/**
 * State changes of issued CFEs and their history (issue 6 point 1). The state table and the
 * decisions live in emission/cfe-states.ts; this file only writes and reads them: every change
 * updates `issued_cfes.estado` and appends one `issued_cfe_state_history` row in the caller's
 * transaction. Emission writes no history row: `firmado` is the row itself (firmadoEn).
 */
import { asc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { canTransition, type CfeState } from '../emission/cfe-states.js';
import type { Motivo } from '../dgi/dgi.client.js';
import { issuedCfeStateHistory, issuedCfes } from './issued-cfe.tables.js';

export interface DgiStateChange {
  issuedCfeId: number;
  companyId: number;
  from: CfeState;
  to: CfeState;
  /** DGI's code of the change: AS/BS/AE/BE/CE, or the first S/E/C motive. */
  codigo?: string | null;
  motivos?: Motivo[];
  mensaje?: string | null;
  /** Where it came from, e.g. `sobre:12` (dgi_envelopes.id). */
  referencia?: string | null;
  userId?: number | null;
  motivo?: string | null;
}

/** The CFE columns the DGI round trip needs, locked for the caller's transaction. */
export async function lockCfesForState(tx: DbOrTx, ids: number[]) {
  if (ids.length === 0) return [];
  return tx
    .select({
      id: issuedCfes.id, companyId: issuedCfes.companyId, estado: issuedCfes.estado, tipoCfe: issuedCfes.tipoCfe,
      serie: issuedCfes.serie, numero: issuedCfes.numero, caeRangeId: issuedCfes.caeRangeId, fechaEmision: issuedCfes.fechaEmision,
    })
    .from(issuedCfes)
    .where(inArray(issuedCfes.id, ids))
    .orderBy(asc(issuedCfes.id))
    .for('update');
}

/**
 * Applies DGI-side changes: the CFE must still be in `from` (a concurrent change wins and this one
 * is skipped). Returns the changes actually written.
 * One statement per (from, to): the UPDATE and the history rows of the CFEs it changed, the rows
 * read from one JSON parameter. An envelope's change touches up to 250 CFEs three times in its
 * life; drizzle's multi-row INSERT built a parameter per column of each history row (~12 per CFE),
 * ~4.6 % of the embedded default's main thread under load (issue 29 point 3), and cost a round trip.
 */
export async function applyDgiStateChanges(tx: DbOrTx, changes: DgiStateChange[]): Promise<DgiStateChange[]> {
  const written: DgiStateChange[] = [];
  const groups = new Map<string, DgiStateChange[]>();
  for (const c of changes) {
    if (!canTransition(c.from, c.to)) throw new Error(`Transition ${c.from} → ${c.to} is not allowed`);
    const key = `${c.from}>${c.to}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  for (const group of groups.values()) {
    const { from, to } = group[0];
    const ids = `{${group.map((c) => Math.trunc(c.issuedCfeId)).join(',')}}`;
    const rows = JSON.stringify(group.map((c) => ({
      issuedCfeId: c.issuedCfeId, companyId: c.companyId, codigo: c.codigo ?? null,
      motivos: c.motivos?.length ? c.motivos.map((m) => ({ codigo: m.Motivo, glosa: m.Glosa, detalle: m.Detalle })) : null,
      mensaje: c.mensaje ?? null, referencia: c.referencia ?? null, userId: c.userId ?? null, motivo: c.motivo ?? null,
    })));
    const updated = await tx.execute<{ id: string | number }>(sql`
      with upd as (
        update issued_cfes set estado = ${to}, estado_actualizado_en = now()
        where id = any(${ids}::bigint[]) and estado = ${from}
        returning id
      ), history as (
        insert into issued_cfe_state_history (issued_cfe_id, company_id, lado, estado_anterior, estado, codigo, motivos, mensaje, referencia, user_id, motivo)
        select i."issuedCfeId", i."companyId", 'dgi', ${from}, ${to}, i.codigo, i.motivos, i.mensaje, i.referencia, i."userId", i.motivo
        from json_to_recordset(${rows}::json) as i("issuedCfeId" bigint, "companyId" integer, codigo varchar(10), motivos jsonb, mensaje text, referencia text, "userId" integer, motivo text)
        join upd on upd.id = i."issuedCfeId"
      )
      select id from upd`);
    const done = new Set(updated.rows.map((r: { id: string | number }) => Number(r.id)));
    written.push(...group.filter((c) => done.has(c.issuedCfeId)));
  }
  return written;
}

/**
 * Receiver-side change (BRIEF 8): `estado_receptor` and one history row (lado `receptor`) in the
 * caller's transaction. The caller decided the transition (cfe-states.ts RECEPTOR_TRANSITIONS).
 */
export async function applyReceptorStateChange(
  tx: DbOrTx,
  cfe: { id: number; companyId: number; estadoReceptor: string | null },
  estado: string,
  h: { codigo?: string | null; motivos?: unknown; mensaje?: string; referencia: string; userId?: number },
): Promise<void> {
  const at = new Date();
  await tx.update(issuedCfes).set({ estadoReceptor: estado, estadoActualizadoEn: at }).where(eq(issuedCfes.id, cfe.id));
  await tx.insert(issuedCfeStateHistory).values({
    issuedCfeId: cfe.id, companyId: cfe.companyId, lado: 'receptor', estadoAnterior: cfe.estadoReceptor, estado,
    codigo: h.codigo ?? null, motivos: h.motivos ?? null, mensaje: h.mensaje ?? null, referencia: h.referencia, userId: h.userId ?? null, at,
  });
}

/**
 * A receiver-side history entry that changes no state (issue 42 point 2): what happened to the
 * mail that carried the CFE (sent, written to the outbox, failed and why). estado = estadoAnterior.
 */
export async function recordReceptorNote(
  tx: DbOrTx,
  cfeIds: number[],
  h: { mensaje: string; referencia: string; codigo?: string | null },
): Promise<void> {
  if (cfeIds.length === 0) return;
  const rows = await tx.select({ id: issuedCfes.id, companyId: issuedCfes.companyId, estadoReceptor: issuedCfes.estadoReceptor }).from(issuedCfes).where(inArray(issuedCfes.id, cfeIds));
  if (rows.length === 0) return;
  const at = new Date();
  await tx.insert(issuedCfeStateHistory).values(rows.map((r) => ({
    issuedCfeId: r.id, companyId: r.companyId, lado: 'receptor', estadoAnterior: r.estadoReceptor, estado: r.estadoReceptor ?? 'sin_envio',
    codigo: h.codigo ?? null, motivos: null, mensaje: h.mensaje, referencia: h.referencia, userId: null, at,
  })));
}

/** The history of one CFE, oldest first, with the implicit `firmado` entry at signing time. */
export async function listStateHistory(db: DbOrTx, issuedCfeId: number) {
  const [cfe] = await db.select({ firmadoEn: issuedCfes.firmadoEn }).from(issuedCfes).where(eq(issuedCfes.id, issuedCfeId));
  if (!cfe) return [];
  const rows = await db.select().from(issuedCfeStateHistory).where(eq(issuedCfeStateHistory.issuedCfeId, issuedCfeId)).orderBy(asc(issuedCfeStateHistory.id));
  return [
    { lado: 'dgi', estadoAnterior: null, estado: 'firmado', codigo: null, motivos: null, mensaje: null, referencia: null, idUsuario: null, motivo: null, fecha: cfe.firmadoEn.toISOString() },
    ...rows.map((r) => ({
      lado: r.lado, estadoAnterior: r.estadoAnterior, estado: r.estado, codigo: r.codigo,
      motivos: r.motivos as { codigo: string; glosa: string; detalle: string | null }[] | null,
      mensaje: r.mensaje, referencia: r.referencia, idUsuario: r.userId, motivo: r.motivo, fecha: r.at.toISOString(),
    })),
  ];
}

export type StateHistoryEntry = Awaited<ReturnType<typeof listStateHistory>>[number];
