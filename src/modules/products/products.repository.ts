import { and, asc, count, eq, ilike, inArray, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { productLots, productSerials, productVariants, products } from './products.tables.js';

export type ProductRow = typeof products.$inferSelect;
export type VariantRow = typeof productVariants.$inferSelect;
export type LotRow = typeof productLots.$inferSelect;
export type SerialRow = typeof productSerials.$inferSelect;

async function page<T>(rows: Promise<T[]>, total: Promise<Array<{ total: number }>>) {
  const [data, [t]] = await Promise.all([rows, total]);
  return { rows: data, total: t?.total ?? 0 };
}

export const insertProduct = async (tx: DbOrTx, v: typeof products.$inferInsert) => (await tx.insert(products).values(v).returning())[0];
export const updateProduct = async (tx: DbOrTx, id: number, v: Partial<typeof products.$inferInsert>) =>
  (await tx.update(products).set({ ...v, updatedAt: new Date() }).where(eq(products.id, id)).returning())[0];
export const findProduct = async (tx: DbOrTx, id: number) => (await tx.select().from(products).where(eq(products.id, id)))[0];

export function listProducts(tx: DbOrTx, f: { companyId: number; nombre?: string; codigo?: string; enabled?: boolean }, paging: Paging) {
  const conds: SQL[] = [eq(products.companyId, f.companyId)];
  if (f.nombre) conds.push(ilike(products.nombre, `%${f.nombre}%`));
  if (f.codigo) conds.push(ilike(products.codigo, `%${f.codigo}%`));
  if (f.enabled !== undefined) conds.push(eq(products.enabled, f.enabled));
  const where = and(...conds);
  return page(
    tx.select().from(products).where(where).orderBy(asc(products.nombre), asc(products.id)).offset(paging.start).limit(paging.length),
    tx.select({ total: count() }).from(products).where(where),
  );
}

export const insertVariant = async (tx: DbOrTx, v: typeof productVariants.$inferInsert) => (await tx.insert(productVariants).values(v).returning())[0];
export const updateVariant = async (tx: DbOrTx, id: number, v: Partial<typeof productVariants.$inferInsert>) =>
  (await tx.update(productVariants).set({ ...v, updatedAt: new Date() }).where(eq(productVariants.id, id)).returning())[0];

/** A variant with its product (the product carries the traceability flags and default unit). */
export async function findVariant(tx: DbOrTx, id: number) {
  const [row] = await tx.select({ variant: productVariants, product: products }).from(productVariants).innerJoin(products, eq(products.id, productVariants.productId)).where(eq(productVariants.id, id));
  return row;
}

export function listVariants(tx: DbOrTx, productId: number, paging: Paging) {
  const where = eq(productVariants.productId, productId);
  return page(
    tx.select().from(productVariants).where(where).orderBy(asc(productVariants.codigo), asc(productVariants.id)).offset(paging.start).limit(paging.length),
    tx.select({ total: count() }).from(productVariants).where(where),
  );
}

/** For emission: the company's variants among `ids`, with their product. */
export function variantsOfCompany(tx: DbOrTx, companyId: number, ids: number[]) {
  return tx.select({ variant: productVariants, product: products }).from(productVariants).innerJoin(products, eq(products.id, productVariants.productId))
    .where(and(eq(productVariants.companyId, companyId), inArray(productVariants.id, ids)));
}

export const insertLot = async (tx: DbOrTx, v: typeof productLots.$inferInsert) => (await tx.insert(productLots).values(v).returning())[0];
export const insertSerial = async (tx: DbOrTx, v: typeof productSerials.$inferInsert) => (await tx.insert(productSerials).values(v).returning())[0];

export function listLots(tx: DbOrTx, variantId: number, q: string | undefined, paging: Paging) {
  const where = and(eq(productLots.variantId, variantId), q ? ilike(productLots.codigo, `%${q}%`) : undefined);
  return page(
    tx.select().from(productLots).where(where).orderBy(asc(productLots.codigo), asc(productLots.id)).offset(paging.start).limit(paging.length),
    tx.select({ total: count() }).from(productLots).where(where),
  );
}

export function listSerials(tx: DbOrTx, variantId: number, q: string | undefined, paging: Paging) {
  const where = and(eq(productSerials.variantId, variantId), q ? ilike(productSerials.numeroSerie, `%${q}%`) : undefined);
  return page(
    tx.select().from(productSerials).where(where).orderBy(asc(productSerials.numeroSerie), asc(productSerials.id)).offset(paging.start).limit(paging.length),
    tx.select({ total: count() }).from(productSerials).where(where),
  );
}

export const lotsByIds = (tx: DbOrTx, ids: number[]) => (ids.length ? tx.select().from(productLots).where(inArray(productLots.id, ids)) : Promise.resolve([]));
export const serialsByIds = (tx: DbOrTx, ids: number[]) => (ids.length ? tx.select().from(productSerials).where(inArray(productSerials.id, ids)) : Promise.resolve([]));
