/**
 * GET /api/v1/contracts/{id}/usage (issue 33 point 3): quantities per metric, optionally grouped by
 * the metric's declared keys and cut into hour/day/month windows in the company's zone, with
 * `final` saying whether events for the range can still arrive (grace period).
 */
import { Decimal } from 'decimal.js';
import type { Db } from '../../platform/db/client.js';
import type { Actor } from '../../platform/http/actor.js';
import { usageErrors } from './usage.errors.js';
import * as repo from './usage.repository.js';
import { queryUsage, type UsageWindow } from './usage-query.repository.js';
import { admissibleFrom, USAGE_TIME_ZONE, zonedMonthStart } from './usage.rules.js';
import type { UsageService } from './usage.service.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
export const MAX_GROUP_KEYS = 5;
export const MAX_RANGE_DAYS = 400;
export const MAX_HOURLY_RANGE_DAYS = 31;

export interface UsageParams { start?: string; end?: string; group_by?: string; ventana?: UsageWindow; metrica?: string }

const bad = (message: string) => usageErrors.USO_CONSULTA_INVALIDA(message);

export function createUsageQueryService(deps: { db: Db; usage: UsageService; defaultGraceHours: number }) {
  const { db } = deps;
  return {
    async usage(actor: Actor, contractId: number, p: UsageParams, now = new Date()) {
      const contract = await deps.usage.loadContract(actor, contractId, 'lectura');
      const start = p.start ? new Date(p.start) : zonedMonthStart(now);
      const end = p.end ? new Date(p.end) : new Date(Math.ceil(now.getTime() / HOUR_MS) * HOUR_MS);
      // Rollups are hourly: a range that cuts an hour cannot be answered exactly, so it is refused, not rounded.
      if (start.getTime() % HOUR_MS || end.getTime() % HOUR_MS) throw bad('start y end deben caer en horas enteras (minutos y segundos en cero), p. ej. 2026-03-01T03:00:00Z.');
      if (end <= start) throw bad('end debe ser posterior a start.');
      const days = (end.getTime() - start.getTime()) / DAY_MS;
      if (days > MAX_RANGE_DAYS) throw bad(`El rango es de a lo sumo ${MAX_RANGE_DAYS} días.`);
      if (p.ventana === 'hora' && days > MAX_HOURLY_RANGE_DAYS) throw bad(`Con ventana=hora el rango es de a lo sumo ${MAX_HOURLY_RANGE_DAYS} días.`);

      let metrics = await repo.metricsByIds(db, contract.metricIds);
      if (p.metrica !== undefined) {
        metrics = metrics.filter((m) => m.code === p.metrica);
        if (!metrics.length) throw bad(`El contrato no mide la métrica ${p.metrica}.`);
      }
      const groupBy = p.group_by ? [...new Set(p.group_by.split(',').map((k) => k.trim()).filter(Boolean))] : [];
      if (groupBy.length > MAX_GROUP_KEYS) throw bad(`group_by admite a lo sumo ${MAX_GROUP_KEYS} claves.`);
      const undeclared = metrics.filter((m) => groupBy.some((k) => !m.groupKeys.includes(k)));
      if (undeclared.length) {
        throw usageErrors.USO_CONSULTA_INVALIDA(`group_by usa claves que no declaran las métricas ${undeclared.map((m) => `${m.code} (declara: ${m.groupKeys.join(', ') || 'ninguna'})`).join('; ')}. Elija claves declaradas o filtre con metrica=.`, { claves: groupBy });
      }

      const datos = [];
      for (const m of metrics) {
        const rows = await queryUsage(db, { contractId: contract.id, metric: { id: m.id, aggregation: m.aggregation }, start, end, groupBy, window: p.ventana ?? null, zone: USAGE_TIME_ZONE });
        for (const r of rows) {
          datos.push({ metrica: m.code, unidad: m.unit, agregacion: m.aggregation, inicio: r.inicio.toISOString(), fin: r.fin.toISOString(), grupo: r.grupo, cantidad: new Decimal(r.cantidad).toFixed() });
        }
      }
      const grace = (await repo.graceHoursOf(db, contract.companyId)) ?? deps.defaultGraceHours;
      const openFrom = admissibleFrom(now, grace, contract.periodAnchorDay);
      return {
        idContrato: contract.id, desde: start.toISOString(), hasta: end.toISOString(), ventana: p.ventana ?? null, zona: USAGE_TIME_ZONE, group_by: groupBy,
        final: end <= openFrom, admiteEventosDesde: openFrom.toISOString(), datos,
      };
    },
  };
}
export type UsageQueryService = ReturnType<typeof createUsageQueryService>;

type UsageAnswer = Awaited<ReturnType<UsageQueryService['usage']>>;

const csvCell = (v: string | null) => (v === null ? '' : /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** The same answer as CSV: one line per row; group keys as columns; `final` in a trailing comment-free header column. */
export function usageCsv(a: UsageAnswer): string {
  const header = ['metrica', 'unidad', 'inicio', 'fin', ...a.group_by, 'cantidad', 'final'];
  const lines = a.datos.map((d) => [d.metrica, d.unidad, d.inicio, d.fin, ...a.group_by.map((k) => d.grupo[k] ?? null), d.cantidad, String(a.final)].map(csvCell).join(','));
  return [header.map(csvCell).join(','), ...lines].join('\r\n') + '\r\n';
}
