import { boolean, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestamps } from '../../platform/db/columns.js';
import { companies } from '../companies/companies.tables.js';

export const users = pgTable(
  'users',
  {
    id: serial().primaryKey(),
    /** Login name: the e-mail, stored lower-cased. */
    email: text().notNull(),
    nombre: text().notNull().default(''),
    passwordHash: text().notNull(),
    /** Operator of the whole service: sees and manages every company. */
    isOperator: boolean().notNull().default(false),
    enabled: boolean().notNull().default(true),
    failedLogins: integer().notNull().default(0),
    lockedAt: timestamp({ withTimezone: true, mode: 'date' }),
    /** Bumped by revoke-all and password changes: access tokens carry it, so old ones stop at once. */
    tokenVersion: integer().notNull().default(0),
    ...timestamps,
  },
  (t) => [uniqueIndex('users_email_uq').on(t.email)],
);

/** Per-company roles (issue 2 point 5): administrador > emisor > lectura. */
export const userCompanies = pgTable(
  'user_companies',
  {
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    companyId: integer().notNull().references(() => companies.id, { onDelete: 'cascade' }),
    role: text({ enum: ['administrador', 'emisor', 'lectura'] }).notNull(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.companyId] })],
);
