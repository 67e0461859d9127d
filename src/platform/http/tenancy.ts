/**
 * Authentication and the tenancy rule as one mechanism for every route (issue 2 points 4 and 6):
 * - onRequest: every route except those marked `config.public` needs `Authorization: Bearer`.
 * - preHandler (after validation): every `idEmpresa` named in query, path or body (also `idEmp`,
 *   and the path parameter a route declares in `config.companyParam`) is checked against the
 *   caller before the handler runs. Invisible and nonexistent companies get the same 404.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../lib/errors.js';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { assertCompanyRole, type Actor, type CompanyRole } from './actor.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No access token required (login, refresh, password recovery, health, docs). */
    public?: boolean;
    /** Path parameter that carries a company id, e.g. `id` in /api/v1/empresa/{id}. */
    companyParam?: string;
    /** Minimum role on the named company. Default: `lectura` for GET, `emisor` otherwise. */
    minRole?: CompanyRole;
  }
  interface FastifyRequest {
    actor?: Actor;
  }
}

export interface TenancyDeps {
  /** Verifies the bearer token and loads the caller (throws NO_AUTENTICADO / TOKEN_EXPIRADO). */
  authenticate(token: string): Promise<Actor>;
  /** Whether a non-deleted company with this id exists (checked for operators, who see all). */
  companyExists(companyId: number): Promise<boolean>;
}

const companyKeys = ['idEmpresa', 'idEmp'] as const;

export function requireActor(request: FastifyRequest): Actor {
  if (!request.actor) throw errors.NO_AUTENTICADO();
  return request.actor;
}

export function registerTenancy(app: FastifyInstance, deps: TenancyDeps): void {
  app.addHook('onRequest', async (request) => {
    const url = request.routeOptions.url;
    if (request.routeOptions.config?.public || !url || url.startsWith('/docs')) return;
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw errors.NO_AUTENTICADO('Falta el encabezado Authorization: Bearer <token>.');
    request.actor = await deps.authenticate(match[1]);
  });

  app.addHook('preHandler', async (request) => {
    const actor = request.actor;
    if (!actor) return;
    const ids = collectCompanyIds(request);
    if (ids.length === 0) return;
    const config = request.routeOptions.config ?? {};
    const min = config.minRole ?? (request.method === 'GET' ? 'lectura' : 'emisor');
    for (const id of ids) {
      // Company ids are `integer`: a larger one cannot exist, so it is not looked up (it would be a data exception).
      if (!Number.isSafeInteger(id) || id <= 0 || id > PG_INT_MAX) throw errors.EMPRESA_NO_ENCONTRADA();
      assertCompanyRole(actor, id, min);
      if (actor.isOperator && !(await deps.companyExists(id))) throw errors.EMPRESA_NO_ENCONTRADA();
    }
  });
}

function collectCompanyIds(request: FastifyRequest): number[] {
  const found = new Set<number>();
  const add = (v: unknown) => {
    if (v === undefined || v === null || v === '') return;
    found.add(typeof v === 'number' ? v : Number(v));
  };
  const sources = [request.query, request.params, request.body];
  for (const src of sources) {
    if (!src || typeof src !== 'object' || Array.isArray(src)) continue;
    for (const k of companyKeys) add((src as Record<string, unknown>)[k]);
  }
  const param = request.routeOptions.config?.companyParam;
  if (param) add((request.params as Record<string, unknown> | undefined)?.[param]);
  return [...found];
}
