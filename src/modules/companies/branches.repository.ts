import { and, asc, count, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { branchDgiCodes, branchLogos, branches, companies } from './companies.tables.js';

export type BranchRow = typeof branches.$inferSelect;
export type BranchInsert = typeof branches.$inferInsert;
export type DgiCodeRow = typeof branchDgiCodes.$inferSelect;
export interface DgiCodeInput { codigoDgiSucursal: number; validFrom: string; validTo: string | null }

export interface BranchFilters {
  idEmpresa?: number;
  codComercio?: string;
  habilitada?: boolean;
}

export async function findBranch(db: DbOrTx, id: number): Promise<BranchRow | undefined> {
  const [row] = await db
    .select({ branch: branches })
    .from(branches)
    .innerJoin(companies, eq(companies.id, branches.companyId))
    .where(and(eq(branches.id, id), isNull(companies.deletedAt)));
  return row?.branch;
}

export async function insertBranch(db: DbOrTx, values: BranchInsert): Promise<BranchRow> {
  const [row] = await db.insert(branches).values(values).returning();
  return row;
}

export async function updateBranch(db: DbOrTx, id: number, values: Partial<BranchInsert>): Promise<BranchRow | undefined> {
  const [row] = await db.update(branches).set({ ...values, updatedAt: new Date() }).where(eq(branches.id, id)).returning();
  return row;
}

function branchWhere(visible: number[] | 'all', f: BranchFilters): SQL | undefined {
  const parts: Array<SQL | undefined> = [isNull(companies.deletedAt)];
  if (visible !== 'all') parts.push(visible.length ? inArray(branches.companyId, visible) : sql`false`);
  if (f.idEmpresa !== undefined) parts.push(eq(branches.companyId, f.idEmpresa));
  if (f.codComercio) parts.push(eq(branches.codComercio, f.codComercio));
  if (f.habilitada !== undefined) parts.push(eq(branches.enabled, f.habilitada));
  return and(...parts);
}

export async function listBranches(db: DbOrTx, visible: number[] | 'all', f: BranchFilters, paging: Paging) {
  const where = branchWhere(visible, f);
  const [rows, [{ total }]] = await Promise.all([
    db.select({ branch: branches }).from(branches).innerJoin(companies, eq(companies.id, branches.companyId)).where(where)
      .orderBy(asc(branches.companyId), asc(branches.codComercio)).offset(paging.start).limit(paging.length),
    db.select({ total: count() }).from(branches).innerJoin(companies, eq(companies.id, branches.companyId)).where(where),
  ]);
  return { rows: rows.map((r) => r.branch), total };
}

/** Enabled branches of the given companies (getEmpresasSucursales). */
export async function enabledBranchesOf(db: DbOrTx, companyIds: number[]): Promise<BranchRow[]> {
  if (!companyIds.length) return [];
  return db.select().from(branches).where(and(inArray(branches.companyId, companyIds), eq(branches.enabled, true)))
    .orderBy(asc(branches.codComercio));
}

export async function historyOf(db: DbOrTx, branchIds: number[]): Promise<DgiCodeRow[]> {
  if (!branchIds.length) return [];
  return db.select().from(branchDgiCodes).where(inArray(branchDgiCodes.branchId, branchIds)).orderBy(asc(branchDgiCodes.validFrom));
}

/** Replaces the whole history of a branch (the edit payload carries the full list). */
export async function replaceHistory(db: DbOrTx, branch: { id: number; companyId: number }, entries: DgiCodeInput[]): Promise<void> {
  await db.delete(branchDgiCodes).where(eq(branchDgiCodes.branchId, branch.id));
  if (entries.length) await db.insert(branchDgiCodes).values(entries.map((e) => ({ branchId: branch.id, companyId: branch.companyId, ...e })));
}

export async function branchIdsWithLogo(db: DbOrTx, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await db.select({ id: branchLogos.branchId }).from(branchLogos).where(inArray(branchLogos.branchId, ids));
  return new Set(rows.map((r) => r.id));
}

export async function upsertBranchLogo(db: DbOrTx, branch: { id: number; companyId: number }, contentType: string, data: Buffer): Promise<void> {
  await db
    .insert(branchLogos)
    .values({ branchId: branch.id, companyId: branch.companyId, contentType, data })
    .onConflictDoUpdate({ target: branchLogos.branchId, set: { contentType, data, updatedAt: new Date() } });
}

export async function deleteBranchLogo(db: DbOrTx, branchId: number): Promise<boolean> {
  const rows = await db.delete(branchLogos).where(eq(branchLogos.branchId, branchId)).returning({ id: branchLogos.branchId });
  return rows.length > 0;
}

export async function findBranchLogo(db: DbOrTx, branchId: number) {
  const [row] = await db.select().from(branchLogos).where(eq(branchLogos.branchId, branchId));
  return row;
}
