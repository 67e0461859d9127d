/**
 * DGI submission (issue 6 points 2-3): envelopes sent to DGI, their items, the per-company
 * Idemisor counter and the per-company sending policy. The queue of CFEs waiting to be sent is the
 * CFE's own state (`issued_cfes.estado = 'firmado'`, partial index below): emission writes nothing here.
 */
import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, check, index, integer, pgTable, smallint, text, timestamp, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { companies } from '../companies/companies.tables.js';
import { issuedCfes } from '../issued-cfe/issued-cfe.tables.js';

/** Envelope states (ours, not DGI's): see ENVELOPE_STATES in dgi-submission.policy.ts. */
export const dgiEnvelopes = pgTable(
  'dgi_envelopes',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    /** Caratula/Idemisor: unique and increasing per issuer (BRIEF 5; a resend gives S08). */
    idEmisor: bigint({ mode: 'number' }).notNull(),
    estado: varchar({ length: 20 }).notNull().default('creado'),
    /**
     * The EnvioCFE bytes exactly as built, for envelopes stored before migration 0046. Since then the worker's
     * envelopes keep only `xmlHead`: their CFEs' bytes are each CFE's own signed XML, already in
     * issued_cfes, so the envelope is `xmlHead` + those CFEs in item order + the closing tag (sobre.ts
     * assembleEnvioCfe), the same bytes a resend after a crash sends. The copy, pglz-compressed, was ~0.5 KB of rows
     * per CFE (docs/DEPLOYMENT.md), and its compression and WAL were paid at every envelope.
     */
    xml: text(),
    /** Declaration, root and Caratula of a worker-built envelope, as sent (sobre.ts envioCfeHead). */
    xmlHead: text(),
    cantCfe: smallint().notNull(),
    bytes: integer().notNull(),
    fecha: text().notNull(),
    sendAttempts: integer().notNull().default(0),
    pollAttempts: integer().notNull().default(0),
    /** A sender holds the envelope until then (crash-safe claim, like the webhook engine's lease). */
    leaseUntil: timestamp({ withTimezone: true, mode: 'date' }),
    nextAttemptAt: timestamp({ withTimezone: true, mode: 'date' }),
    ackSobreXml: text(),
    ackEstado: varchar({ length: 2 }),
    /** ACKSobre Caratula/IDReceptor and ParamConsulta (what EFACCONSULTARESTADOENVIO needs). */
    idReceptor: text(),
    token: text(),
    consultarDesde: timestamp({ withTimezone: true, mode: 'date' }),
    ackCfeXml: text(),
    errorCodigo: varchar({ length: 20 }),
    errorMensaje: text(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    sentAt: timestamp({ withTimezone: true, mode: 'date' }),
    processedAt: timestamp({ withTimezone: true, mode: 'date' }),
    /** Recovery queries made (ws_consultas) after an answer was lost or the CFEs made no progress. */
    recoveryAttempts: integer().notNull().default(0),
    /** When DGI's record of this envelope was learnt from a recovery query rather than its ACKSobre. */
    recoveredAt: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (t) => [
    check('dgi_envelopes_xml_ck', sql`${t.xml} is not null or ${t.xmlHead} is not null`),
    uniqueIndex('dgi_envelopes_idemisor_uq').on(t.companyId, t.idEmisor),
    index('dgi_envelopes_company_idx').on(t.companyId, t.id),
    index('dgi_envelopes_open_idx').on(t.estado).where(sql`${t.estado} in ('creado', 'recibido')`),
  ],
);

/**
 * CFEs of an envelope, in envelope order. `live` turns false when DGI rejects the whole envelope
 * (BS: the CFEs were not processed and may go in a new one); the partial unique index makes it
 * impossible for one CFE to be in two live envelopes (never sent twice).
 */
export const dgiEnvelopeItems = pgTable(
  'dgi_envelope_items',
  {
    envelopeId: bigint({ mode: 'number' }).notNull().references(() => dgiEnvelopes.id),
    /** The envelope's company: the distribution column of a sharded database (issue 45, docs/DEPLOYMENT.md). */
    companyId: integer().notNull().references(() => companies.id),
    issuedCfeId: bigint({ mode: 'number' }).notNull().references(() => issuedCfes.id),
    ordinal: smallint().notNull(),
    live: boolean().notNull().default(true),
  },
  (t) => [
    uniqueIndex('dgi_envelope_items_pk').on(t.envelopeId, t.ordinal),
    uniqueIndex('dgi_envelope_items_live_cfe_uq').on(t.issuedCfeId).where(sql`${t.live}`),
  ],
);

/** Last Idemisor used per company (incremented in the envelope's transaction). */
export const dgiIdEmisorCounters = pgTable('dgi_idemisor_counters', {
  companyId: integer().primaryKey().references(() => companies.id),
  lastIdEmisor: bigint({ mode: 'number' }).notNull(),
});

/**
 * Which CFEs go individually to DGI (BRIEF 1): 'todos' (default: every CFE, accepted in practice)
 * or 'obligatorios' (e-Tickets and their notes at or below 5,000 UI only in the daily report).
 */
export const dgiSubmissionSettings = pgTable('dgi_submission_settings', {
  companyId: integer().primaryKey().references(() => companies.id),
  envioIndividual: varchar({ length: 20 }).notNull().default('todos'),
  updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

export type DgiEnvelopeRow = typeof dgiEnvelopes.$inferSelect;
