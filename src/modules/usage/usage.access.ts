/** Which company a usage request acts on, and the caller's role on it. */
import { assertCompanyRole, onlyCompanyOf, type Actor, type CompanyRole } from '../../platform/http/actor.js';
import { usageErrors } from './usage.errors.js';

/** The request's idEmpresa, or the caller's only company; checks the role on it. */
export function companyFor(actor: Actor, idEmpresa: number | undefined, role: CompanyRole): number {
  let companyId = idEmpresa;
  if (companyId === undefined) {
    companyId = onlyCompanyOf(actor);
    if (companyId === undefined) throw usageErrors.USO_EMPRESA_REQUERIDA();
  }
  assertCompanyRole(actor, companyId, role);
  return companyId;
}
