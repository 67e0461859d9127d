import { date, integer, jsonb, numeric, pgTable, primaryKey, smallint, timestamp, varchar } from 'drizzle-orm/pg-core';
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

/**
 * The charts' summary (issue 29 point 4): per company, Uruguay day (UTC−3) of firmado_en, CFE type and
 * currency, how many CFEs were stored and the sums of their signed amounts (credit notes negative, only
 * sales types carry one) in their currency and in pesos. Every CFE counts whatever its estado: the
 * charts subtract the rejected ones at read time (few, found by issued_cfes_company_estado_idx), so a
 * state change never writes here. Maintained by PostgreSQL triggers on issued_cfes in the writing
 * statement's transaction (migration 0025): one aggregated upsert per INSERT statement (a whole
 * emission batch), a subtraction per DELETE statement, a move when a grouped column is updated.
 */
export const issuedCfeChartDays = pgTable(
  'issued_cfe_chart_days',
  {
    companyId: integer().notNull().references(() => companies.id),
    dia: date({ mode: 'string' }).notNull(),
    tipoCfe: smallint().notNull(),
    moneda: varchar({ length: 3 }).notNull(),
    cantidad: integer().notNull(),
    monto: numeric().notNull(),
    montoUyu: numeric().notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.dia, t.tipoCfe, t.moneda] })],
);
