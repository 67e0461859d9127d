/**
 * Ids and counters are PostgreSQL `integer` columns (lib/pg-int.ts): a larger number in a query or
 * body is refused on its field instead of failing in the database (which error-handler.ts still
 * answers as a 400).
 */
import { z } from 'zod';
import { PG_INT_MAX } from '../../lib/pg-int.js';

/** A positive `integer` id or number, from a JSON number or a query string. */
export const positiveInt4 = z.coerce.number().int().positive().max(PG_INT_MAX);
