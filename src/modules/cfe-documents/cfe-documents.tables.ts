import { bigint, bigserial, customType, index, integer, pgTable, text, timestamp, varchar } from 'drizzle-orm/pg-core';
import { companies } from '../companies/companies.tables.js';
import { issuedCfes } from '../issued-cfe/issued-cfe.tables.js';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/**
 * Every e-mail of an issued CFE's PDF + signed XML (issue 7 point 5): one row per request, written
 * in the same transaction as its job. `estado`: pendiente → enviado | reintentando → … | fallido.
 * `intentos` counts SMTP attempts; `ultimoError`/`codigoSmtp` keep the last failure.
 */
export const cfeEmailSends = pgTable(
  'cfe_email_sends',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    issuedCfeId: bigint({ mode: 'number' }).notNull().references(() => issuedCfes.id),
    companyId: integer().notNull().references(() => companies.id),
    destinatarios: text().array().notNull(),
    asunto: text().notNull(),
    mensaje: text(),
    formato: varchar({ length: 10 }).notNull(),
    estado: varchar({ length: 15 }).notNull().default('pendiente'),
    intentos: integer().notNull().default(0),
    ultimoError: text(),
    codigoSmtp: integer(),
    messageId: text(),
    /** 'empresa' (company SMTP settings), 'servicio' (SMTP_URL) or 'outbox' (no SMTP: .eml file). */
    transporte: varchar({ length: 10 }),
    userId: integer(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    actualizadoEn: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    enviadoEn: timestamp({ withTimezone: true, mode: 'date' }),
    /**
     * When the company's copy (configuracion.emailCopiaCfe) was accepted: the copy is its own
     * message, sent once after the recipients' one, so a retry never repeats it (issue 28).
     */
    copiaEnviadaEn: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [index('cfe_email_sends_cfe_idx').on(t.issuedCfeId, t.id)],
);

export type CfeEmailSendRow = typeof cfeEmailSends.$inferSelect;

/**
 * Preview PDFs (POST /api/v1/comprobante/previsualizar), stored so that any API process can serve
 * the GET by token. Only the SHA-256 of the token is kept; rows expire (purged by a cron job).
 */
export const cfePreviews = pgTable(
  'cfe_previews',
  {
    tokenHash: varchar({ length: 64 }).primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    userId: integer().notNull(),
    formato: varchar({ length: 10 }).notNull(),
    pdf: bytea().notNull(),
    expiresAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('cfe_previews_expires_idx').on(t.expiresAt)],
);
