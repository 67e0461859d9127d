import { and, asc, count, desc, eq, inArray, lte, max, ne, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { priceBookPrices, priceBookVersions } from './price-books.tables.js';

export type VersionRow = typeof priceBookVersions.$inferSelect;
export type PriceRow = typeof priceBookPrices.$inferSelect;

/** Serialises the versions of one (company, code) until the transaction ends: version numbers and the overlap check. */
export async function lockCode(tx: DbOrTx, companyId: number, codigo: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`price-book:${companyId}:${codigo}`}, 0))`);
}

export async function nextVersion(tx: DbOrTx, companyId: number, codigo: string): Promise<number> {
  const [row] = await tx.select({ v: max(priceBookVersions.version) }).from(priceBookVersions)
    .where(and(eq(priceBookVersions.companyId, companyId), eq(priceBookVersions.codigo, codigo)));
  return (row?.v ?? 0) + 1;
}

/** Versions of the code whose [vigenteDesde, vigenteHasta] (null: open) meets [desde, hasta]. */
export async function overlapping(tx: DbOrTx, companyId: number, codigo: string, desde: string, hasta: string | null, exceptId?: number): Promise<VersionRow[]> {
  return tx.select().from(priceBookVersions).where(and(
    eq(priceBookVersions.companyId, companyId),
    eq(priceBookVersions.codigo, codigo),
    exceptId === undefined ? undefined : ne(priceBookVersions.id, exceptId),
    sql`${priceBookVersions.vigenteDesde} <= coalesce(${hasta}::date, 'infinity'::date)`,
    sql`coalesce(${priceBookVersions.vigenteHasta}, 'infinity'::date) >= ${desde}::date`,
  )).orderBy(asc(priceBookVersions.version));
}

export async function insertVersion(tx: DbOrTx, values: typeof priceBookVersions.$inferInsert, prices: Array<Omit<typeof priceBookPrices.$inferInsert, 'versionId' | 'companyId'>>): Promise<VersionRow> {
  const [row] = await tx.insert(priceBookVersions).values(values).returning();
  await tx.insert(priceBookPrices).values(prices.map((p) => ({ ...p, versionId: row!.id, companyId: row!.companyId })));
  return row!;
}

export async function pricesOf(db: DbOrTx, versionIds: number[]): Promise<PriceRow[]> {
  if (!versionIds.length) return [];
  return db.select().from(priceBookPrices).where(inArray(priceBookPrices.versionId, versionIds)).orderBy(asc(priceBookPrices.versionId), asc(priceBookPrices.orden));
}

export async function findVersionById(db: DbOrTx, id: number): Promise<VersionRow | undefined> {
  const [row] = await db.select().from(priceBookVersions).where(eq(priceBookVersions.id, id));
  return row;
}

export async function findVersion(db: DbOrTx, companyId: number, codigo: string, version: number): Promise<VersionRow | undefined> {
  const [row] = await db.select().from(priceBookVersions)
    .where(and(eq(priceBookVersions.companyId, companyId), eq(priceBookVersions.codigo, codigo), eq(priceBookVersions.version, version)));
  return row;
}

export async function versionsOfCode(db: DbOrTx, companyId: number, codigo: string): Promise<VersionRow[]> {
  return db.select().from(priceBookVersions)
    .where(and(eq(priceBookVersions.companyId, companyId), eq(priceBookVersions.codigo, codigo))).orderBy(desc(priceBookVersions.version));
}

const inForceOn = (fecha: string): SQL => and(
  lte(priceBookVersions.vigenteDesde, fecha),
  sql`coalesce(${priceBookVersions.vigenteHasta}, 'infinity'::date) >= ${fecha}::date`,
)!;

/** The version of the code in force on `fecha` (at most one: validity never overlaps). */
export async function findInForce(db: DbOrTx, companyId: number, codigo: string, fecha: string): Promise<VersionRow | undefined> {
  const [row] = await db.select().from(priceBookVersions)
    .where(and(eq(priceBookVersions.companyId, companyId), eq(priceBookVersions.codigo, codigo), inForceOn(fecha)));
  return row;
}

export async function listVersions(db: DbOrTx, companyId: number, f: { codigo?: string; vigenteEn?: string }, paging: Paging) {
  const where = and(
    eq(priceBookVersions.companyId, companyId),
    f.codigo ? eq(priceBookVersions.codigo, f.codigo) : undefined,
    f.vigenteEn ? inForceOn(f.vigenteEn) : undefined,
  );
  // Qualified by hand: inside a subquery drizzle would print the bare column name, which would bind to the inner table.
  const n = sql<number>`(select count(*) from price_book_prices p where p.version_id = "price_book_versions"."id")::int`;
  const [rows, [{ total }]] = await Promise.all([
    db.select({ row: priceBookVersions, n }).from(priceBookVersions)
      .where(where).orderBy(asc(priceBookVersions.codigo), desc(priceBookVersions.version)).offset(paging.start).limit(paging.length),
    db.select({ total: count() }).from(priceBookVersions).where(where),
  ]);
  return { rows, total: total! };
}

export async function setEnd(tx: DbOrTx, id: number, vigenteHasta: string): Promise<VersionRow> {
  const [row] = await tx.update(priceBookVersions).set({ vigenteHasta }).where(eq(priceBookVersions.id, id)).returning();
  return row!;
}
