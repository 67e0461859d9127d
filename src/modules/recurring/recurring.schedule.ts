/**
 * Schedule arithmetic of recurring plans, as pure functions (no I/O, no clock of their own).
 *
 * Every date is computed from the ANCHOR (fechaInicio + unit × interval × k, the day clamped to the
 * month's length), never from the previous date: 31 Jan → 28/29 Feb → 31 Mar, never the "ratchet"
 * 31 → 28 → 28 of tools that add a month to the last run (design B.2). Occurrence k starts period k;
 * period k ends the day before occurrence k+1. In advance (`adelantado`) period k is billed at
 * occurrence k; in arrears (`vencido`) at occurrence k+1. The run time is `horaEmision` local time in
 * the plan's IANA zone (America/Montevideo by default), converted with Intl, so DST zones work too.
 */

export type Unidad = 'dia' | 'semana' | 'mes' | 'anio';
export type DiaDelMes = number | 'ultimo';
export type Fin = { tipo: 'nunca' } | { tipo: 'fecha'; fecha: string } | { tipo: 'ciclos'; ciclos: number };
export type Politica = 'emitir_todos' | 'emitir_uno' | 'omitir';

export interface Schedule {
  unidad: Unidad;
  intervalo: number;
  /** mes / anio: 1..31 or 'ultimo'; default the day of fechaInicio. */
  diaDelMes?: DiaDelMes;
  /** semana: ISO weekday 1 (Monday) .. 7 (Sunday); default the weekday of fechaInicio. */
  diaSemana?: number;
  horaEmision: string;
  zonaHoraria: string;
  fechaInicio: string;
  fin: Fin;
  modo: 'adelantado' | 'vencido';
}

const ymd = (y: number, m: number, d: number) => new Date(Date.UTC(y, m, d)).toISOString().slice(0, 10);
const parts = (date: string) => ({ y: Number(date.slice(0, 4)), m: Number(date.slice(5, 7)) - 1, d: Number(date.slice(8, 10)) });

export function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
}

export function addDaysTo(date: string, days: number): string {
  const { y, m, d } = parts(date);
  return ymd(y, m, d + days);
}

/** ISO weekday 1..7 of a calendar date. */
export function isoWeekday(date: string): number {
  const { y, m, d } = parts(date);
  return ((new Date(Date.UTC(y, m, d)).getUTCDay() + 6) % 7) + 1;
}

/** The anchor day in month (y, m): the day itself, or the month's last day when shorter / 'ultimo'. */
function anchoredDay(y: number, m: number, dia: DiaDelMes): string {
  const last = daysInMonth(y, m);
  const day = dia === 'ultimo' ? last : Math.min(dia, last);
  return ymd(y, m, day);
}

/** Start of period k (k ≥ 0): the k-th occurrence on or after fechaInicio, from the anchor. */
export function occurrence(s: Schedule, k: number): string {
  const start = parts(s.fechaInicio);
  switch (s.unidad) {
    case 'dia':
      return addDaysTo(s.fechaInicio, k * s.intervalo);
    case 'semana': {
      const shift = ((s.diaSemana ?? isoWeekday(s.fechaInicio)) - isoWeekday(s.fechaInicio) + 7) % 7;
      return addDaysTo(s.fechaInicio, shift + 7 * s.intervalo * k);
    }
    case 'mes':
    case 'anio': {
      const dia = s.diaDelMes ?? start.d;
      const step = s.unidad === 'mes' ? s.intervalo : 12 * s.intervalo;
      // The first occurrence is in fechaInicio's month unless the anchor day there falls before it.
      const base = anchoredDay(start.y, start.m, dia) < s.fechaInicio ? start.m + 1 : start.m;
      const month = base + step * k;
      return anchoredDay(start.y + Math.floor(month / 12), ((month % 12) + 12) % 12, dia);
    }
  }
}

export interface Period {
  k: number;
  desde: string;
  hasta: string;
  /** The local calendar day of the run. */
  fechaEjecucion: string;
  /** The instant of the run (horaEmision in the plan's zone). */
  programadaPara: Date;
}

export function period(s: Schedule, k: number): Period {
  const desde = occurrence(s, k);
  const next = occurrence(s, k + 1);
  const fechaEjecucion = s.modo === 'adelantado' ? desde : next;
  return { k, desde, hasta: addDaysTo(next, -1), fechaEjecucion, programadaPara: zonedInstant(fechaEjecucion, s.horaEmision, s.zonaHoraria) };
}

