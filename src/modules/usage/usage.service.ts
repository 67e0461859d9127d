/**
 * Billable metrics and usage contracts (issue 33 point 1), the minimum part 2 (issue 34) extends
 * with price books, periods and rules. Both are addressed by their own id: each use case loads the
 * row and checks the caller's role on its company (another company's row answers 404).
 */
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor, type CompanyRole } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { companyFor } from './usage.access.js';
import { usageErrors } from './usage.errors.js';
import * as repo from './usage.repository.js';
import type { Aggregation, ContractState } from './usage.tables.js';

export interface MetricInput { codigo: string; nombre: string; unidad: string; agregacion: Aggregation; propiedad?: string | null; clavesAgrupacion?: string[] }
export interface ContractInput { idCliente: number; idExterno: string; metricas: string[]; inicio: string; fin?: string | null; estado?: 'borrador' | 'activo' }
export type ContractPatch = Partial<Omit<ContractInput, 'idCliente' | 'estado'>> & { estado?: ContractState };

export const metricView = (m: repo.MetricRow) => ({
  id: m.id, idEmpresa: m.companyId, codigo: m.code, nombre: m.name, unidad: m.unit, agregacion: m.aggregation,
  propiedad: m.property, clavesAgrupacion: m.groupKeys, creadoEn: m.createdAt.toISOString(), actualizadoEn: m.updatedAt.toISOString(),
});

function contractView(c: repo.ContractRow, metrics: repo.MetricRow[]) {
  const codes = new Map(metrics.map((m) => [m.id, m.code]));
  return {
    id: c.id, idEmpresa: c.companyId, idCliente: c.customerId, idExterno: c.externalId, estado: c.state, estadoDesde: c.stateSince.toISOString(),
    metricas: c.metricIds.map((id) => codes.get(id) ?? String(id)), inicio: c.startsAt.toISOString(), fin: c.endsAt?.toISOString() ?? null,
    creadoEn: c.createdAt.toISOString(), actualizadoEn: c.updatedAt.toISOString(),
  };
}

/**
 * Manual transitions of part 1. Part 2 adds the rule-driven ones (en_advertencia, suspendido) and
 * their history; finalizado and cancelado are terminal.
 */
const MANUAL_TRANSITIONS: Record<string, ContractState[]> = {
  borrador: ['activo', 'cancelado'],
  activo: ['cancelado', 'finalizado'],
  en_advertencia: ['cancelado', 'finalizado'],
  suspendido: ['cancelado', 'finalizado'],
};

function checkMetric(m: Pick<MetricInput, 'agregacion' | 'propiedad' | 'clavesAgrupacion'>) {
  if (m.agregacion === 'count' && m.propiedad) throw usageErrors.METRICA_INVALIDA('Una métrica count cuenta eventos: no lleva propiedad.');
  if (m.agregacion !== 'count' && !m.propiedad) throw usageErrors.METRICA_INVALIDA(`Una métrica ${m.agregacion} necesita la propiedad que agrega.`);
  const keys = m.clavesAgrupacion ?? [];
  if (new Set(keys).size !== keys.length) throw usageErrors.METRICA_INVALIDA('clavesAgrupacion repite una clave.');
}

/**
 * Runs in the transaction of a manual state change made through PATCH /contracts/{id}, so contract
 * billing (issue 34) writes its history row and event 8 with it, never a silent change.
 */
export type ContractStateHook = (tx: DbOrTx, change: { contractId: number; companyId: number; from: ContractState; to: ContractState; at: Date; usuario: string }) => Promise<void>;

