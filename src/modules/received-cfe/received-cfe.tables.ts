import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, customType, date, index, integer, jsonb, numeric, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { companies } from '../companies/companies.tables.js';

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/** One check of BRIEF 8 (envelope or CFE) and its outcome, as shown on the received CFE. */
export interface CheckResult {
  control: string;
  ok: boolean;
  /** The DGI code the failure answers with (S01-S07, S20 for the envelope; E02-E05 for a CFE). */
  codigo?: string;
  detalle?: string;
}

/** A line taken into stock: NroLinDet of the CFE and the quantity counted (decimal string). */
export interface StockLine {
  nroLinea: number;
  cantidad: string;
}

export type ReceivedCfeState = 'pendiente' | 'aceptado' | 'rechazado' | 'rechazado_formato' | 'duplicado' | 'anulado_emisor';
export type Channel = 'correo' | 'importacion';

export interface Motive {
  codigo: string;
  glosa: string;
  detalle?: string | null;
}

/**
 * Envelopes received from other issuers (EnvioCFE_entreEmpresas, BRIEF 5 and 8), raw bytes kept.
 * estado is our ACKSobre answer: 'AS' or 'BS' (S-codes in motivos). Idempotency: the same bytes again
 * are the same row (sha256); another envelope with an Idemisor already received is answered BS S20.
 */
export const receivedEnvelopes = pgTable(
  'received_envelopes',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    canal: varchar({ length: 12 }).$type<Channel>().notNull(),
    rutEmisor: varchar({ length: 12 }),
    idemisor: bigint({ mode: 'number' }),
    rutReceptor: varchar({ length: 12 }),
    fecha: text(),
    cantCfe: integer(),
    fileName: text(),
    bytes: bytea().notNull(),
    sha256: varchar({ length: 64 }).notNull(),
    estado: varchar({ length: 2 }).$type<'AS' | 'BS'>().notNull(),
    motivos: jsonb().$type<Motive[]>().notNull().default([]),
    verificaciones: jsonb().$type<CheckResult[]>().notNull().default([]),
    /** Where answers go: the mail's sender (or Reply-To), or what the uploader gave; null = download only. */
    emailRespuesta: text(),
    mailUid: text(),
    /**
     * A lone CFE uploaded without its envelope: this row stands for the envelope it did not come in
     * (bytes = the CFE; no Idemisor, no ACKSobre), so the decisions' ACKCFE still has a Caratula.
     */
    sinSobre: boolean().notNull().default(false),
    recibidoEn: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('received_envelopes_bytes_uq').on(t.companyId, t.sha256),
    uniqueIndex('received_envelopes_idemisor_uq').on(t.companyId, t.rutEmisor, t.idemisor).where(sql`estado = 'AS'`),
    index('received_envelopes_company_idx').on(t.companyId, t.id),
  ],
);

/**
 * Received CFEs. estado: 'pendiente' (awaits the company's decision), 'aceptado', 'rechazado'
 * (commercial motive E20-E60), 'rechazado_formato' (failed BRIEF 8's format checks: answered BE at
 * intake), 'duplicado' (same issuer, type, serie and number already received: answered BE E02),
 * 'anulado_emisor' (the issuer's CFEs_Anulados_x_RechazoDGI notice). `secuencia` is gap-free and
 * increasing per company in commit order (a counter row is locked), so "everything since N" never misses one.
 */
