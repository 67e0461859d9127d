/**
 * Users, their per-company roles, own password change and unlocking (spec 4.3 User, issue 2 point 5).
 * Visibility: operators see everyone; a company administrator sees the users of the companies they
 * administer. Anything else is answered as USUARIO_NO_ENCONTRADO.
 * Account-wide changes (nombre, habilitado) need an operator or the administrator of EVERY company
 * of the user (USUARIO_DE_OTRAS_EMPRESAS): an administrator of B must not disable A's administrator.
 * No edit may take away the last enabled administrador of a company (ULTIMO_ADMINISTRADOR), the
 * operator's included: promote another one first.
 * Refresh tokens belong to the auth module, which depends on this one: it attaches the session
 * store (`attachSessions`) that the own password change uses to end every session.
 */
import { randomBytes } from 'node:crypto';
import { errors } from '../../lib/errors.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import type { CacheInvalidation } from '../../platform/db/invalidation.js';
import { createLoadingCache } from '../../platform/db/loading-cache.js';
import { sql } from 'drizzle-orm';
import { users } from './users.tables.js';
import { constraintName, PG_UNIQUE_VIOLATION, pgErrorCode } from '../../platform/db/client.js';
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

/** What ends a user's sessions; implemented by the auth module, which owns refresh tokens. */
export interface SessionStore {
  revokeAllOfUser(tx: DbOrTx, userId: number): Promise<number>;
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

  let sessions: SessionStore | undefined;

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

  /** The caller may grant these roles: administers each company, and each exists and is not deleted. */
  async function assertCanGrant(tx: DbOrTx, actor: Actor, empresas: CreateUserInput['empresas']) {
    for (const e of empresas) assertCompanyRole(actor, e.idEmpresa, 'administrador');
    const live = await repo.liveCompanyIds(tx, empresas.map((e) => e.idEmpresa));
    const missing = empresas.find((e) => !live.has(e.idEmpresa));
    if (missing) throw errors.EMPRESA_NO_ENCONTRADA(`La empresa ${missing.idEmpresa} no existe.`, { idEmpresa: missing.idEmpresa });
  }

  /** Account-wide fields of a user shared with other companies are theirs too. */
  async function assertAdministersAll(actor: Actor, userId: number) {
    if (actor.isOperator) return;
    const foreign = (await repo.membershipsOf(db, userId)).some((m) => actor.companies.get(m.companyId) !== 'administrador');
    if (foreign) throw userErrors.USUARIO_DE_OTRAS_EMPRESAS();
  }

  /**
   * Refuses a change that leaves a company without an enabled administrador. `after` is the
   * user's role per company once the edit applies (undefined: no role). Locks the companies'
   * administrador memberships first so that two concurrent edits cannot each remove "the other one".
   */
  async function assertKeepsAnAdmin(tx: DbOrTx, user: repo.UserRow, before: ReadonlyMap<number, CompanyRole>, enabledAfter: boolean, after: (companyId: number) => CompanyRole | undefined) {
    if (!user.enabled) return;
    const losing = [...before]
      .filter(([companyId, role]) => role === 'administrador' && (!enabledAfter || after(companyId) !== 'administrador'))
      .map(([companyId]) => companyId);
    if (!losing.length) return;
    const live = await repo.liveCompanyIds(tx, losing);
    const covered = await repo.companiesWithAnotherAdmin(tx, [...live], user.id);
    const orphan = [...live].find((id) => !covered.has(id));
    if (orphan !== undefined) throw userErrors.ULTIMO_ADMINISTRADOR(undefined, { idEmpresa: orphan });
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
      await assertCanGrant(db, actor, input.empresas);
      const passwordHash = await hashPassword(input.clave);
      try {
        return await db.transaction(async (tx) => {
          const user = await repo.insertUser(tx, { email: input.usuario, nombre: input.nombre ?? '', passwordHash, isOperator: input.operador ?? false });
          const roles = input.empresas.map((e) => ({ companyId: e.idEmpresa, role: e.rol }));
          await repo.setRoles(tx, user.id, [], roles);
          return view(user, roles.map((r) => ({ ...r, userId: user.id })), actor);
        });
      } catch (err) {
        if (pgErrorCode(err) === PG_UNIQUE_VIOLATION && constraintName(err) === 'users_email_uq') throw userErrors.USUARIO_DUPLICADO();
        throw err;
      }
    },

    async edit(actor: Actor, input: EditUserInput): Promise<UserView> {
      const target = await visibleUser(actor, input.idUsuario);
      // Only real changes count: a client that sends the current values back may still edit roles.
      const changes: Parameters<typeof repo.updateUser>[2] = {};
      if (input.nombre !== undefined && input.nombre !== target.nombre) changes.nombre = input.nombre;
      if (input.habilitado !== undefined && input.habilitado !== target.enabled) changes.enabled = input.habilitado;
      if (Object.keys(changes).length) await assertAdministersAll(actor, target.id);
      return db.transaction(async (tx) => {
        const current = (await repo.findUserById(tx, target.id))!;
        const before = new Map((await repo.rolesOfUsers(tx, [target.id])).map((r) => [r.companyId, r.role]));
        const granted = new Map((input.empresas ?? []).map((e) => [e.idEmpresa, e.rol]));
        if (input.empresas) await assertCanGrant(tx, actor, input.empresas);
        // The caller replaces roles only on the companies it administers (all of them for operators).
        const managed = new Set(
          !input.empresas ? []
          : actor.isOperator ? [...before.keys(), ...granted.keys()]
          : [...actor.companies].filter(([, role]) => role === 'administrador').map(([id]) => id),
        );
        await assertKeepsAnAdmin(tx, current, before, changes.enabled ?? current.enabled, (id) => (managed.has(id) ? granted.get(id) : before.get(id)));
        // Disabling cuts existing access tokens at once.
        if (changes.enabled === false) changes.tokenVersion = current.tokenVersion + 1;
        const user = Object.keys(changes).length ? await repo.updateUser(tx, target.id, changes) : current;
        if (input.empresas) await repo.setRoles(tx, target.id, [...managed], [...granted].map(([companyId, role]) => ({ companyId, role })));
        return view(user!, await repo.rolesOfUsers(tx, [target.id]), actor);
      });
    },

    async get(actor: Actor, userId: number): Promise<UserView> {
      const user = await visibleUser(actor, userId, { allowSelf: true });
      return view(user, await repo.rolesOfUsers(db, [userId]), actor);
    },

    /**
     * Own password change: needs the current one. Ends every session of the user, the caller's
     * included: access tokens through tokenVersion, refresh tokens revoked in the same transaction.
     */
    async changeOwnPassword(actor: Actor, claveActual: string, claveNueva: string): Promise<void> {
      const user = await repo.findUserById(db, actor.userId);
      if (!user || !(await verifyPassword(user.passwordHash, claveActual))) throw userErrors.CLAVE_ACTUAL_INCORRECTA();
      assertPasswordStrength(claveNueva);
      // Fail closed: a password change that left refresh tokens alive is the bug this guards against.
      const store = sessions;
      if (!store) throw new Error('users: no session store attached (the auth module attaches it)');
      const passwordHash = await hashPassword(claveNueva);
      await db.transaction(async (tx) => {
        await repo.updateUser(tx, user.id, { passwordHash, tokenVersion: sql`${users.tokenVersion} + 1` as unknown as number });
        await store.revokeAllOfUser(tx, user.id);
      });
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
    /** Called once by createAuthService: the refresh tokens live there. */
    attachSessions(store: SessionStore): void {
      sessions = store;
    },
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
