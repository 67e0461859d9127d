/**
 * Authentication and the tenancy rule as one mechanism for every route (issue 2 points 4 and 6):
 * - onRequest: every route except those marked `config.public` needs `Authorization: Bearer`.
 * - Every non-public route declares its minimum role (`config.minRole`, issue 28 point 6).
 * - preHandler (after validation): every `idEmpresa` named in query, path or body (also `idEmp`,
 *   and the path parameter a route declares in `config.companyParam`) is checked against the
 *   caller before the handler runs. Invisible and nonexistent companies get the same 404.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../lib/errors.js';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { assertCompanyRole, roleAtLeast, type Actor, type CompanyRole } from './actor.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No access token required (login, refresh, password recovery, health, docs). */
    public?: boolean;
    /** Path parameter that carries a company id, e.g. `id` in /api/v1/empresa/{id}. */
    companyParam?: string;
    /**
     * Minimum role on the company the request acts on (issue 28 point 6). Every non-public route
     * declares it: a route without one fails at registration. It is checked on every `idEmpresa`
     * of the request here and, through `actor.routeRole`, raises every role check the services make
     * on the resource's company (a route acting on `/webhooks/{id}` gets it from the webhook's company).
     */
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
    const actor = await deps.authenticate(match[1]);
    const routeRole = request.routeOptions.config?.minRole;
    // A member who holds the route's role in none of its companies cannot do this anywhere: refused
    // before the body is read (which company it names does not matter and is not revealed). A user of
    // no company at all sees none: the tenancy rule below answers 404 as for any invisible company.
    const members = actor.companies.size > 0;
    if (routeRole && routeRole !== 'lectura' && !actor.isOperator && members && ![...actor.companies.values()].some((r) => roleAtLeast(r, routeRole))) {
      throw errors.SIN_PERMISO(`Esta operación requiere el rol ${routeRole} y no lo tiene en ninguna empresa.`);
    }
    request.actor = { ...actor, routeRole };
  });

  app.addHook('preHandler', async (request) => {
    const actor = request.actor;
    if (!actor) return;
    const ids = collectCompanyIds(request);
    if (ids.length === 0) return;
    const min = requiredRole(request);
    for (const id of ids) {
      // Company ids are `integer`: a larger one cannot exist, so it is not looked up (it would be a data exception).
      if (!Number.isSafeInteger(id) || id <= 0 || id > PG_INT_MAX) throw errors.EMPRESA_NO_ENCONTRADA();
      assertCompanyRole(actor, id, min);
      if (actor.isOperator && !(await deps.companyExists(id))) throw errors.EMPRESA_NO_ENCONTRADA();
    }
  });
}

function requiredRole(request: FastifyRequest): CompanyRole {
  const min = request.routeOptions.config?.minRole;
  // Unreachable: declareRoles refuses such a route at registration; kept so a gap fails closed.
  if (!min) throw errors.SIN_PERMISO('La ruta no declara el rol requerido.');
  return min;
}

/** Public routes and the documentation UI are the only ones without a role. */
export function isPublicRoute(opts: { url: string; config?: unknown; schema?: unknown }): boolean {
  const config = opts.config as { public?: boolean } | undefined;
  return config?.public === true || opts.url.startsWith('/docs');
}

/**
 * Each route declares its role (issue 28 point 6): a non-public route without `config.minRole`
 * stops the app at registration. The role is published in the OpenAPI document as `x-rol` and as
 * the last line of the operation's description.
 */
export function declareRoles(app: FastifyInstance): void {
  app.addHook('onRoute', (opts) => {
    if (isPublicRoute(opts)) return;
    const role = (opts.config as { minRole?: CompanyRole } | undefined)?.minRole;
    const methods = Array.isArray(opts.method) ? opts.method.join(',') : opts.method;
    if (!role) throw new Error(`Route ${methods} ${opts.url} declares no role (config.minRole)`);
    if (!opts.schema || (opts.schema as { hide?: boolean }).hide) return;
    const schema = opts.schema as Record<string, unknown>;
    const line = `**Rol mínimo:** \`${role}\`.`;
    const description = typeof schema.description === 'string' ? `${schema.description}\n\n${line}` : line;
    opts.schema = { ...schema, description, 'x-rol': role } as typeof opts.schema;
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
