/**
 * The authenticated caller and the one tenancy rule (issue 2 point 6): a company the caller cannot
 * see is answered exactly like one that does not exist. Every module checks company access through
 * these helpers; routes get it for free from the `idEmpresa` hook in tenancy.ts.
 */
import { AppError, errors } from '../../lib/errors.js';

export const companyRoles = ['lectura', 'emisor', 'administrador'] as const;
export type CompanyRole = (typeof companyRoles)[number];

export interface Actor {
  userId: number;
  email: string;
  isOperator: boolean;
  /** companyId → role for every non-deleted company the user belongs to (disabled ones included, so their administrators can re-enable them). */
  companies: ReadonlyMap<number, CompanyRole>;
  /**
   * The role the route being served declares (tenancy.ts): every `assertCompanyRole` during the
   * request requires at least this, so a service's own check can never be weaker than the route.
   */
  routeRole?: CompanyRole;
}

const rank: Record<CompanyRole, number> = { lectura: 1, emisor: 2, administrador: 3 };

export function roleAtLeast(role: CompanyRole | undefined, min: CompanyRole): boolean {
  return role !== undefined && rank[role] >= rank[min];
}

/** Whether the actor can see the company at all (operators see every company). */
export function canSeeCompany(actor: Actor, companyId: number): boolean {
  return actor.isOperator || actor.companies.has(companyId);
}

/**
 * Throws `notFound` when the company is invisible to the actor, SIN_PERMISO when it is visible but
 * the role is below `min`. Existence of the company itself is checked by the caller for operators.
 */
export function assertCompanyRole(actor: Actor, companyId: number, min: CompanyRole, notFound: () => AppError = () => errors.EMPRESA_NO_ENCONTRADA()): void {
  if (actor.isOperator) return;
  const role = actor.companies.get(companyId);
  if (role === undefined) throw notFound();
  if (actor.routeRole && rank[actor.routeRole] > rank[min]) min = actor.routeRole;
  if (!roleAtLeast(role, min)) throw errors.SIN_PERMISO(`Su rol en esta empresa (${role}) no permite esta operación; se requiere ${min}.`);
}

/**
 * The company a request acts on when it names none: the caller's only company; undefined for an
 * operator or a user of several companies (the service then asks for idEmpresa). company-refs.ts
 * checks the ids of such a request against this same company.
 */
export function onlyCompanyOf(actor: Actor): number | undefined {
  return !actor.isOperator && actor.companies.size === 1 ? [...actor.companies.keys()][0] : undefined;
}

/** Companies the actor can see, or 'all' for operators: repositories turn this into a WHERE clause. */
export function visibleCompanies(actor: Actor): number[] | 'all' {
  return actor.isOperator ? 'all' : [...actor.companies.keys()];
}
