import { date, integer, numeric, pgTable, primaryKey, timestamp, varchar } from 'drizzle-orm/pg-core';
import { companies } from '../companies/companies.tables.js';

/** A company's own exchange rates: emission reads them before the central bank (spec 2.3 rule 7). */
export const exchangeRates = pgTable(
  'exchange_rates',
  {
    companyId: integer().notNull().references(() => companies.id),
    moneda: varchar({ length: 3 }).notNull(),
    fecha: date({ mode: 'string' }).notNull(),
    /** UYU per unit of `moneda`. */
    tipoCambio: numeric({ precision: 18, scale: 6 }).notNull(),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.moneda, t.fecha] })],
);
