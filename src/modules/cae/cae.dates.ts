/** Calendar dates as DGI writes them (YYYY-MM-DD), in Uruguay's time zone. */
const fmt = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Montevideo', year: 'numeric', month: '2-digit', day: '2-digit' });

export function uyToday(now: Date = new Date()): string {
  return fmt.format(now);
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
