/**
 * Ids and counters are PostgreSQL `integer` columns: a larger number in a query or body is refused
 * on its field instead of failing in the database (which error-handler.ts still answers as a 400).
 */
import { z } from 'zod';

export const INT4_MAX = 2_147_483_647;

/** A positive `integer` id or number, from a JSON number or a query string. */
export const positiveInt4 = z.coerce.number().int().positive().max(INT4_MAX);
