import { sql } from 'drizzle-orm';
import { check, date, foreignKey, index, integer, pgTable, primaryKey, serial, smallint, text, timestamp, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { timestamps } from '../../platform/db/columns.js';
import { branches, companies } from '../companies/companies.tables.js';

/**
 * CAE ranges (spec 4.3 CAE; DGI BRIEF 10): one DGI authorization per (RUT, TipoCFE, Serie, DNro..HNro).
 * `next_number` is the numbering cursor: the reservation is `UPDATE … SET next_number = next_number + 1`
 * on this row, so numbers are unique, gap-free and released again if the caller rolls back.
 * `branch_id` null = the range serves the whole company; the composite FK keeps the branch inside
 * the same company.
 */
export const caeRanges = pgTable(
  'cae_ranges',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    branchId: integer(),
    tipoCfe: smallint().notNull(),
    serie: varchar({ length: 2 }).notNull(),
    dNro: integer().notNull(),
    hNro: integer().notNull(),
    nextNumber: integer().notNull(),
    /** NA: 11-digit CAE number. */
    caeNumber: varchar({ length: 11 }).notNull(),
    ta: varchar({ length: 1 }),
    fa: date({ mode: 'string' }).notNull(),
    fvd: date({ mode: 'string' }).notNull(),
    caeEspecial: smallint(),
    causalCaeEsp: smallint(),
    origin: text({ enum: ['xml', 'manual'] }).notNull(),
    /** The DGI-signed file, kept verbatim (TDOC 12.1: the issuer stores the CAE securely). */
    xml: text(),
    annulledAt: timestamp({ withTimezone: true, mode: 'date' }),
    ...timestamps,
  },
  (t) => [
    foreignKey({ name: 'cae_ranges_branch_fk', columns: [t.branchId, t.companyId], foreignColumns: [branches.id, branches.companyId] }),
    uniqueIndex('cae_ranges_company_na_uq').on(t.companyId, t.caeNumber),
    index('cae_ranges_lookup_idx').on(t.companyId, t.tipoCfe, t.serie, t.fvd),
    check('cae_ranges_bounds_ck', sql`${t.hNro} >= ${t.dNro} and ${t.nextNumber} >= ${t.dNro} and ${t.nextNumber} <= ${t.hNro} + 1`),
  ],
);

/**
 * Number claims of API processes issuing for the same CAE range (issue 45): `next_free` is the first
 * number no process has claimed yet. A claim is a hint, never a reservation: the number is taken only
 * by the emission statement that stores the CFE, under `cae_ranges.next_number` (cae.repository
 * exactBlockCtes), so a claim that is lost, stale or reset can cost a process a resealing, never a
 * duplicate or a gap. A row of its own so that claiming never waits for the range row's lock.
 */
export const caeRangeClaims = pgTable(
  'cae_range_claims',
  {
    companyId: integer().notNull().references(() => companies.id, { onDelete: 'cascade' }),
    caeRangeId: integer().notNull().references(() => caeRanges.id, { onDelete: 'cascade' }),
    nextFree: integer().notNull(),
  },
  (t) => [primaryKey({ name: 'cae_range_claims_pk', columns: [t.companyId, t.caeRangeId] })],
);

/**
 * Numbers that will never be used (DGI BRIEF 10, FMR 1): skipped by ajustar-proximo-numero, the
 * remainder of anular-completo, or CFEs rejected by DGI. The daily report reads them by `fecha`.
 */
export const caeVoidedNumbers = pgTable(
  'cae_voided_numbers',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    caeRangeId: integer().notNull().references(() => caeRanges.id),
    tipoCfe: smallint().notNull(),
    serie: varchar({ length: 2 }).notNull(),
    desde: integer().notNull(),
    hasta: integer().notNull(),
    fecha: date({ mode: 'string' }).notNull(),
    motivo: text({ enum: ['ajuste', 'anulacion', 'rechazo'] }).notNull(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('cae_voided_company_fecha_idx').on(t.companyId, t.fecha), index('cae_voided_range_idx').on(t.caeRangeId)],
);

/** Numbers handed out per range and day: feeds the exhaustion estimate of obtenerDisponibilidad. */
export const caeDailyUsage = pgTable(
  'cae_daily_usage',
  {
    caeRangeId: integer().notNull().references(() => caeRanges.id),
    /** The range's company: the distribution column of a sharded database (docs/DEPLOYMENT.md). */
    companyId: integer().notNull().references(() => companies.id),
    fecha: date({ mode: 'string' }).notNull(),
    cantidad: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.caeRangeId, t.fecha] })],
);

/** Contingency ranges (CFC, types 2xx; BRIEF 10): pre-printed paper under a type F constancia. */
export const cfcRanges = pgTable(
  'cfc_ranges',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    tipoCfc: smallint().notNull(),
    serie: varchar({ length: 2 }).notNull(),
    dNro: integer().notNull(),
    hNro: integer().notNull(),
    constancia: varchar({ length: 40 }).notNull(),
    fvd: date({ mode: 'string' }).notNull(),
    ...timestamps,
  },
  (t) => [
    index('cfc_ranges_lookup_idx').on(t.companyId, t.tipoCfc, t.serie),
    check('cfc_ranges_bounds_ck', sql`${t.hNro} >= ${t.dNro}`),
  ],
);

/** CFC numbers already transcribed and sent: a paper number is used once. */
export const cfcUsedNumbers = pgTable(
  'cfc_used_numbers',
  {
    cfcRangeId: integer().notNull().references(() => cfcRanges.id),
    /** The range's company: the distribution column of a sharded database (docs/DEPLOYMENT.md). */
    companyId: integer().notNull().references(() => companies.id),
    numero: integer().notNull(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.cfcRangeId, t.numero] })],
);
