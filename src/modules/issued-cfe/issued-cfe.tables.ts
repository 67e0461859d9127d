import { sql } from 'drizzle-orm';
import { bigint, bigserial, date, index, integer, numeric, pgTable, smallint, text, timestamp, uniqueIndex, varchar, jsonb } from 'drizzle-orm/pg-core';
import { branches, companies, emissionPoints } from '../companies/companies.tables.js';
import { caeRanges, cfcRanges } from '../cae/cae.tables.js';

/** Money columns: numeric(17,2) is DGI's MontoType (BRIEF 2.4); never JS floats. */
const money = () => numeric({ precision: 17, scale: 2 });

/**
 * Issued CFEs (spec 4.1). The signed XML is stored verbatim (BRIEF 3: envelopes embed these bytes
 * unchanged). `estado` starts at `firmado`; the DGI round-trip adds later states.
 */
export const issuedCfes = pgTable(
  'issued_cfes',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    branchId: integer().notNull().references(() => branches.id),
    emissionPointId: integer().notNull().references(() => emissionPoints.id),
    /** The CAE range the number came from; null for a transcribed contingency CFC (then cfcRangeId). */
    caeRangeId: integer().references(() => caeRanges.id),
    cfcRangeId: integer().references(() => cfcRanges.id),
    tipoCfe: smallint().notNull(),
    serie: varchar({ length: 2 }).notNull(),
    numero: integer().notNull(),
    fechaEmision: date({ mode: 'string' }).notNull(),
    /** TmstFirma exactly as written in the XML, and as a timestamp for range queries. */
    tmstFirma: text().notNull(),
    firmadoEn: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    receptorTipoDoc: smallint(),
    receptorDocumento: varchar({ length: 20 }),
    receptorNombre: varchar({ length: 150 }),
    customerId: integer(),
    moneda: varchar({ length: 3 }).notNull(),
    tipoCambio: numeric({ precision: 10, scale: 3 }),
    mntTotal: money(),
    mntPagar: money(),
    mntNetoIvaTasaMin: money(),
    mntNetoIvaTasaBasica: money(),
    mntIvaTasaMin: money(),
    mntIvaTasaBasica: money(),
    mntNoGrv: money(),
    /** Every DGI Totales field, as in the XML (for prints, reports and the daily report). */
    totales: jsonb().notNull(),
    xml: text().notNull(),
    digestValue: text().notNull(),
    codigoSeguridad: varchar({ length: 6 }).notNull(),
    urlQr: text().notNull(),
    adenda: text(),
    /** DGI-side state (src/modules/emission/cfe-states.ts CFE_STATES). */
    estado: text().notNull().default('firmado'),
    /** Receiver-side state (RECEPTOR_STATES); null when the receiver is not an electronic issuer. */
    estadoReceptor: text(),
    /** Last change of `estado` or `estadoReceptor`; null = unchanged since signing (firmadoEn). */
    estadoActualizadoEn: timestamp({ withTimezone: true, mode: 'date' }),
    idempotencyKey: varchar({ length: 200 }),
    requestHash: varchar({ length: 64 }),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('issued_cfes_number_uq').on(t.companyId, t.tipoCfe, t.serie, t.numero),
    index('issued_cfes_company_signed_idx').on(t.companyId, t.firmadoEn),
    uniqueIndex('issued_cfes_idempotency_uq').on(t.companyId, t.idempotencyKey).where(sql`${t.idempotencyKey} is not null`),
    // Search filters (issue 7 point 1, issued-cfe.search.ts): each leads with company_id.
    index('issued_cfes_company_fecha_emision_idx').on(t.companyId, t.fechaEmision),
    // Partial: most e-Tickets carry no receiver, and their NULLs are never searched (= and ilike imply
    // not null), so they cost every emission an index entry for nothing (issue 5 point 11).
    index('issued_cfes_company_receptor_doc_idx').on(t.companyId, t.receptorDocumento).where(sql`${t.receptorDocumento} is not null`),
    index('issued_cfes_company_estado_idx').on(t.companyId, t.estado, t.firmadoEn),
    index('issued_cfes_company_state_date_idx').on(t.companyId, sql`coalesce(${t.estadoActualizadoEn}, ${t.firmadoEn})`),
    // Receiver name "contains" search (pg_trgm, migration 0008); combined with company_id by a bitmap AND.
    index('issued_cfes_receptor_nombre_trgm_idx').using('gin', t.receptorNombre.op('gin_trgm_ops')).where(sql`${t.receptorNombre} is not null`),
    // The DGI submission queue is the CFE's own state (dgi-submission module): as small as the backlog.
    index('issued_cfes_pending_dgi_idx').on(t.companyId, t.id).where(sql`${t.estado} = 'firmado'`),
    // Receipts sent to DGI and still waiting for its verdict, by last change: the stale-receipt sweep (issue 29).
    index('issued_cfes_awaiting_dgi_idx').on(t.estadoActualizadoEn).where(sql`${t.estado} in ('en_cola_dgi', 'sobre_recibido')`),
  ],
);

export type IssuedCfeRow = typeof issuedCfes.$inferSelect;

/**
 * Every state change of an issued CFE after signing (issue 6 point 1). The initial `firmado` entry
 * is not stored (it is `issued_cfes.firmado_en`): emission is the hot path and writes no history row.
 * `lado` is 'dgi' or 'receptor'; `codigo`/`motivos` carry DGI's (or the receiver's) S/E codes and
 * messages; `userId` and `motivo` audit manual changes (marcar-aceptado).
 */
export const issuedCfeStateHistory = pgTable(
  'issued_cfe_state_history',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    issuedCfeId: bigint({ mode: 'number' }).notNull().references(() => issuedCfes.id),
    companyId: integer().notNull().references(() => companies.id),
    lado: varchar({ length: 10 }).notNull(),
    estadoAnterior: text(),
    estado: text().notNull(),
    codigo: varchar({ length: 10 }),
    /** [{ codigo, glosa, detalle? }] as parsed from the ACK. */
    motivos: jsonb(),
    mensaje: text(),
    /** The envelope (submission module) or uploaded ACK this change came from, if any. */
    referencia: text(),
    userId: integer(),
    motivo: text(),
    at: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('issued_cfe_state_history_cfe_idx').on(t.issuedCfeId, t.id)],
);

