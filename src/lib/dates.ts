/**
 * Calendar dates as DGI writes them (YYYY-MM-DD), in Uruguay. Uruguay has kept UTC−3 all year
 * since DST was abolished in 2015, and every TmstFirma we sign says -03:00 (emission
 * formatTmstFirma), so "today" is the UTC instant minus three hours: the same day that signature
 * shows, with no Intl formatter on hot paths.
 */
/** Uruguay's UTC offset as ISO 8601 writes it. */
export const UY_UTC_OFFSET = '-03:00';
const UY_OFFSET_MS = 3 * 3_600_000;

export function uyToday(now: Date | number = Date.now()): string {
  return new Date((typeof now === 'number' ? now : now.getTime()) - UY_OFFSET_MS).toISOString().slice(0, 10);
}

/** YYYY-MM-DD as Uruguayans read it, DD/MM/YYYY (error messages). */
export function ddmmyyyy(date: string): string {
  return `${date.slice(8, 10)}/${date.slice(5, 7)}/${date.slice(0, 4)}`;
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

const YMD = /^\d{4}-\d{2}-\d{2}$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const digitsAt = (s: string, from: number, to: number) => {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + s.charCodeAt(i) - 48;
  return n;
};

/**
 * A real calendar day written YYYY-MM-DD (the format alone lets 2026-02-30 through), proleptic
 * Gregorian as JavaScript's Date reads it (year 0000 included). Never throws. Arithmetic instead of
 * a Date round trip: every emitir checks a few dates (issue 5 point 11).
 */
export function isCalendarDate(ymd: string): boolean {
  if (!YMD.test(ymd)) return false;
  const year = digitsAt(ymd, 0, 4);
  const month = digitsAt(ymd, 5, 7);
  const day = digitsAt(ymd, 8, 10);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]);
}
