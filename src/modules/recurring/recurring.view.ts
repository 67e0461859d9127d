/**
 * Pure shaping of recurring plans: the schedule of a definition, the emission request of a run
 * (template + the run's date + the billed period in the adenda), the views and the catalogues.
 */
import { Decimal } from 'decimal.js';
import { ddmmyyyy } from '../../lib/dates.js';
import { getCfeType } from '../emission/index.js';
import type { IssueCfeBody } from '../issued-cfe/issued-cfe.schemas.js';
import { firstIndexFrom, period, withinEnd, type Period, type Schedule } from './recurring.schedule.js';
import type { PlanDefinition, RunView } from './recurring.schemas.js';
import { ACTIONS, allowedActions, planActions, planStates, runResults } from './recurring.states.js';
import type { PlanRow, RunRow } from './recurring.tables.js';

/** CFE types a plan may issue: sales documents that need no reference (notes do). */
export const PLAN_CFE_TYPES = [101, 111, 121, 131, 141] as const;

export function scheduleOf(d: PlanDefinition): Schedule {
  return {
    unidad: d.frecuencia.unidad, intervalo: d.frecuencia.intervalo, diaDelMes: d.anclaje.diaDelMes, diaSemana: d.anclaje.diaSemana,
    horaEmision: d.horaEmision, zonaHoraria: d.zonaHoraria, fechaInicio: d.fechaInicio, fin: d.fin, modo: d.periodo.modo,
  };
}

/** The run key: also the emission's Idempotency-Key (unique per company in issued_cfes). */
export function runKey(planId: number, periodoDesde: string, reissue = 0): string {
  return `recurrente-${planId}-${periodoDesde}${reissue ? `-reemision-${reissue}` : ''}`;
}

/**
 * The emitir request of a run: the template, fechaEmision = the run's local date, and the billed
 * period first in the adenda. Several periods (emitir_uno) multiply quantities and line amounts.
 */
export function emissionRequest(companyId: number, d: PlanDefinition, periods: Period[], fechaEmision: string): IssueCfeBody {
  const first = periods[0];
  const last = periods[periods.length - 1];
  const n = periods.length;
  const note = `Período facturado: ${ddmmyyyy(first.desde)} al ${ddmmyyyy(last.hasta)}${n > 1 ? ` (${n} períodos)` : ''}.`;
  const t = d.plantilla;
  const detalles = n === 1 ? t.detalles : t.detalles.map((l) => ({
    ...l,
    ...(l.cantidad !== undefined ? { cantidad: new Decimal(l.cantidad).times(n).toString() } : {}),
    ...(l.montoItem !== undefined ? { montoItem: new Decimal(l.montoItem).times(n).toString() } : {}),
    ...(l.descuentoMonto !== undefined ? { descuentoMonto: new Decimal(l.descuentoMonto).times(n).toString() } : {}),
    ...(l.recargoMnt !== undefined ? { recargoMnt: new Decimal(l.recargoMnt).times(n).toString() } : {}),
  }));
  return {
    idEmpresa: companyId, codComercio: d.codComercio, codTerminal: d.codTerminal,
    cfe: { ...t, detalles, idDoc: { ...t.idDoc, fechaEmision }, adenda: t.adenda ? `${note}\n${t.adenda}` : note },
  } as IssueCfeBody;
}

export function runView(r: RunRow, estadoDgi: string | null = null): RunView {
  return {
    idEjecucion: r.id, idPlan: r.planId, version: r.version, claveEjecucion: `${r.planId}:${r.periodoDesde}`,
    periodoDesde: r.periodoDesde, periodoHasta: r.periodoHasta, periodos: r.periodos,
    programadaPara: r.programadaPara.toISOString(), ejecutadaEn: r.ejecutadaEn?.toISOString() ?? null, resultado: r.resultado, origen: r.origen,
    idCfeEmitido: r.cfeId, tipoCfe: r.tipoCfe, serie: r.serie, numero: r.numero, estadoDgi,
    codigo: r.codigo, motivo: r.motivo, intento: r.intento, proximoIntento: r.resultado === 'fallido' ? r.proximoIntento?.toISOString() ?? null : null, acumuladaEn: r.acumuladaEn,
  };
}

