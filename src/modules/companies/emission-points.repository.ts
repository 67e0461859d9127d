import { and, asc, count, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { branches, companies, emissionPoints } from './companies.tables.js';

export type PointInsert = typeof emissionPoints.$inferInsert;

export interface PointFilters {
  idEmpresa?: number;
  idSucursal?: number;
  codTerminal?: string;
  habilitada?: boolean;
}

/** A point with its branch code (codComercio + codTerminal identify it, spec 1). */
const pointColumns = {
  id: emissionPoints.id,
  branchId: emissionPoints.branchId,
  companyId: emissionPoints.companyId,
  codComercio: branches.codComercio,
  codTerminal: emissionPoints.codTerminal,
  descripcion: emissionPoints.descripcion,
  enabled: emissionPoints.enabled,
};
export type PointRow = { id: number; branchId: number; companyId: number; codComercio: string; codTerminal: string; descripcion: string | null; enabled: boolean };

function selectPoints(db: DbOrTx) {
  return db
    .select(pointColumns)
    .from(emissionPoints)
    .innerJoin(branches, eq(branches.id, emissionPoints.branchId))
    .innerJoin(companies, eq(companies.id, emissionPoints.companyId));
}

function pointWhere(visible: number[] | 'all', f: PointFilters): SQL | undefined {
  const parts: Array<SQL | undefined> = [isNull(companies.deletedAt)];
  if (visible !== 'all') parts.push(visible.length ? inArray(emissionPoints.companyId, visible) : sql`false`);
  if (f.idEmpresa !== undefined) parts.push(eq(emissionPoints.companyId, f.idEmpresa));
  if (f.idSucursal !== undefined) parts.push(eq(emissionPoints.branchId, f.idSucursal));
  if (f.codTerminal) parts.push(eq(emissionPoints.codTerminal, f.codTerminal));
  if (f.habilitada !== undefined) parts.push(eq(emissionPoints.enabled, f.habilitada));
  return and(...parts);
}

export async function findPoint(db: DbOrTx, id: number): Promise<PointRow | undefined> {
  const [row] = await selectPoints(db).where(and(eq(emissionPoints.id, id), isNull(companies.deletedAt)));
  return row;
}

export async function findPointByTerminal(db: DbOrTx, branchId: number, codTerminal: string): Promise<PointRow | undefined> {
  const [row] = await selectPoints(db).where(and(eq(emissionPoints.branchId, branchId), eq(emissionPoints.codTerminal, codTerminal), isNull(companies.deletedAt)));
  return row;
}

export async function listPoints(db: DbOrTx, visible: number[] | 'all', f: PointFilters, paging: Paging) {
  const where = pointWhere(visible, f);
  const [rows, [{ total }]] = await Promise.all([
    selectPoints(db).where(where).orderBy(asc(emissionPoints.companyId), asc(branches.codComercio), asc(emissionPoints.codTerminal))
      .offset(paging.start).limit(paging.length),
    db.select({ total: count() }).from(emissionPoints).innerJoin(companies, eq(companies.id, emissionPoints.companyId)).where(where),
  ]);
  return { rows, total };
}

export async function insertPoint(db: DbOrTx, values: PointInsert): Promise<number> {
  const [row] = await db.insert(emissionPoints).values(values).returning({ id: emissionPoints.id });
  return row.id;
}

export async function updatePoint(db: DbOrTx, id: number, values: Partial<PointInsert>): Promise<void> {
  await db.update(emissionPoints).set({ ...values, updatedAt: new Date() }).where(eq(emissionPoints.id, id));
}
