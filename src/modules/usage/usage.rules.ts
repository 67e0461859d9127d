/**
 * Pure rules of usage ingestion (issue 33 point 2): the shape of one event, the reasons an event is
 * rejected, the content hash that tells a retry from a conflict, and the admission window (open
 * period plus the company's grace). No I/O here.
 */
import { z } from 'zod';
import type { Aggregation } from './usage.tables.js';

/** The zone of windows, periods and the admission window (Uruguay; no DST since 2015, computed generally anyway). */
export const USAGE_TIME_ZONE = 'America/Montevideo';
export const MAX_BATCH = 100;
/** Stripe's rule: a clock a little ahead is tolerated, the future is not. */
export const MAX_FUTURE_MS = 5 * 60_000;
const HOUR_MS = 3_600_000;

export const rejectionReasons = [
  'formato_invalido', 'contrato_desconocido', 'contrato_no_vigente', 'metrica_desconocida', 'metrica_no_contratada',
  'propiedad_faltante', 'propiedad_no_numerica', 'fecha_futura', 'fecha_fuera_de_plazo',
] as const;
export type RejectionReason = (typeof rejectionReasons)[number];

const propertyValue = z.union([z.string().max(500), z.number(), z.boolean()]);
/** One event as sent. Validated item by item, so one malformed event is rejected alone. */
export const eventItem = z.strictObject({
  idTransaccion: z.string().min(1).max(200),
  idContrato: z.number().int().positive().max(2_147_483_647).optional(),
  idExternoContrato: z.string().min(1).max(200).optional(),
  metrica: z.string().min(1).max(100),
  fechaHora: z.iso.datetime({ offset: true }),
  propiedades: z.record(z.string().min(1).max(100), propertyValue).refine((p) => Object.keys(p).length <= 50, 'a lo sumo 50 propiedades').optional(),
}).refine((e) => (e.idContrato === undefined) !== (e.idExternoContrato === undefined), 'indique idContrato o idExternoContrato (uno de los dos)');
export type EventItem = z.infer<typeof eventItem>;

const ITEM_KEYS = new Set(['idTransaccion', 'idContrato', 'idExternoContrato', 'metrica', 'fechaHora', 'propiedades']);
const RFC3339 = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
const str = (v: unknown, max: number): v is string => typeof v === 'string' && v.length >= 1 && v.length <= max;

/**
 * The common case of `eventItem` without zod's cost (~25 µs an event, most of the node CPU of a
 * batch): true only for items `eventItem` certainly accepts. Anything else goes through zod, which
 * decides and words the error, so acceptance never differs.
 */
export function isPlainValidItem(v: unknown): v is EventItem {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const e = v as Record<string, unknown>;
  for (const k in e) if (!ITEM_KEYS.has(k)) return false;
  const byId = e.idContrato !== undefined;
  if (byId === (e.idExternoContrato !== undefined)) return false;
  if (byId ? !(Number.isInteger(e.idContrato) && (e.idContrato as number) > 0 && (e.idContrato as number) <= 2_147_483_647) : !str(e.idExternoContrato, 200)) return false;
  if (!str(e.idTransaccion, 200) || !str(e.metrica, 100) || typeof e.fechaHora !== 'string' || !RFC3339.test(e.fechaHora)) return false;
  const [y, m, d] = [Number(e.fechaHora.slice(0, 4)), Number(e.fechaHora.slice(5, 7)), Number(e.fechaHora.slice(8, 10))];
  if (d > 28 && new Date(Date.UTC(y, m - 1, d)).getUTCMonth() !== m - 1) return false; // 30 February and the like
  const p = e.propiedades;
  if (p === undefined) return true;
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return false;
  let n = 0;
  for (const k in p) {
    const x = (p as Record<string, unknown>)[k];
    if (++n > 50 || k.length < 1 || k.length > 100) return false;
    if (!(typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x)) || (typeof x === 'string' && x.length <= 500))) return false;
  }
  return true;
}

