import { sql } from 'drizzle-orm';
import { bigserial, date, index, integer, numeric, pgTable, smallint, text, timestamp, uniqueIndex, varchar, jsonb } from 'drizzle-orm/pg-core';
import { branches, companies, emissionPoints } from '../companies/companies.tables.js';
import { caeRanges } from '../cae/cae.tables.js';

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
    caeRangeId: integer().notNull().references(() => caeRanges.id),
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
    estado: text().notNull().default('firmado'),
    idempotencyKey: varchar({ length: 200 }),
    requestHash: varchar({ length: 64 }),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('issued_cfes_number_uq').on(t.companyId, t.tipoCfe, t.serie, t.numero),
    index('issued_cfes_company_signed_idx').on(t.companyId, t.firmadoEn),
    uniqueIndex('issued_cfes_idempotency_uq').on(t.companyId, t.idempotencyKey).where(sql`${t.idempotencyKey} is not null`),
  ],
);

export type IssuedCfeRow = typeof issuedCfes.$inferSelect;
