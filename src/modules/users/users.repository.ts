import { and, asc, count, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { CompanyRole } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { companies } from '../companies/companies.tables.js';
import { userCompanies, users } from './users.tables.js';

export type UserRow = typeof users.$inferSelect;

export async function findUserByEmail(db: DbOrTx, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.email, email.toLowerCase()));
  return row;
}

export async function findUserById(db: DbOrTx, id: number): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row;
}

export interface ActorRow {
  email: string;
  is_operator: boolean;
  enabled: boolean;
  locked: boolean;
  token_version: number;
  memberships: Array<[number, CompanyRole]>;
}

/**
 * What authenticating a request needs, in ONE round trip (every API request pays it; issue 5
 * point 11): the user's access flags and, for non-operators, their memberships in non-deleted
 * companies.
 */
export async function findActor(db: DbOrTx, userId: number): Promise<ActorRow | undefined> {
  const [row] = await db.execute(sql`
    select u.email, u.is_operator, u.enabled, u.locked_at is not null as locked, u.token_version,
      case when u.is_operator then '[]'::json else coalesce((
        select json_agg(json_build_array(uc.company_id, uc.role))
        from user_companies uc join companies c on c.id = uc.company_id and c.deleted_at is null
        where uc.user_id = u.id), '[]'::json) end as memberships
    from users u where u.id = ${userId}`).then((r) => r.rows as unknown as ActorRow[]);
  return row;
}

/** Memberships in non-deleted companies, with the company's identity. */
export async function membershipsOf(db: DbOrTx, userId: number) {
  return db
    .select({ companyId: userCompanies.companyId, role: userCompanies.role, rut: companies.rut, razonSocial: companies.razonSocial, enabled: companies.enabled })
    .from(userCompanies)
    .innerJoin(companies, eq(companies.id, userCompanies.companyId))
    .where(and(eq(userCompanies.userId, userId), isNull(companies.deletedAt)))
    .orderBy(asc(companies.razonSocial));
}

export async function allCompanies(db: DbOrTx) {
  return db
    .select({ companyId: companies.id, rut: companies.rut, razonSocial: companies.razonSocial, enabled: companies.enabled })
    .from(companies)
    .where(isNull(companies.deletedAt))
    .orderBy(asc(companies.razonSocial));
}

export async function insertUser(db: DbOrTx, values: typeof users.$inferInsert): Promise<UserRow> {
  const [row] = await db.insert(users).values({ ...values, email: values.email.toLowerCase() }).returning();
  return row;
}

export async function updateUser(db: DbOrTx, id: number, values: Partial<typeof users.$inferInsert>): Promise<UserRow | undefined> {
  const [row] = await db.update(users).set({ ...values, updatedAt: new Date() }).where(eq(users.id, id)).returning();
  return row;
}

/** Replaces the user's roles on the given companies only (others are kept). */
export async function setRoles(db: DbOrTx, userId: number, companyIds: number[], roles: Array<{ companyId: number; role: CompanyRole }>): Promise<void> {
  if (companyIds.length) await db.delete(userCompanies).where(and(eq(userCompanies.userId, userId), inArray(userCompanies.companyId, companyIds)));
  if (roles.length) await db.insert(userCompanies).values(roles.map((r) => ({ userId, companyId: r.companyId, role: r.role })));
}

/** Which of these companies exist and are not deleted. */
export async function liveCompanyIds(db: DbOrTx, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await db.select({ id: companies.id }).from(companies).where(and(inArray(companies.id, ids), isNull(companies.deletedAt)));
  return new Set(rows.map((r) => r.id));
}

/**
 * Of these (non-deleted) companies, those with an enabled administrador other than `userId`.
 * First locks their administrador memberships in a fixed order: concurrent edits of the same
 * company wait here, and the count (a new statement, so a new snapshot) sees what they committed.
 */
export async function companiesWithAnotherAdmin(db: DbOrTx, companyIds: number[], userId: number): Promise<Set<number>> {
  if (!companyIds.length) return new Set();
  const admins = and(inArray(userCompanies.companyId, companyIds), eq(userCompanies.role, 'administrador'));
  await db.select({ userId: userCompanies.userId }).from(userCompanies).where(admins).orderBy(asc(userCompanies.companyId), asc(userCompanies.userId)).for('update');
  const rows = await db
    .selectDistinct({ companyId: userCompanies.companyId })
    .from(userCompanies)
    .innerJoin(users, eq(users.id, userCompanies.userId))
    .innerJoin(companies, eq(companies.id, userCompanies.companyId))
    .where(and(admins, ne(userCompanies.userId, userId), eq(users.enabled, true), isNull(companies.deletedAt)));
  return new Set(rows.map((r) => r.companyId));
}

/** Atomically counts a failed login and locks the user at the threshold. */
export async function registerFailedLogin(db: DbOrTx, id: number, maxFailed: number) {
  const [row] = await db
    .update(users)
    .set({
      failedLogins: sql`${users.failedLogins} + 1`,
      lockedAt: sql`case when ${users.failedLogins} + 1 >= ${maxFailed} then coalesce(${users.lockedAt}, now()) else ${users.lockedAt} end`,
    })
    .where(eq(users.id, id))
    .returning({ failedLogins: users.failedLogins, lockedAt: users.lockedAt });
  return row;
}

export async function listUsers(db: DbOrTx, companyId: number | undefined, paging: Paging) {
  const where = companyId === undefined ? undefined : sql`${users.id} in (select ${userCompanies.userId} from ${userCompanies} where ${userCompanies.companyId} = ${companyId})`;
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(users).where(where).orderBy(asc(users.id)).offset(paging.start).limit(paging.length),
    db.select({ total: count() }).from(users).where(where),
  ]);
  const roles = rows.length
    ? await db.select().from(userCompanies).where(inArray(userCompanies.userId, rows.map((r) => r.id)))
    : [];
  return { rows, roles, total };
}

export async function rolesOfUsers(db: DbOrTx, userIds: number[]) {
  if (!userIds.length) return [];
  return db.select().from(userCompanies).where(inArray(userCompanies.userId, userIds));
}

export async function countUsers(db: DbOrTx): Promise<number> {
  const [{ n }] = await db.select({ n: count() }).from(users);
  return n;
}
