/**
 * Issue 34 point 6, the pure parts: CPU time of one rule evaluation (what ingestion adds per event
 * once contracts call it) and of rating a period and building its CFE (what closing a period costs
 * before emission). process.cpuUsage per call, so a shared machine inflates wall time, not these.
 */
import { evaluateRules, type RulesState, type UsageRule } from '../src/modules/contract-rules/usage-rules.js';
import { buildPeriodCfe } from '../src/modules/price-books/period-cfe.js';
import type { Price } from '../src/modules/price-books/price-books.model.js';
import { ratePeriod, type UsageRow } from '../src/modules/price-books/rating.js';

const fiscal = { indicadorFacturacion: 3, nombreItem: 'Servicio' };
const tiers = [{ desde: '0', hasta: '1000', precioUnitario: '1' }, { desde: '1000', hasta: '10000', precioUnitario: '0.8' }, { desde: '10000', hasta: null, precioUnitario: '0.5' }];

function cpuMicros(n: number, fn: (i: number) => unknown): number {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) fn(i);
  const d = process.cpuUsage(start);
  return Math.round(((d.user + d.system) / n) * 100) / 100;
}

export async function runUsagePricingBench(opts: { evaluations?: number; periods?: number } = {}) {
  const evaluations = opts.evaluations ?? 200_000;
  const periods = opts.periods ?? 20_000;
  const rules: UsageRule[] = [
    { id: 'a80', objetivo: 'unidades', metrica: 'api', umbral: '800000', accion: 'advertir', levantamiento: 'reinicioPeriodo' },
    { id: 'a100', objetivo: 'unidades', metrica: 'api', umbral: '1000000', accion: 'suspender', levantamiento: 'reinicioPeriodo' },
    { id: 'm', objetivo: 'monto', umbral: '50000', accion: 'notificar', levantamiento: 'reinicioPeriodo' },
    { id: 's', objetivo: 'unidades', metrica: 'sms', umbral: '10000', accion: 'advertir', levantamiento: 'manual' },
    { id: 'k', objetivo: 'unidades', metrica: 'kwh', umbral: '5000', accion: 'suspender', levantamiento: 'manual' },
  ];
  let state: RulesState = { estado: 'activo', periodo: '2026-03-01', reglas: {} };
  const ruleMicros = cpuMicros(evaluations, (i) => {
    state = evaluateRules(rules, state, { periodo: '2026-03-01', unidades: { api: String(i * 5), sms: '10', kwh: '3.5' }, monto: String(i), en: '2026-03-10T00:00:00Z' }).state;
  });
  const precios: Price[] = [
    { metrica: 'api', ...fiscal, modelo: 'escalonado', tramos: tiers },
    { metrica: 'sms', ...fiscal, modelo: 'paquete', paquete: { tamano: '1000', precio: '150' }, minimo: '400' },
    ...['norte', 'sur', 'este', 'oeste'].map((region) => ({ metrica: 'kwh', ...fiscal, dimensiones: { region }, modelo: 'volumen' as const, tramos: tiers })),
    { metrica: 'kwh', ...fiscal, modelo: 'estandar', precioUnitario: '6.25' },
  ];
  const usage: UsageRow[] = [
    { metrica: 'api', cantidad: '123456.789' }, { metrica: 'sms', cantidad: '2500' },
    ...['norte', 'sur', 'este', 'oeste', 'centro'].map((region, i) => ({ metrica: 'kwh', dimensiones: { region }, cantidad: String(900 + i * 1000) })),
  ];
  const version = { moneda: 'UYU', precios, minimoPeriodo: { monto: '5000', ...fiscal }, codigo: 'B', version: 1, tipoCambio: { modo: 'emision' as const } };
  const input = { idEmpresa: 1, codComercio: 'C1', codTerminal: 'T1', tipoCfe: 111, receptor: { idCliente: 1 }, fechaEmision: '2026-04-01', periodo: { desde: '2026-03-01', hasta: '2026-03-31' } };
  const closeMicros = cpuMicros(periods, () => buildPeriodCfe(ratePeriod(version, usage), version, input));
  const result = { ruleEvaluationCpuMicros: ruleMicros, rules: rules.length, periodRateAndBuildCpuMicros: closeMicros, prices: precios.length, usageRows: usage.length, machine: 'shared: CPU per call, not wall time' };
  console.log(result);
  return result;
}