const DECIMAL = /^-?\d{1,20}(\.\d{1,12})?$/;
/**
 * A property as a decimal string, or null when it is not a number. Strings must be plain decimals;
 * JSON numbers are taken only when their text is exact (≤ 15 significant digits, no exponent), so a
 * float never silently changes a quantity: larger values must be sent as strings.
 */
export function decimalOf(v: unknown): string | null {
  if (typeof v === 'string') return DECIMAL.test(v) ? v : null;
  if (typeof v !== 'number' || !Number.isFinite(v)) return null;
  const text = String(v);
  if (!DECIMAL.test(text)) return null;
  return text.replace(/[-.]/g, '').replace(/^0+/, '').length <= 15 ? text : null;
}

export interface MetricDef { id: number; code: string; aggregation: Aggregation; property: string | null; groupKeys: string[] }
export interface ContractDef {
  id: number; externalId: string; state: string; startsAt: Date; endsAt: Date | null; metricIds: number[];
  /** Day the contract's periods start on (null: calendar months) and the instant its closed periods end (null: none closed). */
  anchorDay: number | null; billedUntil: Date | null;
}

/**
 * States in which a contract meters usage; borrador has not started, cancelado and finalizado have
 * ended. A suspension (by hand or by a `suspender` rule) still meters (issue 40 point 7): it tells the
 * integrator to stop serving; usage that was served meanwhile is still counted and billed (the
 * integrator decides what to serve, the meter records what was served).
 */
export const METERING_STATES = new Set(['activo', 'en_advertencia', 'suspendido']);

/**
 * The month last computed per zone, [start, next): every batch asks for the admission window, nearly
 * always in the same month, and its three Intl calls were ~1 µs of CPU per event.
 */
const lastMonth = new Map<string, { start: number; next: number }>();

/** The UTC instant where the calendar month containing `at` starts in `zone`. */
export function zonedMonthStart(at: Date, zone = USAGE_TIME_ZONE): Date {
  const t = at.getTime();
  const known = lastMonth.get(zone);
  if (known && t >= known.start && t < known.next) return new Date(known.start);
  const start = computeMonthStart(at, zone);
  // 32 days after the 1st at midnight is inside the following month, whatever the month's length.
  lastMonth.set(zone, { start: start.getTime(), next: computeMonthStart(new Date(start.getTime() + 32 * 24 * HOUR_MS), zone).getTime() });
  return start;
}

function computeMonthStart(at: Date, zone: string): Date {
  const p = zonedParts(at, zone);
  let guess = Date.UTC(p.year, p.month - 1, 1);
  for (let i = 0; i < 2; i++) guess = Date.UTC(p.year, p.month - 1, 1) - offsetMs(new Date(guess), zone);
  return new Date(guess);
}

