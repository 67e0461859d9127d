/**
 * Users, their per-company roles, own password change and unlocking (spec 4.3 User, issue 2 point 5).
 * Visibility: operators see everyone; a company administrator sees the users of the companies they
 * administer. Anything else is answered as USUARIO_NO_ENCONTRADO.
 */
import { randomBytes } from 'node:crypto';
import { errors } from '../../lib/errors.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import type { CacheInvalidation } from '../../platform/db/invalidation.js';
import { createLoadingCache } from '../../platform/db/loading-cache.js';
import { sql } from 'drizzle-orm';
import { users } from './users.tables.js';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor, type CompanyRole } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import type { Logger } from '../../platform/logger.js';
import { userErrors } from './users.errors.js';
import * as repo from './users.repository.js';

export const MIN_PASSWORD = 8;

export interface UserView {
  id: number;
  usuario: string;
  nombre: string;
  habilitado: boolean;
  bloqueado: boolean;
  operador: boolean;
  empresas: Array<{ idEmpresa: number; rol: CompanyRole }>;
}

export interface CreateUserInput {
  usuario: string;
  nombre?: string;
  clave: string;
  operador?: boolean;
  empresas: Array<{ idEmpresa: number; rol: CompanyRole }>;
}

export interface EditUserInput {
  idUsuario: number;
  nombre?: string;
  habilitado?: boolean;
  empresas?: Array<{ idEmpresa: number; rol: CompanyRole }>;
}

function view(u: repo.UserRow, roles: Array<{ userId: number; companyId: number; role: CompanyRole }>, actor: Actor): UserView {
  return {
    id: u.id,
    usuario: u.email,
    nombre: u.nombre,
    habilitado: u.enabled,
    bloqueado: u.lockedAt !== null,
    operador: u.isOperator,
    // Only the memberships the caller can see: another company's data stays invisible.
    empresas: roles
      .filter((r) => r.userId === u.id && (actor.isOperator || actor.companies.has(r.companyId)))
      .map((r) => ({ idEmpresa: r.companyId, rol: r.role })),
  };
}

export function assertPasswordStrength(clave: string): void {
  if (clave.length < MIN_PASSWORD) throw userErrors.CLAVE_DEBIL();
}

