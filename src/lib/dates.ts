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

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** A real calendar day written YYYY-MM-DD (the format alone lets 2026-02-30 through). Never throws. */
export function isCalendarDate(ymd: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(ymd)) return false;
  const d = new Date(`${ymd}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === ymd;
}