/** Building an Intl formatter costs ~100 µs (it was 5 % of ingestion's CPU): one per zone, kept. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function zonedParts(at: Date, zone: string) {
  let f = formatters.get(zone);
  if (!f) formatters.set(zone, (f = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', hourCycle: 'h23' })));
  const o: Record<string, number> = {};
  for (const part of f.formatToParts(at)) if (part.type !== 'literal') o[part.type] = Number(part.value);
  return { year: o.year, month: o.month, day: o.day, hour: o.hour, minute: o.minute, second: o.second };
}

/** Offset of `zone` from UTC at `at`, in ms (Montevideo: −3 h). */
function offsetMs(at: Date, zone: string): number {
  const p = zonedParts(at, zone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(at.getTime() / 1000) * 1000;
}

/**
 * The earliest event time still admitted: the start of the period that was open `graceHours` ago.
 * Until the grace after a month's end runs out, that month's events are still accepted; after, only
 * the new month's. (Monthly periods in the company's zone; part 2 may give contracts other periods.)
 */
export function admissibleFrom(now: Date, graceHours: number, anchorDay: number | null = null): Date {
  const then = new Date(now.getTime() - graceHours * HOUR_MS);
  return anchorDay === null || anchorDay === 1 ? zonedMonthStart(then) : anchoredPeriodStart(then, anchorDay);
}

/**
 * Start of the contract period holding `at` for periods starting on `anchorDay` (1-31; a shorter
 * month starts it on its last day), at midnight in `zone`: grace follows the contract's own period
 * (issue 40 point 6), as contract billing's periods.ts computes them.
 */
export function anchoredPeriodStart(at: Date, anchorDay: number, zone = USAGE_TIME_ZONE): Date {
  const p = zonedParts(at, zone);
  const anchorOf = (y: number, m0: number) => Math.min(anchorDay, new Date(Date.UTC(y, m0 + 1, 0)).getUTCDate());
  let y = p.year;
  let m0 = p.month - 1;
  if (p.day < anchorOf(y, m0)) {
    m0 -= 1;
    if (m0 < 0) (m0 = 11), (y -= 1);
  }
  return zonedDayStart(new Date(Date.UTC(y, m0, anchorOf(y, m0))).toISOString().slice(0, 10), zone);
}

/** Midnight starting the day `ymd` (YYYY-MM-DD) in `zone`. */
export function zonedDayStart(ymd: string, zone = USAGE_TIME_ZONE): Date {
  const wall = Date.parse(`${ymd}T00:00:00Z`);
  let guess = wall;
  for (let i = 0; i < 2; i++) guess = wall - offsetMs(new Date(guess), zone);
  return new Date(guess);
}

/** Canonical JSON of an object with sorted keys (group sets and content hashes must not depend on key order). */
export function canonical(o: Record<string, unknown>): string {
  const keys = Object.keys(o);
  // Keys already in order (one key, or sent sorted): the same text without rebuilding the object.
  // (Integer-like keys come first in both, as JSON.stringify always puts them.)
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! < keys[i]!;
  if (sorted) return JSON.stringify(o);
  return JSON.stringify(Object.fromEntries(keys.sort().map((k) => [k, o[k]])));
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * `n.toString(36)` for an integer 0 ≤ n < 2^53. V8's general radix conversion (it handles
 * fractions) cost ~1 µs a call, two per event: most of the content hash's time.
 */
export function base36(n: number): string {
  let s = '';
  do {
    const r = n % 36;
    s = BASE36[r] + s;
    n = (n - r) / 36; // exact: n - r is a multiple of 36
  } while (n > 0);
  return s;
}

/** cyrb53's final mix of one seed's two lanes, as its 53-bit value in base 36. */
function cyrb53Final(h1: number, h2: number): string {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return base36(4294967296 * (2097151 & h2) + (h1 >>> 0));
}

/**
 * cyrb53 (public domain), a 53-bit string hash fast in plain JavaScript, with seeds 1 and 2 computed
 * in one pass over the text (the same two values as two separate passes).
 */
function cyrb53x2(text: string): string {
  let a1 = 0xdeadbeef ^ 1;
  let a2 = 0x41c6ce57 ^ 1;
  let b1 = 0xdeadbeef ^ 2;
  let b2 = 0x41c6ce57 ^ 2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a1 = Math.imul(a1 ^ c, 2654435761);
    a2 = Math.imul(a2 ^ c, 1597334677);
    b1 = Math.imul(b1 ^ c, 2654435761);
    b2 = Math.imul(b2 ^ c, 1597334677);
  }
  return `${cyrb53Final(a1, a2)}.${cyrb53Final(b1, b2)}`;
}

/**
 * What identifies an event's content: a retry with the same content is a duplicate, anything else a
 * conflict. Two seeded 53-bit hashes (106 bits): only two contents under the same idTransaccion are
 * ever compared, so an accidental collision is out of reach. Not sha256: on Node 20 with OpenSSL 3
 * each digest costs ~14 µs here, the largest CPU item of a batch after zod. Stored in the dedup
 * table: its value for a given content must never change (a unit test pins some).
 * `propertiesJson`: canonical(properties), when the caller has it already.
 */
