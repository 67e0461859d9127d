import { and, count, desc, eq, isNull, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import type { Regime } from './tax-benefit.rules.js';
import { taxBenefitDeclarations } from './tax-benefit.tables.js';

export type DeclarationRow = typeof taxBenefitDeclarations.$inferSelect;
export type DeclarationInsert = typeof taxBenefitDeclarations.$inferInsert;

export async function findDeclaration(db: DbOrTx, id: number): Promise<DeclarationRow | undefined> {
  const [row] = await db.select().from(taxBenefitDeclarations).where(eq(taxBenefitDeclarations.id, id));
  return row;
}

/**
 * Saves `values` superseding the current declaration of the same company, year and regime. The
 * current row is locked first, so two saves for the same year and regime run one after the other;
 * a race the lock cannot see (no current row yet) ends in the partial unique index.
 */
export async function insertSuperseding(tx: DbOrTx, values: DeclarationInsert): Promise<{ row: DeclarationRow; superseded: number | null }> {
  const same = and(
    eq(taxBenefitDeclarations.companyId, values.companyId), eq(taxBenefitDeclarations.anioFiscal, values.anioFiscal),
    eq(taxBenefitDeclarations.regimen, values.regimen), isNull(taxBenefitDeclarations.reemplazadaPor),
  );
  const [current] = await tx.select({ id: taxBenefitDeclarations.id }).from(taxBenefitDeclarations).where(same).for('update');
  // The old row leaves the unique index before the new one enters it; it points at the new one right after.
  if (current) await tx.update(taxBenefitDeclarations).set({ reemplazadaPor: current.id, reemplazadaEn: new Date(), updatedAt: new Date() }).where(eq(taxBenefitDeclarations.id, current.id));
  const [row] = await tx.insert(taxBenefitDeclarations).values(values).returning();
  if (current) await tx.update(taxBenefitDeclarations).set({ reemplazadaPor: row.id }).where(eq(taxBenefitDeclarations.id, current.id));
  return { row, superseded: current?.id ?? null };
}

export async function listDeclarations(db: DbOrTx, f: { companyId: number; anioFiscal?: number; regimen?: Regime }, paging: Paging) {
  const conds: SQL[] = [eq(taxBenefitDeclarations.companyId, f.companyId)];
  if (f.anioFiscal !== undefined) conds.push(eq(taxBenefitDeclarations.anioFiscal, f.anioFiscal));
  if (f.regimen) conds.push(eq(taxBenefitDeclarations.regimen, f.regimen));
  const where = and(...conds);
  const rows = await db.select().from(taxBenefitDeclarations).where(where).orderBy(desc(taxBenefitDeclarations.id)).offset(paging.start).limit(paging.length);
  const [{ total }] = await db.select({ total: count() }).from(taxBenefitDeclarations).where(where);
  return { rows, total };
}

/** The current (not superseded) declarations of a company for a fiscal year. */
export function currentDeclarations(db: DbOrTx, companyId: number, anioFiscal: number): Promise<DeclarationRow[]> {
  return db.select().from(taxBenefitDeclarations)
    .where(and(eq(taxBenefitDeclarations.companyId, companyId), eq(taxBenefitDeclarations.anioFiscal, anioFiscal), isNull(taxBenefitDeclarations.reemplazadaPor)));
}