export function createUsersService(deps: { db: Db; logger: Logger; invalidation?: CacheInvalidation }) {
  const { db } = deps;
  // A revoked token or a disabled user must stop working at once: the commit that changes them
  // empties this cache before it returns in this process, within milliseconds in others
  // (platform/db/invalidation.ts); the TTL only bounds a lost notification.
  const actors = createLoadingCache<number, repo.ActorRow | undefined>({
    ttlMs: 30_000,
    invalidation: deps.invalidation && { bus: deps.invalidation, topics: ['users', 'companies'] },
  });

  /** Loads the target and checks the caller administers one of its companies (or is operator / self). */
  async function visibleUser(actor: Actor, userId: number, opts: { allowSelf?: boolean } = {}) {
    const user = await repo.findUserById(db, userId);
    if (!user) throw userErrors.USUARIO_NO_ENCONTRADO();
    if (actor.isOperator || (opts.allowSelf && actor.userId === userId)) return user;
    if (user.isOperator) throw userErrors.USUARIO_NO_ENCONTRADO();
    const roles = await repo.rolesOfUsers(db, [userId]);
    const shared = roles.some((r) => actor.companies.get(r.companyId) === 'administrador');
    if (!shared) throw userErrors.USUARIO_NO_ENCONTRADO();
    return user;
  }

  function assertCanGrant(actor: Actor, empresas: CreateUserInput['empresas']) {
    for (const e of empresas) assertCompanyRole(actor, e.idEmpresa, 'administrador');
  }

  return {
    async list(actor: Actor, idEmpresa: number | undefined, paging: Paging) {
      if (idEmpresa === undefined && !actor.isOperator) throw userErrors.EMPRESA_REQUERIDA();
      if (idEmpresa !== undefined) assertCompanyRole(actor, idEmpresa, 'administrador');
      const { rows, roles, total } = await repo.listUsers(db, idEmpresa, paging);
      return { data: rows.map((u) => view(u, roles, actor)), total };
    },

    async create(actor: Actor, input: CreateUserInput): Promise<UserView> {
      assertPasswordStrength(input.clave);
      if (input.operador && !actor.isOperator) throw userErrors.OPERADOR_REQUERIDO();
      if (!actor.isOperator && input.empresas.length === 0) throw errors.VALIDACION('Indique al menos una empresa en `empresas`.');
      assertCanGrant(actor, input.empresas);
      const passwordHash = await hashPassword(input.clave);
      try {
        return await db.transaction(async (tx) => {
          const user = await repo.insertUser(tx, { email: input.usuario, nombre: input.nombre ?? '', passwordHash, isOperator: input.operador ?? false });
          const roles = input.empresas.map((e) => ({ companyId: e.idEmpresa, role: e.rol }));
          await repo.setRoles(tx, user.id, [], roles);
          return view(user, roles.map((r) => ({ ...r, userId: user.id })), actor);
        });
      } catch (err) {
        if (pgErrorCode(err) === PG_UNIQUE_VIOLATION) throw userErrors.USUARIO_DUPLICADO();
        throw err;
      }
    },

    async edit(actor: Actor, input: EditUserInput): Promise<UserView> {
      await visibleUser(actor, input.idUsuario);
      if (input.empresas) assertCanGrant(actor, input.empresas);
      return db.transaction(async (tx) => {
        const changes: Parameters<typeof repo.updateUser>[2] = {};
        if (input.nombre !== undefined) changes.nombre = input.nombre;
        if (input.habilitado !== undefined) {
          changes.enabled = input.habilitado;
          // Disabling cuts existing access tokens at once.
          if (!input.habilitado) changes.tokenVersion = (await repo.findUserById(tx, input.idUsuario))!.tokenVersion + 1;
        }
        const user = Object.keys(changes).length ? await repo.updateUser(tx, input.idUsuario, changes) : await repo.findUserById(tx, input.idUsuario);
        if (input.empresas) {
          // The caller replaces roles only on the companies it administers (all of them for operators).
          const managed = actor.isOperator
            ? (await repo.rolesOfUsers(tx, [input.idUsuario])).map((r) => r.companyId).concat(input.empresas.map((e) => e.idEmpresa))
            : [...actor.companies].filter(([, role]) => role === 'administrador').map(([id]) => id);
          await repo.setRoles(tx, input.idUsuario, [...new Set(managed)], input.empresas.map((e) => ({ companyId: e.idEmpresa, role: e.rol })));
        }
        return view(user!, await repo.rolesOfUsers(tx, [input.idUsuario]), actor);
      });
    },

    async get(actor: Actor, userId: number): Promise<UserView> {
      const user = await visibleUser(actor, userId, { allowSelf: true });
      return view(user, await repo.rolesOfUsers(db, [userId]), actor);
    },

    /** Own password change: needs the current one; ends every other session. */
    async changeOwnPassword(actor: Actor, claveActual: string, claveNueva: string): Promise<void> {
      const user = await repo.findUserById(db, actor.userId);
      if (!user || !(await verifyPassword(user.passwordHash, claveActual))) throw userErrors.CLAVE_ACTUAL_INCORRECTA();
      assertPasswordStrength(claveNueva);
      await repo.updateUser(db, user.id, { passwordHash: await hashPassword(claveNueva), tokenVersion: user.tokenVersion + 1 });
    },

    async unlock(actor: Actor, userId: number): Promise<UserView> {
      await visibleUser(actor, userId);
      const user = await repo.updateUser(db, userId, { failedLogins: 0, lockedAt: null });
      deps.logger.info({ userId, by: actor.userId }, 'user unlocked');
      return view(user!, await repo.rolesOfUsers(db, [userId]), actor);
    },

    /** Companies of a user, limited to those the caller can see. */
    async companiesOf(actor: Actor, userId: number) {
      const user = await visibleUser(actor, userId, { allowSelf: true });
      const rows = user.isOperator
        ? (await repo.allCompanies(db)).map((c) => ({ ...c, role: 'administrador' as CompanyRole }))
        : await repo.membershipsOf(db, userId);
      return rows
        .filter((r) => actor.isOperator || actor.userId === userId || actor.companies.has(r.companyId))
        .map((r) => ({ idEmpresa: r.companyId, rut: r.rut, razonSocial: r.razonSocial, habilitada: r.enabled, rol: r.role }));
    },

    /** First start: an operator from ADMIN_USER/ADMIN_PASSWORD, or a generated password printed once. */
    async ensureFirstAdmin(email: string, password: string | undefined): Promise<{ created: boolean; email: string; generatedPassword?: string }> {
      if ((await repo.countUsers(db)) > 0) return { created: false, email };
      const generated = password ? undefined : randomBytes(12).toString('base64url');
      const passwordHash = await hashPassword(password ?? generated!);
      try {
        await repo.insertUser(db, { email, nombre: 'Administrador', passwordHash, isOperator: true });
      } catch (err) {
        // Another process (API and worker starting together) created it first.
        if (pgErrorCode(err) === PG_UNIQUE_VIOLATION) return { created: false, email };
        throw err;
      }
      return { created: true, email, generatedPassword: generated };
    },

    // --- used by the auth module (through this service, never the tables) ---
    findByEmail: (email: string) => repo.findUserByEmail(db, email),
    registerFailedLogin: (userId: number, maxFailed: number) => repo.registerFailedLogin(db, userId, maxFailed),
    async clearFailedLogins(userId: number): Promise<void> {
      await repo.updateUser(db, userId, { failedLogins: 0 });
    },
    /** Sets a new password and invalidates every access token issued before. */
    async resetPassword(tx: DbOrTx, userId: number, clave: string): Promise<void> {
      assertPasswordStrength(clave);
      const user = await repo.findUserById(tx, userId);
      if (!user) throw userErrors.USUARIO_NO_ENCONTRADO();
      await repo.updateUser(tx, userId, { passwordHash: await hashPassword(clave), tokenVersion: user.tokenVersion + 1 });
    },
    async bumpTokenVersion(tx: DbOrTx, userId: number): Promise<void> {
      await repo.updateUser(tx, userId, { tokenVersion: sql`${users.tokenVersion} + 1` as unknown as number });
    },

    /**
     * Access flags and memberships of a user (auth.authenticate on every request), cached: topics
     * `users` (users, user_companies) and `companies` (memberships skip deleted companies).
     */
    loadActor: (userId: number) => actors.get(userId, () => repo.findActor(db, userId)),

    /** The full user row and memberships with company identity (token refresh, e-mail lookups). */
    async loadActorState(userId: number) {
      const user = await repo.findUserById(db, userId);
      if (!user) return undefined;
      const memberships = user.isOperator ? [] : await repo.membershipsOf(db, userId);
      return { user, memberships };
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