export const receivedCfes = pgTable(
  'received_cfes',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    secuencia: bigint({ mode: 'number' }).notNull(),
    envelopeId: bigint({ mode: 'number' }).references(() => receivedEnvelopes.id),
    nroOrdinal: integer(),
    canal: varchar({ length: 12 }).$type<Channel>().notNull(),
    rutEmisor: varchar({ length: 12 }),
    razonSocialEmisor: text(),
    tipoCfe: smallint(),
    serie: varchar({ length: 2 }),
    numero: integer(),
    fechaEmision: date({ mode: 'string' }),
    tmstFirma: text(),
    moneda: varchar({ length: 3 }),
    tipoCambio: numeric({ precision: 10, scale: 3 }),
    mntTotal: numeric({ precision: 17, scale: 2 }),
    mntPagar: numeric({ precision: 17, scale: 2 }),
    /** The fiscal zones read from the XML (issuer, receiver, totals, lines, references, due date). */
    datos: jsonb().$type<Record<string, unknown>>(),
    adenda: text(),
    xml: text().notNull(),
    verificaciones: jsonb().$type<CheckResult[]>().notNull().default([]),
    estado: varchar({ length: 20 }).$type<ReceivedCfeState>().notNull(),
    motivos: jsonb().$type<Motive[]>().notNull().default([]),
    vencimientoRespuesta: date({ mode: 'string' }),
    decididoEn: timestamp({ withTimezone: true, mode: 'date' }),
    decididoPor: integer(),
    /** The ACKCFE that carried our answer for this CFE (received_answers.id), once sent. */
    respuestaId: bigint({ mode: 'number' }),
    recibidoEn: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /**
     * marcarComoImportadoStock (issue 31 point 4): the external stock document that took the purchase
     * in, once and for all (another reference later is refused), optional per-line quantities.
     */
    stockReferencia: text(),
    stockLineas: jsonb().$type<StockLine[]>(),
    stockImportadoEn: timestamp({ withTimezone: true, mode: 'date' }),
    stockImportadoPor: integer(),
  },
  (t) => [
    uniqueIndex('received_cfes_secuencia_uq').on(t.companyId, t.secuencia),
    uniqueIndex('received_cfes_identity_uq').on(t.companyId, t.rutEmisor, t.tipoCfe, t.serie, t.numero).where(sql`estado not in ('duplicado', 'rechazado_formato')`),
    index('received_cfes_envelope_idx').on(t.envelopeId),
    // Search (issue 31 point 1, received-cfe.search.ts): every index leads with company_id; the date
    // indexes serve tipoFiltro ranges and the sort by the same date, id closing the key.
    index('received_cfes_company_fecha_emision_idx').on(t.companyId, t.fechaEmision, t.id),
    index('received_cfes_company_recibido_idx').on(t.companyId, t.recibidoEn, t.id),
    index('received_cfes_company_decidido_idx').on(t.companyId, t.decididoEn, t.id).where(sql`decidido_en is not null`),
    index('received_cfes_company_estado_idx').on(t.companyId, t.estado, t.fechaEmision),
    index('received_cfes_company_emisor_idx').on(t.companyId, t.rutEmisor, t.fechaEmision),
    index('received_cfes_company_numero_idx').on(t.companyId, t.tipoCfe, t.serie, t.numero),
    // "pendiente, due before X", sorted by the due date: the clerk's to-do list.
    index('received_cfes_company_vencimiento_idx').on(t.companyId, t.estado, t.vencimientoRespuesta),
    // razonSocialEmisor "contains" (ilike '%x%'): a trigram index (pg_trgm, migration 0008) serves it; a
    // GIN index cannot lead with company_id without btree_gin, and the planner ANDs it with the others.
    index('received_cfes_razon_social_trgm_idx').using('gin', t.razonSocialEmisor.op('gin_trgm_ops')).where(sql`${t.razonSocialEmisor} is not null`),
    index('received_cfes_company_stock_idx').on(t.companyId, t.stockImportadoEn).where(sql`stock_referencia is not null`),
  ],
);

export const receivedCfeHistory = pgTable(
  'received_cfe_history',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    receivedCfeId: bigint({ mode: 'number' }).notNull().references(() => receivedCfes.id),
    /** The CFE's company: the distribution column of a sharded database (docs/DEPLOYMENT.md). */
    companyId: integer().notNull().references(() => companies.id),
    estado: varchar({ length: 20 }).notNull(),
    motivos: jsonb().$type<Motive[]>(),
    mensaje: text(),
    userId: integer(),
    creadoEn: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('received_cfe_history_cfe_idx').on(t.receivedCfeId, t.id)],
);

/** Gap-free per-company counter behind received_cfes.secuencia. */
export const receivedCounters = pgTable('received_counters', {
  companyId: integer().primaryKey().references(() => companies.id),
  ultimo: bigint({ mode: 'number' }).notNull(),
});

