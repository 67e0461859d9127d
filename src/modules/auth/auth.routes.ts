import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody } from '../../platform/http/error-body.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './auth.schemas.js';
import type { AuthService } from './auth.service.js';

const RECOVERY_MESSAGE = 'Si el usuario existe, le enviamos un correo con instrucciones para restablecer la contraseña.';

export function authRoutes(auth: AuthService, opts: { rateLimitPerMinute: number }): FastifyPluginAsyncZod {
  const limit = { max: opts.rateLimitPerMinute, timeWindow: '1 minute' };
  return async (app) => {
    const tags = ['Auth'];
    app.post('/api/auth/login', {
      config: { public: true, rateLimit: limit },
      schema: {
        tags, summary: 'Log in', security: [],
        description: 'Returns an access token (JWT) and a refresh token. After `MAX_FAILED_LOGINS` (default 5) consecutive failures the user is locked (423 `USUARIO_BLOQUEADO`) until `POST /api/v1/usuario/desbloquear`.',
        body: s.loginBody,
        response: { 200: s.tokenPair, 401: errorBody, 423: errorBody },
      },
    }, async (req) => auth.login(req.body.usuario, req.body.clave));

    app.post('/api/auth/refresh', {
      config: { public: true },
      schema: {
        tags, summary: 'Rotate a refresh token', security: [],
        description: 'Exchanges a refresh token for a new pair. Each refresh token works once; presenting a used one revokes the whole session (401 `REFRESH_TOKEN_REUTILIZADO`).',
        body: s.refreshBody,
        response: { 200: s.tokenPair, 401: errorBody },
      },
    }, async (req) => auth.refresh(req.body.refreshToken));

    app.post('/api/auth/recuperarClave', {
      config: { public: true, rateLimit: limit },
      schema: {
        tags, summary: 'Recover password', security: [],
        description: 'Always answers 202 with the same message, whether or not the user exists. An existing user receives a single-use code by e-mail.',
        body: s.recoverBody,
        response: { 202: s.recoverResponse },
      },
    }, async (req, reply) => {
      await auth.requestPasswordReset(req.body.usuario);
      return reply.status(202).send({ mensaje: RECOVERY_MESSAGE });
    });

    app.post('/api/auth/restablecerClave', {
      config: { public: true, rateLimit: limit },
      schema: {
        tags, summary: 'Reset password', security: [],
        description: 'Consumes the e-mailed code and sets the new password; every existing session of the user ends.',
        body: s.resetBody,
        response: { 204: z.null(), 400: errorBody },
      },
    }, async (req, reply) => {
      await auth.resetPassword(req.body.token, req.body.nuevaClave);
      return reply.status(204).send(null);
    });

    app.post('/api/v1/auth/revoke-all-tokens', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Revoke all refresh tokens',
        description: 'Revokes every refresh token of the caller and invalidates its access tokens immediately (this one included).',
        response: { 200: s.revokeResponse },
      },
    }, async (req) => auth.revokeAll(requireActor(req)));

    app.post('/api/v1/auth/revoke/:refreshToken', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Revoke one refresh token',
        description: 'Revokes the session (the token and every token rotated from the same login) immediately.',
        params: s.revokeParams,
        response: { 200: s.revokeResponse, 404: errorBody },
      },
    }, async (req) => auth.revoke(requireActor(req), req.params.refreshToken));
  };
}
