import { boolean, date, integer, numeric, pgTable, serial, smallint, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { timestamps } from '../../platform/db/columns.js';
import { companies } from '../companies/companies.tables.js';

/**
 * Products, their variants (the `idVariante` of spec 2.1) and traceability (spec 2.4 rule 3):
 * a product may require a lot, a serial or both on every line that sells it. No stock is kept.
 */
export const products = pgTable(
  'products',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    codigo: varchar({ length: 35 }).notNull(),
    nombre: varchar({ length: 80 }).notNull(),
    descripcion: varchar({ length: 1000 }),
    unidadMedida: varchar({ length: 4 }),
    indicadorFacturacion: smallint(),
    requiresLot: boolean().notNull().default(false),
    requiresSerial: boolean().notNull().default(false),
    enabled: boolean().notNull().default(true),
    ...timestamps,
  },
  (t) => [uniqueIndex('products_code_uq').on(t.companyId, t.codigo)],
);

export const productVariants = pgTable(
  'product_variants',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    productId: integer().notNull().references(() => products.id),
    codigo: varchar({ length: 35 }).notNull(),
    nombre: varchar({ length: 80 }).notNull(),
    precioUnitario: numeric({ precision: 24, scale: 10 }),
    /** DGI UniMed of this variant; null = the product's unidadMedida. */
    unidadMedida: varchar({ length: 4 }),
    enabled: boolean().notNull().default(true),
    ...timestamps,
  },
  (t) => [uniqueIndex('product_variants_code_uq').on(t.productId, t.codigo)],
);

export const productLots = pgTable(
  'product_lots',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    variantId: integer().notNull().references(() => productVariants.id),
    codigo: varchar({ length: 50 }).notNull(),
    fechaVencimiento: date({ mode: 'string' }),
    ...timestamps,
  },
  (t) => [uniqueIndex('product_lots_code_uq').on(t.variantId, t.codigo)],
);

export const productSerials = pgTable(
  'product_serials',
  {
    id: serial().primaryKey(),
    companyId: integer().notNull().references(() => companies.id),
    variantId: integer().notNull().references(() => productVariants.id),
    lotId: integer().references(() => productLots.id),
    numeroSerie: varchar({ length: 100 }).notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex('product_serials_uq').on(t.variantId, t.numeroSerie)],
);
