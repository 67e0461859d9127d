/**
 * Contingency ranges (CFC, types 2xx; BRIEF 10, FCFE Tabla A): pre-printed paper forms the company
 * uses when it cannot issue electronically, authorized by a DGI constancia. The paper numbers are
 * later transcribed into the system; `reserveContingencyNumber` marks each one used exactly once.
 * Spread into the CAE service (`cae.altaCfc`, `cae.reserveContingencyNumber`, ...).
 */
import { isCalendarDate } from '../../lib/dates.js';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { isContingencyCode } from '../emission/cfe-types.js';
import { uyToday } from '../../lib/dates.js';
import { caeErrors } from './cae.errors.js';
import { cfcErrors } from './cfc.errors.js';
import * as repo from './cfc.repository.js';

export interface CfcInput {
  tipoCFC: number;
  serie: string;
  desde: number;
  hasta: number;
  constancia: string;
  fechaVencimiento: string;
}

export interface ContingencyNumberInput {
  companyId: number;
  tipoCfc: number;
  serie: string;
  numero: number;
  /** Date the paper CFC was issued on (YYYY-MM-DD): its range must not have expired by then. Default today. */
  fecha?: string;
}

export function cfcView(r: repo.CfcRangeRow, utilizados: number, today = uyToday()) {
  return {
    id: r.id, idEmpresa: r.companyId, tipoCFC: r.tipoCfc, serie: r.serie, desde: r.dNro, hasta: r.hNro,
    constancia: r.constancia, fechaVencimiento: r.fvd, vencido: r.fvd < today, utilizados,
  };
}

function checkInput(c: CfcInput) {
  if (!isContingencyCode(c.tipoCFC)) throw caeErrors.CFC_TIPO_INVALIDO(`El tipo ${c.tipoCFC} no es un tipo de contingencia (201, 211, 212, 213, 224, ...).`);
  if (c.desde > c.hasta) throw cfcErrors.CFC_RANGO_INVALIDO(`desde (${c.desde}) debe ser menor o igual que hasta (${c.hasta}).`);
  if (!isCalendarDate(c.fechaVencimiento)) throw cfcErrors.CFC_RANGO_INVALIDO('fechaVencimiento no es una fecha válida.');
}

async function refuseOverlap(tx: DbOrTx, companyId: number, c: CfcInput, exceptId?: number) {
  await repo.lockSeries(tx, { companyId, tipoCfc: c.tipoCFC, serie: c.serie });
  const other = await repo.findOverlap(tx, { companyId, tipoCfc: c.tipoCFC, serie: c.serie, desde: c.desde, hasta: c.hasta, exceptId });
  if (other) throw caeErrors.CFC_SUPERPUESTO(`Se superpone con el rango ${other.dNro}-${other.hNro} (id ${other.id}) del tipo ${other.tipoCfc} serie ${other.serie}.`);
}