/** Whether period k is inside the plan's end (cycles counted from 0; an end date includes periods starting on it). */
export function withinEnd(s: Schedule, k: number): boolean {
  if (s.fin.tipo === 'ciclos') return k < s.fin.ciclos;
  if (s.fin.tipo === 'fecha') return occurrence(s, k) <= s.fin.fecha;
  return true;
}

/** Up to `n` next periods from index `from`, stopping at the plan's end. */
export function nextPeriods(s: Schedule, from: number, n: number): Period[] {
  const out: Period[] = [];
  for (let k = from; out.length < n && withinEnd(s, k); k++) out.push(period(s, k));
  return out;
}

/** The periods from `from` whose run time has come (≤ now), at most `limit`, stopping at the end. */
export function duePeriods(s: Schedule, from: number, now: Date, limit = 1000): Period[] {
  const out: Period[] = [];
  for (let k = from; out.length < limit && withinEnd(s, k); k++) {
    const p = period(s, k);
    if (p.programadaPara.getTime() > now.getTime()) break;
    out.push(p);
  }
  return out;
}

/** The first index ≥ from whose run time is after `now` (the periods before it are past). */
export function firstFutureIndex(s: Schedule, from: number, now: Date): number {
  let k = from;
  while (withinEnd(s, k) && period(s, k).programadaPara.getTime() <= now.getTime()) k++;
  return k;
}

/**
 * The first index ≥ from whose run time is at or after `at`: when a plan becomes active again at
 * `at` (a pause ending), the periods before it fell inside the pause and a run at exactly `at` does not.
 */
export function firstIndexFrom(s: Schedule, from: number, at: Date): number {
  let k = from;
  while (withinEnd(s, k) && period(s, k).programadaPara.getTime() < at.getTime()) k++;
  return k;
}

export interface CatchUp {
  /** Each entry is one CFE: the periods it bills (one, or several folded by emitir_uno). */
  emit: Period[][];
  /** Periods recorded as `omitido` without a CFE. */
  skip: Period[];
}

/**
 * What to do with the due periods of one plan. The latest due period is the current one and is
 * always issued; the earlier ones are the MISSED runs (the service was down, or a run is late):
 * `emitir_todos` issues one CFE each (default: every period keeps its own CFE and adenda),
 * `emitir_uno` folds them with the current one into one CFE (quantities × periods, the adenda says
 * the whole span), `omitir` records them as skipped and issues only the current one.
 */
export function catchUp(policy: Politica, due: Period[]): CatchUp {
  if (due.length <= 1) return { emit: due.length ? [due] : [], skip: [] };
  if (policy === 'emitir_todos') return { emit: due.map((p) => [p]), skip: [] };
  if (policy === 'emitir_uno') return { emit: [due], skip: [] };
  return { emit: [due.slice(-1)], skip: due.slice(0, -1) };
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(zone, f);
  }
  return f;
}

export function isValidZone(zone: string): boolean {
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** Wall-clock fields of an instant in a zone. */
function wallClock(at: Date, zone: string) {
  const p = Object.fromEntries(formatter(zone).formatToParts(at).map((x) => [x.type, x.value]));
  return { date: `${p.year}-${p.month}-${p.day}`, ms: Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second)) };
}

/** The local calendar date of an instant in a zone (the run's fechaEmision). */
export function localDate(at: Date, zone: string): string {
  return wallClock(at, zone).date;
}

/**
 * The instant of local `date` `hhmm` in `zone`. A local time that does not exist (DST gap) moves
 * forward by the gap; an ambiguous one (DST overlap) takes the first.
 */
export function zonedInstant(date: string, hhmm: string, zone: string): Date {
  const { y, m, d } = parts(date);
  const wanted = Date.UTC(y, m, d, Number(hhmm.slice(0, 2)), Number(hhmm.slice(3, 5)));
  let guess = wanted;
  for (let i = 0; i < 3; i++) {
    const offset = wallClock(new Date(guess), zone).ms - guess;
    const next = wanted - offset;
    if (next === guess) break;
    guess = next;
  }
  return new Date(guess);
}
