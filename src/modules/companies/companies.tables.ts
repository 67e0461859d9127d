import { boolean, pgTable, serial, text, timestamp, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { timestamps } from '../../platform/db/columns.js';

/**
 * Companies (empresas): the tenant. The platform issue needs id, RUT, name and the enabled flag
 * for the tenancy rule; the companies issue owns the rest of the record.
 */
export const companies = pgTable(
  'companies',
  {
    id: serial().primaryKey(),
    rut: varchar({ length: 12 }).notNull(),
    razonSocial: text().notNull(),
    nombreComercial: text(),
    enabled: boolean().notNull().default(true),
    /** Soft delete: fiscal records of a company are never destroyed. */
    deletedAt: timestamp({ withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [uniqueIndex('companies_rut_uq').on(t.rut).where(sql`${t.deletedAt} is null`)],
);
