import { bigint, bigserial, index, integer, jsonb, pgTable, text, timestamp, varchar } from 'drizzle-orm/pg-core';
import { companies } from '../companies/companies.tables.js';

/** The columns of a file e-mailed to a receiver with its attempts recorded (receiver-exchange.mail.ts): envelopes and notices. */
const mailedFileColumns = () => ({
  rutReceptor: varchar({ length: 12 }).notNull(),
  cfeIds: jsonb().$type<number[]>().notNull(),
  xml: text().notNull(),
  fileName: text().notNull(),
  estado: varchar({ length: 10 }).notNull(),
  intentos: integer().notNull().default(0),
  ultimoError: text(),
  messageId: text(),
  enviadoEn: timestamp({ withTimezone: true, mode: 'date' }),
  /** How the last attempt went out (receiver-exchange.mail.ts): empresa (its correoSaliente), servicio (SMTP_URL) or outbox (no SMTP: .eml under DATA_DIR/outbox). */
  transporte: varchar({ length: 10 }),
});

/**
 * Envelopes to electronic receivers (EnvioCFE_entreEmpresas, BRIEF 5 and 8). The row id is the
 * envelope's Idemisor: unique and monotonic per issuer (a repeated one gets S20 from the receiver).
 *
 * estado: 'generado' (returned by generarSobreReceptor, not sent), 'pendiente' (e-mail queued),
 * 'enviado' (e-mailed), 'error' (e-mail attempts used up), then the receiver's ACKSobre:
 * 'recibido' (AS) or 'rechazado' (BS, S-codes in `ackMotivos`).
 */
export const receiverEnvelopes = pgTable(
  'receiver_envelopes',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    customerId: integer(),
    email: text(),
    ...mailedFileColumns(),
    ackMotivos: jsonb(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('receiver_envelopes_company_idx').on(t.companyId, t.id)],
);

/**
 * Every receiver answer received (ACKSobre / ACKCFE per ACKCFE_Partes.xsd), uploaded or mailed, verbatim,
 * for the audit trail and the issuer's view of the exchange (issue 42 points 1 and 4). estado:
 * 'aplicada' (states changed, or repeated), 'rechazada' (refused with `codigo` / `error`: nothing
 * changed, no event). Only answers that parsed and verified are stored (an unreadable document
 * names no receiver); the mailbox log (inbound_mails) keeps the rest.
 */
export const receiverAcks = pgTable(
  'receiver_acks',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    envelopeId: bigint({ mode: 'number' }),
    tipo: varchar({ length: 8 }).notNull(),
    rutReceptor: varchar({ length: 12 }).notNull(),
    idRespuesta: text(),
    xml: text().notNull(),
    userId: integer(),
    estado: varchar({ length: 10 }).$type<'aplicada' | 'rechazada'>().notNull().default('aplicada'),
    /** importacion (POST respuestaReceptor) or correo (the company's inbound mailbox). */
    canal: varchar({ length: 12 }).$type<'importacion' | 'correo'>().notNull().default('importacion'),
    codigo: varchar({ length: 64 }),
    error: text(),
    /** The issued CFEs the answer names and that are the company's (ACKCFE), or the envelope's (ACKSobre). */
    cfeIds: jsonb().$type<number[]>().notNull().default([]),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('receiver_acks_company_idx').on(t.companyId, t.id), index('receiver_acks_envelope_idx').on(t.envelopeId)],
);

/**
 * Notices CFEs_Anulados_x_RechazoDGI (BRIEF 8): a CFE we e-mailed to a receiver that DGI then
 * rejected is annulled (BRIEF 10), and the receiver is told so. The row id is IDComunicacion (also in
 * the file name Rech_<RUC>_<id>.xml). estado: 'pendiente' (e-mail queued), 'enviado', 'error'
 * (e-mail attempts used up).
 */
export const receiverNotices = pgTable(
  'receiver_notices',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    email: text().notNull(),
    ...mailedFileColumns(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('receiver_notices_company_idx').on(t.companyId, t.id)],
);

/** One row per CFE noticed; the primary key on the issued CFE makes "at most one notice per CFE" hold under concurrent dispatchers. */
export const receiverNoticeCfes = pgTable(
  'receiver_notice_cfes',
  {
    issuedCfeId: bigint({ mode: 'number' }).primaryKey(),
    noticeId: bigint({ mode: 'number' }).notNull().references(() => receiverNotices.id),
    /** The notice's company: the distribution column of a sharded database (docs/DEPLOYMENT.md). */
    companyId: integer().notNull().references(() => companies.id),
  },
  (t) => [index('receiver_notice_cfes_notice_idx').on(t.noticeId)],
);

export type ReceiverEnvelopeRow = typeof receiverEnvelopes.$inferSelect;
export type ReceiverNoticeRow = typeof receiverNotices.$inferSelect;
export type ReceiverAckRow = typeof receiverAcks.$inferSelect;
