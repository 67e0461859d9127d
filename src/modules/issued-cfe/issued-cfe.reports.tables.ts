import { integer, jsonb, pgTable, primaryKey, timestamp } from 'drizzle-orm/pg-core';
import { companies } from '../companies/companies.tables.js';
import { users } from '../users/users.tables.js';

/**
 * A user's chosen spreadsheet columns for exportarExcel (issue 7 point 4): column keys of
 * issued-cfe.export-columns.ts, in order. `companyScope` is the company id, or 0 for the user's
 * default across companies (a company-specific row wins over it).
 */
export const cfeExportConfigs = pgTable(
  'cfe_export_configs',
  {
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    companyScope: integer().notNull().default(0),
    columnas: jsonb().$type<string[]>().notNull(),
    updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.companyScope] })],
);

/** Account codes of the accounting export (ExportacionContable/exportarExt), per company; defaults when absent. */
export const accountingAccounts = pgTable('accounting_accounts', {
  companyId: integer().primaryKey().references(() => companies.id),
  cuentas: jsonb().$type<Record<string, string>>().notNull(),
  updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