export function createCfcFunctions(deps: { db: Db }) {
  const { db } = deps;
  return {
    /** altaCfc: registers a paper range; ranges of the same type and serie may not overlap. */
    async altaCfc(actor: Actor, input: { idEmpresa: number } & CfcInput) {
      assertCompanyRole(actor, input.idEmpresa, 'administrador');
      checkInput(input);
      return db.transaction(async (tx) => {
        await refuseOverlap(tx, input.idEmpresa, input);
        const row = await repo.insertRange(tx, {
          companyId: input.idEmpresa, tipoCfc: input.tipoCFC, serie: input.serie, dNro: input.desde, hNro: input.hasta,
          constancia: input.constancia, fvd: input.fechaVencimiento,
        });
        return cfcView(row, 0);
      });
    },

    /**
     * editarCfc: only the fields sent change. Once numbers were transcribed the type and serie are
     * fixed and the new bounds must still hold every used number (they stay tied to this range).
     */
    async editarCfc(actor: Actor, input: { idCfc: number } & Partial<CfcInput>) {
      return db.transaction(async (tx) => {
        const row = await repo.findRange(tx, input.idCfc, 'update');
        if (!row) throw caeErrors.CFC_NO_ENCONTRADO();
        assertCompanyRole(actor, row.companyId, 'administrador', () => caeErrors.CFC_NO_ENCONTRADO());
        const next: CfcInput = {
          tipoCFC: input.tipoCFC ?? row.tipoCfc, serie: input.serie ?? row.serie, desde: input.desde ?? row.dNro, hasta: input.hasta ?? row.hNro,
          constancia: input.constancia ?? row.constancia, fechaVencimiento: input.fechaVencimiento ?? row.fvd,
        };
        checkInput(next);
        const used = await repo.usedStats(tx, row.id);
        if (used.total > 0) {
          if (next.tipoCFC !== row.tipoCfc || next.serie !== row.serie) throw cfcErrors.CFC_NUMEROS_UTILIZADOS(`El rango tiene ${used.total} números transcriptos: no puede cambiar tipo ni serie.`);
          if (next.desde > used.lo! || next.hasta < used.hi!) throw cfcErrors.CFC_NUMEROS_UTILIZADOS(`El rango debe seguir incluyendo los números utilizados ${used.lo} a ${used.hi}.`);
        }
        await refuseOverlap(tx, row.companyId, next, row.id);
        const updated = await repo.updateRange(tx, row.id, {
          tipoCfc: next.tipoCFC, serie: next.serie, dNro: next.desde, hNro: next.hasta, constancia: next.constancia, fvd: next.fechaVencimiento,
        });
        return cfcView(updated, used.total);
      });
    },

    async listCfc(actor: Actor, f: { idEmpresa: number; tipoCFC?: number; serie?: string }, paging: Paging) {
      assertCompanyRole(actor, f.idEmpresa, 'lectura');
      const today = uyToday();
      const { rows, total } = await repo.listRanges(db, { companyId: f.idEmpresa, tipoCfc: f.tipoCFC, serie: f.serie }, paging);
      return { data: rows.map((r) => cfcView(r.range, r.used, today)), total };
    },

    /** numeroDisponibleContingencia: inside a registered, unexpired range and not transcribed yet. */
    async numeroDisponibleContingencia(actor: Actor, q: { idEmpresa: number; tipoCFC: number; serie: string; numero: number }) {
      assertCompanyRole(actor, q.idEmpresa, 'lectura');
      if (!isContingencyCode(q.tipoCFC)) throw caeErrors.CFC_TIPO_INVALIDO();
      const today = uyToday();
      const row = await repo.rangeHolding(db, { companyId: q.idEmpresa, tipoCfc: q.tipoCFC, serie: q.serie, numero: q.numero });
      if (!row) return { disponible: false, motivo: 'fuera_de_rango' as const };
      const rango = cfcView(row, (await repo.usedStats(db, row.id)).total, today);
      if (row.fvd < today) return { disponible: false, motivo: 'vencido' as const, rango };
      if (await repo.isUsed(db, row.id, q.numero)) return { disponible: false, motivo: 'utilizado' as const, rango };
      return { disponible: true, rango };
    },

    /**
     * For the transcription flow, inside the caller's transaction: marks a paper number used.
     * Refuses (CFC_NUMERO_NO_DISPONIBLE, 409) a number outside every range of that type and serie,
     * in a range expired on `fecha`, or already used. A rollback of the caller frees it again.
     */
    async reserveContingencyNumber(tx: DbOrTx, input: ContingencyNumberInput) {
      if (!isContingencyCode(input.tipoCfc)) throw caeErrors.CFC_TIPO_INVALIDO();
      const fecha = input.fecha ?? uyToday();
      const row = await repo.rangeHolding(tx, { companyId: input.companyId, tipoCfc: input.tipoCfc, serie: input.serie, numero: input.numero }, 'share');
      const label = `${input.tipoCfc} serie ${input.serie} número ${input.numero}`;
      if (!row) throw caeErrors.CFC_NUMERO_NO_DISPONIBLE(`El CFC ${label} no está en un rango de contingencia registrado.`);
      if (row.fvd < fecha) throw caeErrors.CFC_NUMERO_NO_DISPONIBLE(`El rango de contingencia del CFC ${label} venció el ${row.fvd}.`);
      if (!(await repo.markUsed(tx, row, input.numero))) throw caeErrors.CFC_NUMERO_NO_DISPONIBLE(`El CFC ${label} ya fue utilizado.`);
      return { cfcRangeId: row.id, tipoCfc: row.tipoCfc, serie: row.serie, numero: input.numero, constancia: row.constancia, fechaVencimiento: row.fvd, desde: row.dNro, hasta: row.hNro };
    },
  };
}
