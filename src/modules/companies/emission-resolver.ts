/**
 * The one lookup the emission flow makes before building a CFE (issue 3 point 4; spec 1 and
 * 2.2 rules 4-5): one SQL round trip. It does not check the caller: the emitir route's `idEmpresa`
 * is checked by the tenancy hook before this runs.
 */
import { errors } from '../../lib/errors.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { CacheInvalidation } from '../../platform/db/invalidation.js';
import { createLoadingCache } from '../../platform/db/loading-cache.js';
import { companyErrors } from './companies.errors.js';
import * as repo from './companies.repository.js';
import type { Emisor } from '../emission/cfe.model.js';
import type { BranchRow } from './branches.repository.js';
import type { CompanyRow } from './companies.repository.js';
import { pickDgiBranchCode } from './dgi-branch-code.js';

export interface ResolveEmissionPointInput {
  idEmpresa: number;
  codComercio: string;
  codTerminal: string;
  /** idDoc.fechaEmision, YYYY-MM-DD. */
  fecha: string;
}

/** How long a resolution may be served without a change notification (invalidation.ts). */
const CACHE_TTL_MS = 60_000;

export function createEmissionResolver(db: DbOrTx, invalidation?: CacheInvalidation) {
  // Every emitir resolves its emission point (issue 5 point 11): the rows are cached, the checks
  // below run on every call. Topic `companies`: companies, branches, DGI codes, emission points.
  const rows = createLoadingCache<string, Awaited<ReturnType<typeof repo.resolveEmissionPoint>>>({
    ttlMs: CACHE_TTL_MS,
    invalidation: invalidation && { bus: invalidation, topics: ['companies'] },
  });
  const load = (i: ResolveEmissionPointInput, tx: DbOrTx) => repo.resolveEmissionPoint(tx, i.idEmpresa, i.codComercio, i.codTerminal, i.fecha);

  /**
   * Errors: EMPRESA_NO_ENCONTRADA / SUCURSAL_NO_ENCONTRADA / PUNTO_EMISION_NO_ENCONTRADO (404),
   * EMPRESA_DESHABILITADA / SUCURSAL_DESHABILITADA / PUNTO_EMISION_DESHABILITADO /
   * CODIGO_DGI_NO_DEFINIDO (422).
   */
  return async function resolveEmissionPoint(input: ResolveEmissionPointInput, tx?: DbOrTx) {
    // Inside a caller's transaction the lookup must see that transaction: no cache.
    const row = tx
      ? await load(input, tx)
      : await rows.get(`${input.idEmpresa}\u0000${input.codComercio}\u0000${input.codTerminal}\u0000${input.fecha}`, () => load(input, db));
    if (!row) throw errors.EMPRESA_NO_ENCONTRADA();
    const { company, branch, point } = row;
    if (!company.enabled) throw companyErrors.EMPRESA_DESHABILITADA();
    if (!branch) throw companyErrors.SUCURSAL_NO_ENCONTRADA(`La empresa no tiene una sucursal con codComercio "${input.codComercio}".`);
    if (!branch.enabled) throw companyErrors.SUCURSAL_DESHABILITADA(`La sucursal "${branch.codComercio}" está deshabilitada; habilítela antes de emitir.`);
    if (!point) throw companyErrors.PUNTO_EMISION_NO_ENCONTRADO(`La sucursal "${branch.codComercio}" no tiene un punto de emisión con codTerminal "${input.codTerminal}".`);
    if (!point.enabled) throw companyErrors.PUNTO_EMISION_DESHABILITADO(`El punto de emisión "${point.codTerminal}" está deshabilitado y no puede emitir.`);
    const code = pickDgiBranchCode(row.historyCode, branch.codigoCasaDgi, company.codigoCasaDgiPorDefecto);
    if (!code) {
      throw companyErrors.CODIGO_DGI_NO_DEFINIDO(
        `La sucursal "${branch.codComercio}" (idSucursal ${branch.id}) no tiene código DGI (CdgDGISucur) para el ${input.fecha}: envíe CodigoCasaDgi (o el historial codigosDgi) con POST /api/v1/sucursal/editar, o CodigoCasaDgiPorDefecto de la empresa con POST /api/v1/empresa/editar.`,
      );
    }
    return {
      company, branch, point,
      codigoDgiSucursal: code.codigoDgiSucursal,
      origenCodigoDgi: code.origen,
      emisor: buildEmisor(company, branch, code.codigoDgiSucursal),
    };
  };
}

export type EmissionPointResolution = Awaited<ReturnType<ReturnType<typeof createEmissionResolver>>>;

/**
 * The issuer of a CFE when cfe.emisor is omitted or has no ruc (spec 2.2 rules 1-3): RUT and legal
 * name from the company; phone, e-mail, address, city and department from the branch, falling back
 * to the company. Empty strings mean neither has the field (the XSD check of emission reports it).
 */
export function buildEmisor(company: CompanyRow, branch: BranchRow, codigoDgiSucursal: number): Emisor {
  const telefono = branch.telefono ?? company.telefono;
  const email = branch.email ?? company.email;
  return {
    RUCEmisor: company.rut,
    RznSoc: company.razonSocial,
    ...(company.nombreComercial ? { NomComercial: company.nombreComercial } : {}),
    ...(company.actividad ? { GiroEmis: company.actividad } : {}),
    ...(telefono ? { Telefono: [telefono] } : {}),
    ...(email ? { CorreoEmisor: email } : {}),
    EmiSucursal: branch.nombre,
    CdgDGISucur: codigoDgiSucursal,
    DomFiscal: branch.direccion ?? company.domicilioFiscal ?? '',
    Ciudad: branch.ciudad ?? company.ciudad ?? '',
    Departamento: branch.departamento ?? company.departamento ?? '',
  };
}
