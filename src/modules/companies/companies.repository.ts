import { and, asc, count, eq, ilike, inArray, isNull, like, or, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { branchDgiCodes, branches, companies, companyLogos, emissionPoints } from './companies.tables.js';

export type CompanyRow = typeof companies.$inferSelect;
export type CompanyInsert = typeof companies.$inferInsert;

export interface CompanyFilters {
  nombre?: string;
  rut?: string;
  habilitada?: boolean;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** WHERE for the visible, non-deleted companies matching the filters. */
export function companyWhere(visible: number[] | 'all', f: CompanyFilters): SQL | undefined {
  const parts: Array<SQL | undefined> = [isNull(companies.deletedAt)];
  if (visible !== 'all') parts.push(visible.length ? inArray(companies.id, visible) : sql`false`);
  if (f.nombre) {
    const p = `%${escapeLike(f.nombre)}%`;
    parts.push(or(ilike(companies.razonSocial, p), ilike(companies.nombreComercial, p)));
  }
  if (f.rut) parts.push(like(companies.rut, `${escapeLike(f.rut)}%`));
  if (f.habilitada !== undefined) parts.push(eq(companies.enabled, f.habilitada));
  return and(...parts);
}

export async function companyExists(db: DbOrTx, id: number): Promise<boolean> {
  const [row] = await db.select({ id: companies.id }).from(companies).where(and(eq(companies.id, id), isNull(companies.deletedAt)));
  return row !== undefined;
}

/** Enabled, non-deleted companies (the daily report's scheduled task). */
export async function activeCompanyIds(db: DbOrTx): Promise<number[]> {
  const rows = await db.select({ id: companies.id }).from(companies).where(and(eq(companies.enabled, true), isNull(companies.deletedAt))).orderBy(asc(companies.id));
  return rows.map((r) => r.id);
}

export async function findCompany(db: DbOrTx, id: number): Promise<CompanyRow | undefined> {
  const [row] = await db.select().from(companies).where(and(eq(companies.id, id), isNull(companies.deletedAt)));
  return row;
}

export async function findCompanyByRut(db: DbOrTx, rut: string): Promise<CompanyRow | undefined> {
  const [row] = await db.select().from(companies).where(and(eq(companies.rut, rut), isNull(companies.deletedAt)));
  return row;
}

export async function insertCompany(db: DbOrTx, values: CompanyInsert): Promise<CompanyRow> {
  const [row] = await db.insert(companies).values(values).returning();
  return row;
}

/** Column values for an UPDATE: a value, or an SQL expression over the current row (mergeSettings). */
export type CompanyChanges = { [K in keyof CompanyInsert]?: CompanyInsert[K] | SQL };

/**
 * `settings` merged per key inside the UPDATE itself (no read-modify-write race): keys sent
 * replace the stored ones, a key sent as null is removed, keys not sent stay.
 */
export function mergeSettings(patch: Record<string, unknown>): SQL {
  return sql`jsonb_strip_nulls(${companies.settings} || ${JSON.stringify(patch)}::jsonb)`;
}

export async function updateCompany(db: DbOrTx, id: number, values: CompanyChanges): Promise<CompanyRow | undefined> {
  const [row] = await db
    .update(companies)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(companies.id, id), isNull(companies.deletedAt)))
    .returning();
  return row;
}

export async function listCompanies(db: DbOrTx, visible: number[] | 'all', f: CompanyFilters, paging: Paging) {
  const where = companyWhere(visible, f);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(companies).where(where).orderBy(asc(companies.razonSocial), asc(companies.id)).offset(paging.start).limit(paging.length),
    db.select({ total: count() }).from(companies).where(where),
  ]);
  return { rows, total };
}

/** Rows for the spreadsheet export, in batches so a large export never sits in memory at once. */
export async function* iterateCompanies(db: DbOrTx, visible: number[] | 'all', f: CompanyFilters, batch = 500) {
  const where = companyWhere(visible, f);
  for (let start = 0; ; start += batch) {
    const rows = await db.select().from(companies).where(where).orderBy(asc(companies.razonSocial), asc(companies.id)).offset(start).limit(batch);
    if (rows.length) yield rows;
    if (rows.length < batch) return;
  }
}

export async function companyIdsWithLogo(db: DbOrTx, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await db.select({ id: companyLogos.companyId }).from(companyLogos).where(inArray(companyLogos.companyId, ids));
  return new Set(rows.map((r) => r.id));
}

export async function upsertCompanyLogo(db: DbOrTx, companyId: number, contentType: string, data: Buffer): Promise<void> {
  await db
    .insert(companyLogos)
    .values({ companyId, contentType, data })
    .onConflictDoUpdate({ target: companyLogos.companyId, set: { contentType, data, updatedAt: new Date() } });
}

export async function deleteCompanyLogo(db: DbOrTx, companyId: number): Promise<boolean> {
  const rows = await db.delete(companyLogos).where(eq(companyLogos.companyId, companyId)).returning({ id: companyLogos.companyId });
  return rows.length > 0;
}

export async function findCompanyLogo(db: DbOrTx, companyId: number) {
  const [row] = await db.select().from(companyLogos).where(eq(companyLogos.companyId, companyId));
  return row;
}

/** The emission lookup's query, built once per db handle and run as a named prepared statement. */
function buildResolveQuery(db: DbOrTx) {
  const fecha = sql`${sql.placeholder('fecha')}::date`;
  const history = db
    .select({ codigo: branchDgiCodes.codigoDgiSucursal })
    .from(branchDgiCodes)
    .where(and(
      eq(branchDgiCodes.branchId, branches.id),
      sql`${branchDgiCodes.validFrom} <= ${fecha}`,
      sql`(${branchDgiCodes.validTo} is null or ${branchDgiCodes.validTo} >= ${fecha})`,
    ))
    .orderBy(sql`${branchDgiCodes.validFrom} desc`)
    .limit(1)
    .as('h');
  return db
    .select({ company: companies, branch: branches, point: emissionPoints, historyCode: history.codigo })
    .from(companies)
    .leftJoin(branches, and(eq(branches.companyId, companies.id), eq(branches.codComercio, sql.placeholder('codComercio'))))
    .leftJoin(emissionPoints, and(eq(emissionPoints.branchId, branches.id), eq(emissionPoints.codTerminal, sql.placeholder('codTerminal'))))
    .leftJoinLateral(history, sql`true`)
    .where(and(eq(companies.id, sql.placeholder('idEmpresa')), isNull(companies.deletedAt)))
    .prepare('companies_resolve_emission_point');
}

const preparedResolve = new WeakMap<object, ReturnType<typeof buildResolveQuery>>();

/**
 * The emission lookup in one round trip: company, the branch by codComercio, the point by
 * codTerminal and the history code valid at `fecha` (spec 2.2 rules 4-5). Missing pieces come back
 * null. Prepared once (emission targets >1,000 CFE/s, so parse/plan per call matters).
 */
export async function resolveEmissionPoint(db: DbOrTx, idEmpresa: number, codComercio: string, codTerminal: string, fecha: string) {
  let query = preparedResolve.get(db);
  if (!query) preparedResolve.set(db, (query = buildResolveQuery(db)));
  const [row] = await query.execute({ idEmpresa, codComercio, codTerminal, fecha });
  return row;
}