/**
 * Our signed answers to issuers (BRIEF 8): ACKSobre per envelope, ACKCFE per decision batch. The id
 * is IDRespuesta. estado: 'pendiente' (mail queued), 'enviado', 'error', 'sin_destino' (no address:
 * downloadable only).
 */
export const receivedAnswers = pgTable(
  'received_answers',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    envelopeId: bigint({ mode: 'number' }).references(() => receivedEnvelopes.id),
    tipo: varchar({ length: 8 }).$type<'ACKSobre' | 'ACKCFE'>().notNull(),
    fileName: text().notNull(),
    xml: text().notNull(),
    email: text(),
    estado: varchar({ length: 16 }).$type<'pendiente' | 'enviado' | 'error' | 'sin_destino' | 'sin_certificado'>().notNull(),
    intentos: integer().notNull().default(0),
    ultimoError: text(),
    enviadoEn: timestamp({ withTimezone: true, mode: 'date' }),
    messageId: text(),
    /** empresa (its correoSaliente), servicio (SMTP_URL) or outbox (issue 42 point 2). */
    transporte: varchar({ length: 10 }),
    creadoEn: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('received_answers_envelope_idx').on(t.envelopeId)],
);

/** Per-company IMAP mailbox (BRIEF 8: e-mail must always be supported). The password is sealed under MASTER_KEY. */
export const inboundMailboxes = pgTable('inbound_mailboxes', {
  companyId: integer().primaryKey().references(() => companies.id),
  host: text().notNull(),
  port: integer().notNull(),
  tls: boolean().notNull(),
  usuario: text().notNull(),
  claveSellada: text().notNull(),
  carpeta: text().notNull().default('INBOX'),
  /** The mailbox's own address: Reply-To of the envelopes this company sends, so answers come back here. */
  direccion: text(),
  activo: boolean().notNull().default(true),
  uidValidity: bigint({ mode: 'number' }),
  ultimoUid: bigint({ mode: 'number' }).notNull().default(0),
  ultimoSondeoOk: timestamp({ withTimezone: true, mode: 'date' }),
  ultimoError: text(),
  ultimoErrorEn: timestamp({ withTimezone: true, mode: 'date' }),
  actualizadoEn: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * Every mail read from a mailbox, keyed by (company, UIDVALIDITY, UID): written in the intake's
 * transaction, so a crash before the commit reads the mail again and one after it never does.
 * clase (listed by GET /api/v1/empresa/correoEntrante/correos, issue 42 point 5): 'sobre' (envelope
 * registered), 'respuesta' (an ACK to one of our own issued CFEs, applied), 'respuesta_rechazada'
 * (an ACK refused: not from the CFE's receiver, unknown CFE, bad signature…), 'anulacion'
 * (CFEs_Anulados_x_RechazoDGI), 'sin_adjunto', 'otro' (no exchange XML), 'demasiado_grande', 'error'.
 */
export const inboundMails = pgTable(
  'inbound_mails',
  {
    companyId: integer().notNull().references(() => companies.id),
    uidValidity: bigint({ mode: 'number' }).notNull(),
    uid: bigint({ mode: 'number' }).notNull(),
    messageId: text(),
    remitente: text(),
    asunto: text(),
    clase: varchar({ length: 24 }).notNull(),
    detalle: text(),
    envelopeIds: jsonb().$type<number[]>().notNull().default([]),
    leidoEn: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.uidValidity, t.uid] }), index('inbound_mails_company_read_idx').on(t.companyId, t.leidoEn)],
);

export type ReceivedCfeRow = typeof receivedCfes.$inferSelect;
export type ReceivedEnvelopeRow = typeof receivedEnvelopes.$inferSelect;
export type ReceivedAnswerRow = typeof receivedAnswers.$inferSelect;
export type InboundMailboxRow = typeof inboundMailboxes.$inferSelect;

/** Idempotency-Key of aceptar / rechazar: the answer given to the first call, replayed to a retry. */
export const receivedIdempotency = pgTable(
  'received_idempotency',
  {
    companyId: integer().notNull().references(() => companies.id),
    key: text().notNull(),
    requestHash: varchar({ length: 64 }).notNull(),
    response: jsonb().notNull(),
    creadoEn: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.key] })],
);
