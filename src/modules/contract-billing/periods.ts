/**
 * Billing periods of a contract (issue 34 point 2), anchored like recurring plans: a period starts
 * on the anchor day of a month (1-31; a month shorter than the anchor starts it on its last day) at
 * 00:00 in Uruguay and ends where the next one starts. Dates are computed from the anchor each time,
 * never by adding a month to the previous start, so a 31 anchor returns to the 31st after February.
 * Uruguay keeps UTC−3 all year (lib/dates.ts), so a local midnight is 03:00 UTC.
 */
import { uyToday } from '../../lib/dates.js';

export interface Period {
  /** First day, YYYY-MM-DD (the period's key). */
  desde: string;
  /** Last day, YYYY-MM-DD (inclusive, as PeriodoHasta of the CFE). */
  hasta: string;
  /** [start, end) as instants. */
  start: Date;
  end: Date;
}

const daysIn = (y: number, m: number) => new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
const ymd = (y: number, m: number, d: number) => new Date(Date.UTC(y, m, d)).toISOString().slice(0, 10);

/** The anchor date of month (y, m0) (m0 0-based, may overflow into other years). */
function anchorDate(y: number, m0: number, anchorDay: number): string {
  const yy = y + Math.floor(m0 / 12);
  const mm = ((m0 % 12) + 12) % 12;
  return ymd(yy, mm, Math.min(anchorDay, daysIn(yy, mm)));
}

export const localMidnight = (date: string): Date => new Date(`${date}T03:00:00Z`);

function dayBefore(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

function build(y: number, m0: number, anchorDay: number): Period {
  const desde = anchorDate(y, m0, anchorDay);
  const next = anchorDate(y, m0 + 1, anchorDay);
  return { desde, hasta: dayBefore(next), start: localMidnight(desde), end: localMidnight(next) };
}

/** The period containing the local day `date` (YYYY-MM-DD). */
export function periodOfDate(date: string, anchorDay: number): Period {
  const y = Number(date.slice(0, 4));
  const m0 = Number(date.slice(5, 7)) - 1;
  return date >= anchorDate(y, m0, anchorDay) ? build(y, m0, anchorDay) : build(y, m0 - 1, anchorDay);
}

/** The period containing the instant `at`. */
export const periodAt = (at: Date, anchorDay: number): Period => periodOfDate(uyToday(at), anchorDay);

/** The period that follows the one containing the day `desde`. */
export const nextPeriod = (desde: string, anchorDay: number): Period => periodAt(periodOfDate(desde, anchorDay).end, anchorDay);

/**
 * The period that starts on `desde`, any day: it ends where the first period of the anchor after
 * `desde` starts. On an anchor date this is the anchored period; elsewhere (the open period after a
 * change of diaAncla, issue 40 point 2) it is a shorter one that brings the contract onto the new
 * anchor. The close always bills the contract's open period through this function, so an open period
 * can never be one no close matches.
 */
export function periodFrom(desde: string, anchorDay: number): Period {
  const holding = periodOfDate(desde, anchorDay);
  return { desde, hasta: holding.hasta, start: localMidnight(desde), end: holding.end };
}

/** A stored period [desde, hasta] (days, inclusive) as instants. */
export function periodBetween(desde: string, hasta: string): Period {
  return { desde, hasta, start: localMidnight(desde), end: localMidnight(nextDay(hasta)) };
}

/** The contract's period holding `now`: its open period when `now` is inside it, else the anchored one. */
export function currentPeriod(openStart: string, anchorDay: number, now: Date): Period {
  const open = periodFrom(openStart, anchorDay);
  return now >= open.start && now < open.end ? open : periodAt(now, anchorDay);
}

function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}
