/**
 * Writes of the run ledger and of the plans' position, in bulk (one statement per kind of row for a
 * whole claiming batch: 10,000 plans due at once are claimed in a few dozen statements).
 */
import type { DbOrTx } from '../../platform/db/client.js';
import type { RecordEventInput } from '../events/events.service.js';
import * as repo from './recurring.repository.js';
import { localDate, period, withinEnd, type Period } from './recurring.schedule.js';
import type { PlanState } from './recurring.states.js';
import type { PlanRow, RunRow } from './recurring.tables.js';
import { emissionRequest, runKey, scheduleOf } from './recurring.view.js';

export function stateEvent(p: Pick<PlanRow, 'id' | 'companyId' | 'estado' | 'version'>, from: PlanState, accion: string): RecordEventInput {
  return { type: 'PlanRecurrente.EstadoCambiado', companyId: p.companyId, resource: { idPlan: p.id, estadoAnterior: from, estado: p.estado, accion, version: p.version } };
}

export interface RunWork {
  /** The plan, locked by the caller. */
  p: PlanRow;
  /** Each entry is one CFE (one period, or several folded by emitir_uno). */
  emit: Period[][];
  /** Periods recorded as omitido. */
  skip: Period[];
  origen: 'programada' | 'manual' | 'pausa';
  motivoSkip: string;
}

/**
 * Writes the run rows of the given plans and returns the new rows to issue. The request of each
 * CFE is frozen here (fechaEmision = the local date now), with the run key as Idempotency-Key; a
 * key that already exists (another scheduler wrote it) is left alone and not returned.
 */
export async function writeRuns(tx: DbOrTx, items: RunWork[], now: Date): Promise<RunRow[]> {
  const rows: repo.NewRun[] = [];
  const mains: repo.NewRun[] = [];
  const groups = new Map<string, { it: RunWork; group: Period[] }>();
  for (const it of items) {
    const { p } = it;
    const d = p.definicion;
    const base = { planId: p.id, companyId: p.companyId, version: p.version, origen: it.origen };
    for (const x of it.skip) rows.push({ ...base, periodIndex: x.k, periodoDesde: x.desde, periodoHasta: x.hasta, programadaPara: x.programadaPara, resultado: 'omitido', motivo: it.motivoSkip, ejecutadaEn: now });
    const fecha = it.emit.length ? localDate(now, d.zonaHoraria) : '';
    for (const group of it.emit) {
      const first = group[0];
      const last = group[group.length - 1];
      groups.set(`${p.id}|${first.desde}`, { it, group });
      mains.push({
        ...base, periodIndex: first.k, periodoDesde: first.desde, periodoHasta: last.hasta, periodos: group.length, programadaPara: last.programadaPara,
        resultado: 'pendiente', proximoIntento: now, idempotencyKey: runKey(p.id, first.desde), request: emissionRequest(p.companyId, d, group, fecha),
        correo: d.envioEmail.activo ? { destinatarios: d.envioEmail.destinatarios } : null,
      });
    }
  }
  const inserted = await repo.insertRuns(tx, mains);
  for (const main of inserted) {
    const { it, group } = groups.get(`${main.planId}|${main.periodoDesde}`)!;
    for (const x of group.slice(1)) {
      rows.push({
        planId: it.p.id, companyId: it.p.companyId, version: it.p.version, origen: it.origen, periodIndex: x.k, periodoDesde: x.desde, periodoHasta: x.hasta,
        programadaPara: x.programadaPara, resultado: 'acumulado', acumuladaEn: main.id, motivo: `Facturado en la ejecución del período ${main.periodoDesde} (politicaAtrasos emitir_uno).`,
      });
    }
  }
  await repo.insertRuns(tx, rows);
  return inserted;
}

/** Moves plans to their next index: its run time, or `finalizado` past the end (with its event). */
export async function movePlans(tx: DbOrTx, moves: Array<{ p: PlanRow; next: number }>, events: RecordEventInput[], accion: string): Promise<void> {
  const values = moves.map(({ p, next }) => {
    const s = scheduleOf(p.definicion);
    const ended = !withinEnd(s, next);
    const estado: PlanState = ended ? 'finalizado' : p.estado;
    if (ended) events.push(stateEvent({ ...p, estado }, p.estado, accion));
    return { id: p.id, nextIndex: next, nextRunAt: ended || p.estado !== 'activo' ? null : period(s, next).programadaPara, estado };
  });
  await repo.movePlans(tx, values);
}

export async function moveTo(tx: DbOrTx, p: PlanRow, next: number, events: RecordEventInput[], accion: string): Promise<PlanRow> {
  await movePlans(tx, [{ p, next }], events, accion);
  return (await repo.findPlan(tx, p.id))!;
}
