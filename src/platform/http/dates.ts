/**
 * The request date shapes every module validates alike: a day that exists in the calendar
 * (2026-02-30 is refused on the field, not failed later by the database or a date computation),
 * within the years the service stores and computes with (year 10000 overflowed date arithmetic;
 * year 0 has no ISO date).
 */
import { z } from 'zod';
import { isCalendarDate } from '../../lib/dates.js';

const MIN_YEAR = 1900;
const MAX_YEAR = 2999;

function inYears(year: number): boolean {
  return year >= MIN_YEAR && year <= MAX_YEAR;
}

/** YYYY-MM-DD, a real calendar day between 1900 and 2999. */
export const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'formato AAAA-MM-DD')
  .refine((d) => inYears(Number(d.slice(0, 4))), `el año debe estar entre ${MIN_YEAR} y ${MAX_YEAR}`)
  // zod runs every refinement even after the format failed: isCalendarDate never throws.
  .refine(isCalendarDate, 'la fecha no existe en el calendario');

/** YYYY-MM between 1900 and 2999. */
export const calendarMonth = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'formato AAAA-MM')
  .refine((m) => inYears(Number(m.slice(0, 4))), `el año debe estar entre ${MIN_YEAR} y ${MAX_YEAR}`);
