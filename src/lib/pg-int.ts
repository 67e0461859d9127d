/**
 * PostgreSQL integer column ranges. Numeric body fields that land in such a column are bounded in
 * their zod schema, so an out-of-range value is a 400 on the field instead of a database error
 * (22003 "integer out of range", which surfaced as a 500).
 */
export const PG_INT_MAX = 2_147_483_647;
export const PG_SMALLINT_MAX = 32_767;
