import { date, index, integer, jsonb, numeric, pgTable, serial, text, timestamp, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { companies } from '../companies/companies.tables.js';
import type { PeriodMinimum, Tier } from './price-books.model.js';

/**
 * One version of a company's price book (issue 34 point 1). Versions are immutable: a change is a
 * new version of the same `codigo`, and the validity of two versions of one code never overlaps
 * (checked under an advisory lock on (company, codigo) in the service; the unique version number
 * is the backstop). Amounts are `numeric` without scale, so a value reads back exactly as written.
 */
export const priceBookVersions = pgTable(
  'price_book_versions',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id, { onDelete: 'cascade' }),
    codigo: text().notNull(),
    version: integer().notNull(),
    nombre: text().notNull(),
    moneda: varchar({ length: 3 }).notNull(),
    tipoCambioModo: text({ enum: ['emision', 'cierrePeriodo', 'fijo'] }).notNull(),
    tipoCambioValor: numeric(),
    vigenteDesde: date({ mode: 'string' }).notNull(),
    /** Inclusive; null: open-ended. */
    vigenteHasta: date({ mode: 'string' }),
    minimoPeriodo: jsonb().$type<PeriodMinimum>(),
    createdBy: integer(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('price_book_versions_code_version_uq').on(t.companyId, t.codigo, t.version),
    index('price_book_versions_code_from_idx').on(t.companyId, t.codigo, t.vigenteDesde),
  ],
);

/** The prices of a version, in the order the company wrote them (the order of the CFE lines). */
export const priceBookPrices = pgTable(
  'price_book_prices',
  {
    id: serial().primaryKey(),
    versionId: integer().notNull().references(() => priceBookVersions.id, { onDelete: 'cascade' }),
    /** The version's company: the distribution column of a sharded database (docs/DEPLOYMENT.md). */
    companyId: integer().notNull().references(() => companies.id, { onDelete: 'cascade' }),
    orden: integer().notNull(),
    /** The metric's code (issue 33): matched by code, no foreign key. */
    metrica: text().notNull(),
    dimensiones: jsonb().$type<Record<string, string>>().notNull().default({}),
    modelo: text({ enum: ['estandar', 'escalonado', 'volumen', 'paquete'] }).notNull(),
    precioUnitario: numeric(),
    tramos: jsonb().$type<Tier[]>(),
    paqueteTamano: numeric(),
    paquetePrecio: numeric(),
    minimo: numeric(),
    indicadorFacturacion: integer().notNull(),
    nombreItem: text().notNull(),
    unidadMedida: text(),
  },
  (t) => [uniqueIndex('price_book_prices_version_order_uq').on(t.versionId, t.orden)],
);