export function contentHash(contractId: number, metric: string, at: Date, properties: Record<string, unknown>, propertiesJson = canonical(properties)): string {
  return cyrb53x2(`${contractId}\n${metric}\n${at.getTime()}\n${propertiesJson}`);
}

/** A valid event ready to store: its values for the rollups. */
export interface PreparedEvent {
  index: number; transactionId: string; contractId: number; metricId: number; at: Date;
  properties: Record<string, unknown>; value: string | null; distinct: string | null; groups: Record<string, string>; groupKey: string; hash: string;
  /** canonical(properties): hashed, and stored as the raw event's jsonb. */
  propertiesJson: string;
  /** It falls in a period the contract already closed (accepted all the same; issue 40 point 6). */
  late: boolean;
}
export type Checked = { ok: true; event: PreparedEvent } | { ok: false; reason: RejectionReason; message: string };

// Module level, not a closure per call: tsx (esbuild keepNames) wraps each named closure in a call at creation.
function fail(reason: RejectionReason, message: string): Checked {
  return { ok: false, reason, message };
}

/** Every check of one well-formed event that does not need the dedup table. */
export function checkEvent(index: number, e: EventItem, ctx: {
  contract: ContractDef | undefined; metric: MetricDef | undefined; now: Date; admissibleFrom: Date;
}): Checked {
  const { contract, metric } = ctx;
  if (!contract) return fail('contrato_desconocido', 'El contrato no existe en esta empresa.');
  if (!metric) return fail('metrica_desconocida', `La métrica ${e.metrica} no existe en esta empresa.`);
  if (!contract.metricIds.includes(metric.id)) return fail('metrica_no_contratada', `El contrato no mide la métrica ${e.metrica}.`);
  const at = new Date(e.fechaHora);
  if (at.getTime() > ctx.now.getTime() + MAX_FUTURE_MS) return fail('fecha_futura', 'fechaHora está más de 5 minutos en el futuro.');
  if (at < ctx.admissibleFrom) return fail('fecha_fuera_de_plazo', `fechaHora es anterior al período abierto más la gracia (se aceptan eventos desde ${ctx.admissibleFrom.toISOString()}).`);
  if (!METERING_STATES.has(contract.state) || at < contract.startsAt || (contract.endsAt && at >= contract.endsAt)) {
    return fail('contrato_no_vigente', `El contrato no mide uso en esa fecha (estado ${contract.state}, vigente desde ${contract.startsAt.toISOString()}${contract.endsAt ? ` hasta ${contract.endsAt.toISOString()}` : ''}).`);
  }
  const properties = e.propiedades ?? {};
  let value: string | null = null;
  let distinct: string | null = null;
  if (metric.property) {
    const raw = properties[metric.property];
    if (raw === undefined) return fail('propiedad_faltante', `Falta la propiedad ${metric.property} que la métrica ${metric.code} agrega.`);
    if (metric.aggregation === 'unique_count') distinct = String(raw);
    else if ((value = decimalOf(raw)) === null) return fail('propiedad_no_numerica', `La propiedad ${metric.property} debe ser un número decimal (envíelo como texto, p. ej. "12.5").`);
  }
  const groups: Record<string, string> = {};
  for (const k of metric.groupKeys) if (properties[k] !== undefined) groups[k] = String(properties[k]);
  const propertiesJson = canonical(properties);
  return {
    ok: true,
    event: {
      index, transactionId: e.idTransaccion, contractId: contract.id, metricId: metric.id, at, properties, value, distinct,
      groups, groupKey: canonical(groups), hash: contentHash(contract.id, metric.code, at, properties, propertiesJson), propertiesJson,
      late: contract.billedUntil !== null && at < contract.billedUntil,
    },
  };
}
