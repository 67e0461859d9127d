import { z } from 'zod';
import { companyRef } from '../../platform/http/company-refs.js';
import { PAGE_DEFAULT, PAGE_MAX } from '../../platform/http/paging.js';
import { ruleActions, ruleLifts } from '../contract-rules/usage-rules.js';

const positiveInt4 = z.coerce.number().int().positive().max(2_147_483_647);
const decimal = z.string().regex(/^\d{1,15}(\.\d{1,6})?$/, 'un decimal no negativo como texto, p. ej. "1000" o "12.5"');
const ymd = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'fecha YYYY-MM-DD');

export const idParams = z.object({ id: positiveInt4 });
export const periodParams = z.object({ id: positiveInt4, desde: ymd });

/** The CFE types a usage period is billed with (the issued-cfe module does the rest of the checks). */
export const BILLING_CFE_TYPES = [101, 111] as const;

export const ruleBody = z.object({
  id: z.string().regex(/^[A-Za-z0-9_.-]{1,40}$/, 'letras, dígitos, _ . - (≤ 40)').describe('Stable id of the rule in the contract (named in causes and history).'),
  objetivo: z.enum(['unidades', 'monto']).describe('`unidades` of `metrica` in the open period, or the period\'s `monto` rated so far.'),
  metrica: z.string().min(1).max(100).optional().describe('Metric code; required with objetivo=unidades.'),
  umbral: decimal.describe('Reached when the observed value ≥ umbral.'),
  accion: z.enum(ruleActions).describe('notificar: event only; advertir: state en_advertencia; suspender: state suspendido. Every action raises event Contrato.ReglaAlcanzada when the rule is reached, once per rule and period (see /api/v1/webhooks/catalogo).'),
  levantamiento: z.enum(ruleLifts).default('reinicioPeriodo').describe('reinicioPeriodo: lifted when a new period opens; manual: only by the levantar action.'),
});

export const termsBody = z.object({
  idVersionListaPrecios: companyRef(positiveInt4, 'versionListaPrecios').optional().describe('Pin this price-book version (its code is then the contract\'s).'),
  codigoListaPrecios: z.string().min(1).max(50).optional().describe('Follow the version of this code in force on each period\'s first day (when no version is pinned).'),
  diaAncla: z.number().int().min(1).max(31).default(1).describe('Day periods start on (America/Montevideo); 29-31 fall back to a shorter month\'s last day. Default 1 (calendar months). Changed on a contract with terms: the open period closes short, on the day before the first new anchor day after its start (e.g. open since 2026-11-01, 1 → 28: that period is 2026-11-01 to 2026-11-27, billed at its close; the next starts 2026-11-28); periods already closed are not touched.'),
  tipoCfe: z.union([z.literal(101), z.literal(111)]).describe('101 e-Ticket or 111 e-Factura.'),
  codComercio: z.string().min(1).max(50).describe('Emission point (spec 2.1).'),
  codTerminal: z.string().min(1).max(50),
  formaPago: z.union([z.literal(1), z.literal(2)]).default(2).describe('1 contado, 2 crédito.'),
  reglas: z.array(ruleBody).max(20).default([]),
});

export const actionBody = z.object({
  reglas: z.array(z.string().min(1).max(40)).max(20).optional().describe('levantar: the rules to lift (default: every reached rule).'),
  motivo: z.string().max(200).optional(),
  facturar: z.boolean().optional().describe('cancelar / finalizar only: end billing now and issue the open period\'s CFE at once, for the days up to today (a shorter period; any earlier period still waiting for its close too). One CFE per period: repeating the call answers the same state and CFE. Default false: the period holding the end is billed at its normal close.'),
});

export const historyQuery = z.object({
  start: ymd.optional().describe('First day (YYYY-MM-DD, America/Montevideo), inclusive.'),
  end: ymd.optional().describe('Last day (YYYY-MM-DD), inclusive.'),
  offset: z.coerce.number().int().min(0).default(0).describe('Rows to skip (start names the date here, so paging uses offset/length).'),
  length: z.coerce.number().int().min(1).max(PAGE_MAX).default(PAGE_DEFAULT),
});

const cause = z.record(z.string(), z.unknown()).describe('tipo regla (regla, accion, objetivo, metrica, umbral, valorObservado) | periodo (periodoAnterior, periodoNuevo) | manual (usuario, accion, reglas; accion patch when set through PATCH /contracts/{id}) | fin (fin: the contract\'s end date, reached at the close of the period containing it) | alta.');