export function createUsageService(deps: { db: Db; defaultGraceHours: number; stateHooks?: readonly ContractStateHook[] }) {
  const { db } = deps;

  async function loadMetric(actor: Actor, id: number, role: CompanyRole) {
    const m = await repo.findMetric(db, id);
    if (!m) throw usageErrors.METRICA_NO_ENCONTRADA();
    assertCompanyRole(actor, m.companyId, role, () => usageErrors.METRICA_NO_ENCONTRADA());
    return m;
  }

  async function loadContract(actor: Actor, id: number, role: CompanyRole) {
    const c = await repo.findContract(db, id);
    if (!c) throw usageErrors.CONTRATO_NO_ENCONTRADO();
    assertCompanyRole(actor, c.companyId, role, () => usageErrors.CONTRATO_NO_ENCONTRADO());
    return c;
  }

  async function metricIdsOf(companyId: number, codes: string[]): Promise<number[]> {
    const unique = [...new Set(codes)];
    const found = await repo.metricsByCode(db, companyId, unique);
    const missing = unique.filter((c) => !found.some((m) => m.code === c));
    if (missing.length) throw usageErrors.CONTRATO_INVALIDO(`Métricas inexistentes en la empresa: ${missing.join(', ')}.`, { metricas: missing });
    return unique.map((c) => found.find((m) => m.code === c)!.id);
  }

  function checkDates(inicio: Date, fin: Date | null) {
    if (fin && fin <= inicio) throw usageErrors.CONTRATO_INVALIDO('fin debe ser posterior a inicio.');
  }

  return {
    loadContract,
    async createMetric(actor: Actor, idEmpresa: number | undefined, input: MetricInput) {
      const companyId = companyFor(actor, idEmpresa, 'administrador');
      checkMetric(input);
      try {
        return metricView(await repo.insertMetric(db, {
          companyId, code: input.codigo, name: input.nombre, unit: input.unidad, aggregation: input.agregacion,
          property: input.propiedad ?? null, groupKeys: input.clavesAgrupacion ?? [],
        }));
      } catch (err) {
        if (repo.isUniqueViolation(err)) throw usageErrors.METRICA_DUPLICADA();
        throw err;
      }
    },
    async listMetrics(actor: Actor, idEmpresa: number | undefined, paging: Paging) {
      const { data, total } = await repo.listMetrics(db, companyFor(actor, idEmpresa, 'lectura'), paging);
      return { data: data.map(metricView), total };
    },
    async getMetric(actor: Actor, id: number) {
      return metricView(await loadMetric(actor, id, 'lectura'));
    },
    /** Name and unit always change; the rest only while no usage was counted (Metronome's rule: aggregation and keys are frozen once used). */
    async updateMetric(actor: Actor, id: number, input: Partial<MetricInput>) {
      const m = await loadMetric(actor, id, 'administrador');
      const frozen = (['codigo', 'agregacion', 'propiedad', 'clavesAgrupacion'] as const).filter((k) => input[k] !== undefined);
      if (frozen.length && await repo.metricHasUsage(db, id)) throw usageErrors.METRICA_EN_USO(undefined, { campos: frozen });
      const next = { agregacion: input.agregacion ?? m.aggregation, propiedad: input.propiedad !== undefined ? input.propiedad : m.property, clavesAgrupacion: input.clavesAgrupacion ?? m.groupKeys };
      checkMetric(next);
      try {
        return metricView(await repo.updateMetric(db, id, {
          code: input.codigo, name: input.nombre, unit: input.unidad, aggregation: next.agregacion, property: next.propiedad, groupKeys: next.clavesAgrupacion,
        }));
      } catch (err) {
        if (repo.isUniqueViolation(err)) throw usageErrors.METRICA_DUPLICADA();
        throw err;
      }
    },
    async deleteMetric(actor: Actor, id: number) {
      await loadMetric(actor, id, 'administrador');
      const n = await repo.contractsUsingMetric(db, id);
      if (n > 0) throw usageErrors.METRICA_EN_USO(`La métrica está en ${n} contrato(s); quítela de ellos antes de eliminarla.`);
      await repo.deleteMetric(db, id);
    },

    async createContract(actor: Actor, idEmpresa: number | undefined, input: ContractInput) {
      const companyId = companyFor(actor, idEmpresa, 'emisor');
      const inicio = new Date(input.inicio);
      const fin = input.fin ? new Date(input.fin) : null;
      checkDates(inicio, fin);
      const metricIds = await metricIdsOf(companyId, input.metricas);
      try {
        const row = await repo.insertContract(db, { companyId, customerId: input.idCliente, externalId: input.idExterno, state: input.estado ?? 'activo', startsAt: inicio, endsAt: fin, metricIds });
        return contractView(row, await repo.metricsByIds(db, metricIds));
      } catch (err) {
        if (repo.isUniqueViolation(err)) throw usageErrors.CONTRATO_DUPLICADO();
        throw err;
      }
    },
    async listContracts(actor: Actor, idEmpresa: number | undefined, filters: { estado?: string; idCliente?: number; idExterno?: string }, paging: Paging) {
      const { data, total } = await repo.listContracts(db, companyFor(actor, idEmpresa, 'lectura'), filters, paging);
      const metrics = await repo.metricsByIds(db, [...new Set(data.flatMap((c) => c.metricIds))]);
      return { data: data.map((c) => contractView(c, metrics)), total };
    },
    async getContract(actor: Actor, id: number) {
      const c = await loadContract(actor, id, 'lectura');
      return contractView(c, await repo.metricsByIds(db, c.metricIds));
    },
    async updateContract(actor: Actor, id: number, patch: ContractPatch) {
      const c = await loadContract(actor, id, 'emisor');
      const values: Parameters<typeof repo.updateContract>[2] = {};
      if (patch.estado !== undefined && patch.estado !== c.state) {
        if (!MANUAL_TRANSITIONS[c.state]?.includes(patch.estado)) {
          throw usageErrors.CONTRATO_TRANSICION_INVALIDA(`Un contrato ${c.state} no puede pasar a ${patch.estado} a mano.`, { desde: c.state, a: patch.estado, permitidos: MANUAL_TRANSITIONS[c.state] ?? [] });
        }
        Object.assign(values, { state: patch.estado, stateSince: new Date() });
      }
      if (patch.idExterno !== undefined) values.externalId = patch.idExterno;
      if (patch.inicio !== undefined) values.startsAt = new Date(patch.inicio);
      if (patch.fin !== undefined) values.endsAt = patch.fin ? new Date(patch.fin) : null;
      checkDates(values.startsAt ?? c.startsAt, values.endsAt !== undefined ? values.endsAt : c.endsAt);
      if (patch.metricas !== undefined) {
        values.metricIds = await metricIdsOf(c.companyId, patch.metricas);
        for (const removed of c.metricIds.filter((m) => !values.metricIds!.includes(m))) {
          if (await repo.metricHasUsage(db, removed, c.id)) throw usageErrors.CONTRATO_METRICA_CON_USO();
        }
      }
      try {
        const row = await db.transaction(async (tx) => {
          const updated = await repo.updateContract(tx, id, values);
          if (values.state) {
            const change = { contractId: id, companyId: c.companyId, from: c.state, to: values.state, at: values.stateSince!, usuario: actor.email };
            for (const hook of deps.stateHooks ?? []) await hook(tx, change);
          }
          return updated;
        });
        return contractView(row, await repo.metricsByIds(db, row.metricIds));
      } catch (err) {
        if (repo.isUniqueViolation(err)) throw usageErrors.CONTRATO_DUPLICADO();
        throw err;
      }
    },
    /** Only a draft can be deleted; a contract that metered usage is cancelled or finished instead. */
    async deleteContract(actor: Actor, id: number) {
      const c = await loadContract(actor, id, 'emisor');
      if (c.state !== 'borrador') throw usageErrors.CONTRATO_TRANSICION_INVALIDA('Solo se elimina un contrato en borrador; cancele o finalice los demás.');
      await repo.deleteContract(db, id);
    },

    async getSettings(actor: Actor, idEmpresa: number | undefined) {
      const companyId = companyFor(actor, idEmpresa, 'lectura');
      const row = await repo.settingsOf(db, companyId);
      return { idEmpresa: companyId, graciaHoras: row?.graceHours ?? deps.defaultGraceHours, usoTardio: row?.lateUsagePolicy ?? 'marcar' };
    },
    /** A field left out keeps its current value (or default). */
    async setSettings(actor: Actor, idEmpresa: number | undefined, input: { graciaHoras?: number; usoTardio?: 'marcar' | 'automatica' }) {
      const companyId = companyFor(actor, idEmpresa, 'administrador');
      const row = await repo.settingsOf(db, companyId);
      const values = { graceHours: input.graciaHoras ?? row?.graceHours ?? deps.defaultGraceHours, lateUsagePolicy: input.usoTardio ?? row?.lateUsagePolicy ?? 'marcar' };
      await repo.setSettings(db, companyId, values);
      return { idEmpresa: companyId, graciaHoras: values.graceHours, usoTardio: values.lateUsagePolicy };
    },
  };
}
export type UsageService = ReturnType<typeof createUsageService>;