export function planView(p: PlanRow, last?: RunRow, estadoDgi: string | null = null) {
  const s = scheduleOf(p.definicion);
  const live = p.estado === 'activo' || p.estado === 'pausado';
  // Paused until `hasta` with omitir: the runs before `hasta` will be omitted, the next one is the first from it.
  const from = p.estado === 'pausado' && p.pausedUntil && p.pausePolicy !== 'recuperar' ? firstIndexFrom(s, p.nextIndex, p.pausedUntil) : p.nextIndex;
  const next = live && withinEnd(s, from) ? period(s, from) : null;
  return {
    id: p.id, idEmpresa: p.companyId, estado: p.estado, version: p.version, accionesPermitidas: allowedActions(p.estado),
    ...p.definicion,
    proximaEjecucion: p.estado === 'activo' ? p.nextRunAt?.toISOString() ?? null : next?.programadaPara.toISOString() ?? null,
    proximoPeriodo: next ? { desde: next.desde, hasta: next.hasta } : null,
    ciclosRestantes: p.definicion.fin.tipo === 'ciclos' ? Math.max(0, p.definicion.fin.ciclos - p.nextIndex) : null,
    pausadoHasta: p.pausedUntil?.toISOString() ?? null, motivoCancelacion: p.motivoCancelacion,
    ultimaEjecucion: last ? runView(last, estadoDgi) : null,
    createdAt: p.createdAt.toISOString(), updatedAt: p.updatedAt.toISOString(),
  };
}

export function catalogos() {
  return {
    frecuencias: [
      { unidad: 'dia', descripcion: 'Cada `intervalo` días desde fechaInicio.' },
      { unidad: 'semana', descripcion: 'Cada `intervalo` semanas, el día anclaje.diaSemana (1 = lunes … 7 = domingo).' },
      { unidad: 'mes', descripcion: 'Cada `intervalo` meses, el día anclaje.diaDelMes (mes 3 = trimestral, 6 = semestral).' },
      { unidad: 'anio', descripcion: 'Cada `intervalo` años, en el mes de fechaInicio, el día anclaje.diaDelMes.' },
    ],
    anclajes: [
      { valor: '1..31', descripcion: 'Día del mes; en un mes más corto, su último día (siempre desde el anclaje: 31/01 → 28 o 29/02 → 31/03).' },
      { valor: 'ultimo', descripcion: 'Último día de cada mes.' },
    ],
    estados: planStates.map((estado) => ({ estado, accionesPermitidas: allowedActions(estado) })),
    acciones: planActions.map((accion) => ({ accion, desde: [...ACTIONS[accion].from], hacia: ACTIONS[accion].to ?? null, descripcion: ACTIONS[accion].description })),
    politicasAtrasos: [
      { valor: 'emitir_todos', descripcion: 'Un CFE por cada período atrasado, cada uno con su período en la adenda.', predeterminada: true },
      { valor: 'emitir_uno', descripcion: 'Un solo CFE por los períodos atrasados y el actual: cantidades × períodos; la adenda indica todo el lapso.', predeterminada: false },
      { valor: 'omitir', descripcion: 'Los períodos atrasados quedan como omitidos; se emite solo el actual.', predeterminada: false },
    ],
    modosPeriodo: ['adelantado', 'vencido'],
    resultadosEjecucion: [...runResults],
    tiposCfe: PLAN_CFE_TYPES.map((tipoCfe) => ({ tipoCfe, nombre: getCfeType(tipoCfe).name })),
    zonaHorariaPredeterminada: 'America/Montevideo',
  };
}
