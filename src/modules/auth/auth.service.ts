/**
 * Login, refresh-token rotation with reuse detection, revocation, password recovery and the
 * per-request authentication that builds the Actor (spec 4.3 Auth and 5; issue 2 point 4).
 */
import { randomUUID } from 'node:crypto';
import { errors } from '../../lib/errors.js';
import { createJwtVerifier, signJwt } from '../../lib/jwt.js';
import { hashPassword, newOpaqueToken, sha256, verifyPassword } from '../../lib/passwords.js';
import type { Db } from '../../platform/db/client.js';
import type { Actor } from '../../platform/http/actor.js';
import { enqueueJob } from '../../platform/jobs/queue.js';
import type { Logger } from '../../platform/logger.js';
import type { UsersService } from '../users/users.service.js';
import { authErrors } from './auth.errors.js';
import { passwordResetJob } from './auth.jobs.js';
import * as repo from './auth.repository.js';

export interface AuthSettings {
  jwtSecret: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlDays: number;
  passwordResetTtlMinutes: number;
  maxFailedLogins: number;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
}

// Verified against when the user does not exist, so both paths cost one argon2 verify.
const dummyHash = await hashPassword('timing-equaliser-not-a-password');

export function createAuthService(deps: { db: Db; users: UsersService; settings: AuthSettings; logger: Logger }) {
  const { db, users, settings } = deps;
  const verifyToken = createJwtVerifier(settings.jwtSecret);
  // The own password change (users module) ends sessions through this: refresh tokens live here.
  users.attachSessions({ revokeAllOfUser: repo.revokeAllOfUser });

  async function issueTokens(userId: number, tokenVersion: number, familyId: string = randomUUID(), tx: Db | Parameters<typeof repo.insertRefreshToken>[0] = db): Promise<TokenPair> {
    const { token, hash } = newOpaqueToken();
    await repo.insertRefreshToken(tx, {
      userId,
      familyId,
      tokenHash: hash,
      expiresAt: new Date(Date.now() + settings.refreshTokenTtlDays * 86_400_000),
    });
    return {
      accessToken: signJwt({ sub: String(userId), tv: tokenVersion }, settings.jwtSecret, settings.accessTokenTtlSeconds),
      refreshToken: token,
      tokenType: 'Bearer',
      expiresIn: settings.accessTokenTtlSeconds,
    };
  }

  return {
    async login(usuario: string, clave: string): Promise<TokenPair> {
      const user = await users.findByEmail(usuario.trim());
      if (!user) {
        await verifyPassword(dummyHash, clave);
        throw authErrors.CREDENCIALES_INVALIDAS();
      }
      if (user.lockedAt) throw authErrors.USUARIO_BLOQUEADO();
      const ok = await verifyPassword(user.passwordHash, clave);
      if (!ok) {
        const after = await users.registerFailedLogin(user.id, settings.maxFailedLogins);
        if (after?.lockedAt) {
          deps.logger.warn({ userId: user.id, failedLogins: after.failedLogins }, 'user locked after failed logins');
          throw authErrors.USUARIO_BLOQUEADO();
        }
        throw authErrors.CREDENCIALES_INVALIDAS();
      }
      if (!user.enabled) throw authErrors.USUARIO_DESHABILITADO();
      if (user.failedLogins > 0) await users.clearFailedLogins(user.id);
      return issueTokens(user.id, user.tokenVersion);
    },

    /** Rotates a refresh token. Presenting a rotated or revoked one revokes its whole family. */
    async refresh(refreshToken: string): Promise<TokenPair> {
      const row = await repo.findRefreshToken(db, sha256(refreshToken));
      if (!row) throw authErrors.REFRESH_TOKEN_INVALIDO();
      if (row.rotatedAt || row.revokedAt) {
        if (row.rotatedAt) {
          const n = await repo.revokeFamily(db, row.familyId);
          deps.logger.warn({ userId: row.userId, familyId: row.familyId, revoked: n }, 'refresh token reuse: family revoked');
          throw authErrors.REFRESH_TOKEN_REUTILIZADO();
        }
        throw authErrors.REFRESH_TOKEN_INVALIDO();
      }
      const state = await users.loadActorState(row.userId);
      if (!state || !state.user.enabled || state.user.lockedAt) throw authErrors.REFRESH_TOKEN_INVALIDO();
      return db.transaction(async (tx) => {
        const claimed = await repo.claimForRotation(tx, row.id);
        if (!claimed) {
          // Lost a race with a concurrent refresh of the same token, or it expired: treat as reuse.
          if (row.expiresAt.getTime() > Date.now()) {
            await repo.revokeFamily(tx, row.familyId);
            throw authErrors.REFRESH_TOKEN_REUTILIZADO();
          }
          throw authErrors.REFRESH_TOKEN_INVALIDO();
        }
        return issueTokens(row.userId, state.user.tokenVersion, row.familyId, tx);
      });
    },

    /** Revokes the session (token family) of one refresh token owned by the caller. */
    async revoke(actor: Actor, refreshToken: string): Promise<{ revocados: number }> {
      const row = await repo.findRefreshToken(db, sha256(refreshToken));
      if (!row || row.userId !== actor.userId) throw authErrors.REFRESH_TOKEN_NO_ENCONTRADO();
      return { revocados: await repo.revokeFamily(db, row.familyId) };
    },

    /** Revokes every refresh token of the caller and invalidates its access tokens at once. */
    async revokeAll(actor: Actor): Promise<{ revocados: number }> {
      return db.transaction(async (tx) => {
        const n = await repo.revokeAllOfUser(tx, actor.userId);
        await users.bumpTokenVersion(tx, actor.userId);
        return { revocados: n };
      });
    },

    /** Always answers the same; when the user exists, a job e-mails a single-use token. */
    async requestPasswordReset(usuario: string): Promise<void> {
      const user = await users.findByEmail(usuario.trim());
      if (!user || !user.enabled) return;
      await enqueueJob(db, passwordResetJob, { userId: user.id }, { jobKey: `password-reset:${user.id}` });
    },

    /** Creates the token (called by the job, so the plain token is never stored). */
    async createResetToken(userId: number): Promise<string> {
      const { token, hash } = newOpaqueToken();
      await repo.insertResetToken(db, { userId, tokenHash: hash, expiresAt: new Date(Date.now() + settings.passwordResetTtlMinutes * 60_000) });
      return token;
    },

    async resetPassword(token: string, nuevaClave: string): Promise<void> {
      await db.transaction(async (tx) => {
        const row = await repo.consumeResetToken(tx, sha256(token));
        if (!row) throw authErrors.TOKEN_RECUPERACION_INVALIDO();
        await users.resetPassword(tx, row.userId, nuevaClave);
        await repo.revokeAllOfUser(tx, row.userId);
      });
    },

    /** Bearer token → Actor. Checks signature, expiry, user state and token version. */
    async authenticate(token: string): Promise<Actor> {
      const result = verifyToken(token);
      if (!result.ok) throw result.reason === 'expired' ? errors.TOKEN_EXPIRADO() : errors.NO_AUTENTICADO();
      const userId = Number(result.claims.sub);
      const actor = await users.loadActor(userId);
      if (!actor || !actor.enabled || actor.locked || actor.token_version !== result.claims.tv) {
        throw errors.NO_AUTENTICADO('El token de acceso fue revocado o el usuario ya no tiene acceso.');
      }
      return {
        userId,
        email: actor.email,
        isOperator: actor.is_operator,
        companies: new Map(actor.memberships),
      };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