export const termsView = z.object({
  idContrato: z.number().int(), idVersionListaPrecios: z.number().int().nullable(), codigoListaPrecios: z.string(), diaAncla: z.number().int(),
  tipoCfe: z.number().int(), codComercio: z.string(), codTerminal: z.string(), formaPago: z.number().int(), reglas: z.array(z.record(z.string(), z.unknown())),
  periodoAbierto: z.string().describe('First day of the first period not yet closed into a CFE.'),
  periodoAbiertoHasta: z.string().describe('Last day of that period (shorter than a month after a change of diaAncla).'),
  alertaCierre: z.string().nullable().describe('Set when the close\'s check finds that no close would take the open period (should never happen; the operator is told in the log too); null when fine.'),
});

const periodView = z.object({
  desde: z.string().describe('First day (America/Montevideo), as PeriodoDesde of its CFE.'),
  hasta: z.string().describe('Last day, inclusive (shorter than the anchored period for a contract ended with facturar or after a change of diaAncla).'),
  estado: z.enum(['pendiente', 'emitido', 'sin_consumo', 'error']).describe('pendiente: claimed, its CFE being issued; emitido: CFE issued; sin_consumo: nothing to bill (no CFE); error: emission refused or no price version (see error), needs a person.'),
  idCfeEmitido: z.number().int().nullable().describe('The period\'s CFE (GET /api/v1/cfeemitido/{id}).'),
  total: z.string().nullable().describe('Amount rated for the period BEFORE IVA (the sum of its priced lines and minimums, in `moneda`); the CFE adds IVA per its lines\' indicadorFacturacion. After a correction, the corrected amount.'),
  moneda: z.string().nullable(),
  error: z.string().nullable(),
  cerradoEn: z.string().nullable().describe('When its CFE (or sin_consumo) was decided.'),
  usoTardio: z.object({
    ultimoEvento: z.string().describe('When the last event for this period was accepted after it closed.'),
    pendienteDeCorregir: z.boolean().describe('true while that usage is not billed yet (POST .../correct, or automatic at the next close with usoTardio automatica in /usage-settings).'),
    corregidoEn: z.string().nullable(),
  }).nullable().describe('Usage accepted after the period closed; null: none.'),
  notas: z.array(z.object({ tipo: z.string(), idCfeEmitido: z.number().int(), monto: z.string().describe('Before IVA.'), en: z.string() })).describe('Credit/debit notes of corrections, oldest first.'),
});
export const periodsPage = z.object({ data: z.array(periodView), total: z.number().int(), start: z.number().int(), length: z.number().int() });

export const stateView = z.object({
  idContrato: z.number().int(), estado: z.string(), desde: z.string(), motivo: cause.nullable(), suspensionManual: z.boolean(),
  periodoAbierto: z.object({ desde: z.string(), hasta: z.string(), inicio: z.string(), fin: z.string() }),
  moneda: z.string().nullable(), idVersionListaPrecios: z.number().int().nullable(),
  uso: z.array(z.object({ metrica: z.string(), dimensiones: z.record(z.string(), z.string()).optional(), cantidad: z.string() }))
    .describe('The usage rated so far: per metric its period aggregate, or, when the price book prices it by dimension, one row per value of those keys (count/sum) or per price (max, unique_count, latest: the fallback\'s groups measured together). Same figures as GET /contracts/{id}/usage.'),
  montoHastaAhora: z.string().nullable().describe('Amount rated so far against the prices (null when no version prices the period).'),
  reglas: z.array(z.object({ id: z.string(), objetivo: z.string(), metrica: z.string().optional(), umbral: z.string(), accion: z.string(), levantamiento: z.string(), valorObservado: z.string(), alcanzada: z.boolean(), estado: z.enum(['libre', 'alcanzada', 'levantada']), estadoDesde: z.string().nullable() })),
  acciones: z.array(z.string()),
  ultimoPeriodo: periodView.nullable(),
  alertaCierre: z.string().nullable().describe('See the terms\' alertaCierre.'),
});

export const historyItem = z.object({ id: z.number().int(), estadoAnterior: z.string(), estadoNuevo: z.string(), en: z.string(), motivo: cause });
export const historyPage = z.object({ data: z.array(historyItem), total: z.number().int(), offset: z.number().int(), length: z.number().int() });
export const periodAnswer = periodView;
