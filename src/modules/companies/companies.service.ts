/**
 * Companies (empresas, spec 4.3 Empresa) and the front door of the module: branch and emission
 * point use cases live in their own files and are exposed here, with the emission resolver.
 * Rules: only operators create companies (a new tenant is a service decision; they then grant roles
 * with /usuario/editar). Editing, enabling, disabling, deleting and logos need `administrador` on the
 * company (or operator); `limiteCfeMensual` is set by operators only. Deleting is a soft delete.
 */
import { errors } from '../../lib/errors.js';
import { rutProblem } from '../../lib/rut.js';
import { PG_UNIQUE_VIOLATION, pgErrorCode, type Db } from '../../platform/db/client.js';
import type { CacheInvalidation } from '../../platform/db/invalidation.js';
import { assertCompanyRole, visibleCompanies, type Actor } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { createBranchesService } from './branches.service.js';
import { companyErrors } from './companies.errors.js';
import * as repo from './companies.repository.js';
import type { CompanyInsert, CompanyRow } from './companies.repository.js';
import { createEmissionPointsService } from './emission-points.service.js';
import { createEmissionResolver } from './emission-resolver.js';
import { validateLogo } from './logos.js';
import { createPrintingProfiles } from './companies.printing.js';
import { companyOfIds } from '../../platform/db/company-of.js';
import { branches as branchesTable, emissionPoints } from './companies.tables.js';

export interface CompanyInput {
  rut?: string;
  habilitada?: boolean;
  razonSocial?: string;
  nombreComercial?: string | null;
  domicilioFiscal?: string | null;
  ciudad?: string | null;
  departamento?: string | null;
  telefono?: string | null;
  email?: string | null;
  actividad?: string | null;
  ambienteDgi?: 'testing' | 'produccion';
  CodigoCasaDgiPorDefecto?: number | null;
  regimenTributario?: CompanyRow['regimenTributario'];
  urlVerificacion?: string | null;
  limiteCfeMensual?: number | null;
  numeroResolucion?: string | null;
  fechaResolucion?: string | null;
  /** Create: the whole settings object. Edit: merged per key; a key sent as null is removed. */
  configuracion?: Record<string, unknown>;
}

export function companyView(c: CompanyRow, hasLogo: boolean) {
  return {
    id: c.id,
    rut: c.rut,
    razonSocial: c.razonSocial,
    nombreComercial: c.nombreComercial,
    domicilioFiscal: c.domicilioFiscal,
    ciudad: c.ciudad,
    departamento: c.departamento,
    telefono: c.telefono,
    email: c.email,
    actividad: c.actividad,
    habilitada: c.enabled,
    tieneLogo: hasLogo,
    CodigoCasaDgiPorDefecto: c.codigoCasaDgiPorDefecto,
  };
}

/** API field names → columns; `undefined` leaves a column unchanged. */
function toColumns(input: CompanyInput): Partial<CompanyInsert> {
  const out: Partial<CompanyInsert> = {
    razonSocial: input.razonSocial,
    nombreComercial: input.nombreComercial,
    domicilioFiscal: input.domicilioFiscal,
    ciudad: input.ciudad,
    departamento: input.departamento,
    telefono: input.telefono,
    email: input.email,
    actividad: input.actividad,
    enabled: input.habilitada,
    ambienteDgi: input.ambienteDgi,
    codigoCasaDgiPorDefecto: input.CodigoCasaDgiPorDefecto,
    regimenTributario: input.regimenTributario,
    urlVerificacion: input.urlVerificacion,
    limiteCfeMensual: input.limiteCfeMensual,
    numeroResolucion: input.numeroResolucion,
    fechaResolucion: input.fechaResolucion,
    settings: input.configuracion,
  };
  for (const k of Object.keys(out) as Array<keyof typeof out>) if (out[k] === undefined) delete out[k];
  return out;
}

export function assertValidRut(rut: string): void {
  const problem = rutProblem(rut);
  if (problem) throw companyErrors.RUT_INVALIDO(`RUT inválido (${rut}): ${problem}`);
}

export function createCompaniesService(deps: { db: Db; invalidation?: CacheInvalidation }) {
  const { db } = deps;

  /** Loads a non-deleted company the actor can act on with `role`; invisible = not found. */
  async function loadCompany(actor: Actor, id: number, role: 'lectura' | 'administrador' = 'lectura'): Promise<CompanyRow> {
    assertCompanyRole(actor, id, role);
    const company = await repo.findCompany(db, id);
    if (!company) throw errors.EMPRESA_NO_ENCONTRADA();
    return company;
  }

  async function viewOf(c: CompanyRow) {
    return companyView(c, (await repo.companyIdsWithLogo(db, [c.id])).has(c.id));
  }

  async function setEnabled(actor: Actor, company: CompanyRow, enabled: boolean) {
    assertCompanyRole(actor, company.id, 'administrador');
    return viewOf((await repo.updateCompany(db, company.id, { enabled }))!);
  }

  async function findByRut(actor: Actor, rut: string) {
    assertValidRut(rut);
    const company = await repo.findCompanyByRut(db, rut);
    // A company the caller cannot see answers exactly like a missing one.
    if (!company) throw errors.EMPRESA_NO_ENCONTRADA();
    assertCompanyRole(actor, company.id, 'administrador');
    return company;
  }

  const branches = createBranchesService({ db });
  const points = createEmissionPointsService({ db, branches });

  return {
    /** id → company id of existing rows (issue 28 point 5: platform/http/company-refs.ts resolves body ids through it). */
    companyOfBranches: (ids: readonly number[]) => companyOfIds(db, branchesTable, ids),
    companyOfEmissionPoints: (ids: readonly number[]) => companyOfIds(db, emissionPoints, ids),
    /** Tenancy hook: whether a non-deleted company exists. */
    exists: (id: number) => repo.companyExists(db, id),
    /** RUT of a non-deleted company (no access check: callers have passed the tenancy rule). */
    rutOf: async (id: number): Promise<string | undefined> => (await repo.findCompany(db, id))?.rut,
    /** What a tax-benefit declaration states about the company (no access check: the caller has made it). */
    async taxFactsOf(id: number) {
      const c = await repo.findCompany(db, id);
      if (!c) throw errors.EMPRESA_NO_ENCONTRADA();
      return {
        rut: c.rut, razonSocial: c.razonSocial, domicilioFiscal: c.domicilioFiscal, ciudad: c.ciudad, departamento: c.departamento,
        regimenTributario: c.regimenTributario, numeroResolucion: c.numeroResolucion, fechaResolucion: c.fechaResolucion,
      };
    },
    /** The stored `configuracion` of a non-deleted company (no access check). */
    settingsOf: async (id: number): Promise<Record<string, unknown> | undefined> => (await repo.findCompany(db, id))?.settings,
    /** Ids of enabled, non-deleted companies (no access check: for scheduled tasks). */
    activeIds: () => repo.activeCompanyIds(db),

    async create(actor: Actor, input: CompanyInput & { rut: string; razonSocial: string }) {
      if (!actor.isOperator) throw companyErrors.OPERADOR_REQUERIDO('Solo un operador del servicio puede crear empresas.');
      assertValidRut(input.rut);
      try {
        const row = await repo.insertCompany(db, { ...toColumns(input), rut: input.rut, razonSocial: input.razonSocial } as CompanyInsert);
        return companyView(row, false);
      } catch (err) {
        if (pgErrorCode(err) === PG_UNIQUE_VIOLATION) throw companyErrors.EMPRESA_DUPLICADA(`Ya existe una empresa con el RUT ${input.rut}.`);
        throw err;
      }
    },

    async edit(actor: Actor, idEmpresa: number, input: CompanyInput) {
      await loadCompany(actor, idEmpresa, 'administrador');
      if (input.limiteCfeMensual !== undefined && !actor.isOperator) {
        throw companyErrors.OPERADOR_REQUERIDO('Solo un operador del servicio puede cambiar limiteCfeMensual.');
      }
      const { configuracion, ...rest } = input;
      const changes: repo.CompanyChanges = toColumns(rest);
      if (configuracion && Object.keys(configuracion).length) changes.settings = repo.mergeSettings(configuracion);
      const row = Object.keys(changes).length ? await repo.updateCompany(db, idEmpresa, changes) : await repo.findCompany(db, idEmpresa);
      return viewOf(row!);
    },

    get: async (actor: Actor, id: number) => viewOf(await loadCompany(actor, id)),

    /** Soft delete: the row (and every CFE that points at it) stays; the RUT becomes free for a new company. */
    async remove(actor: Actor, id: number): Promise<void> {
      await loadCompany(actor, id, 'administrador');
      await repo.updateCompany(db, id, { deletedAt: new Date(), enabled: false });
    },

    async list(actor: Actor, filters: repo.CompanyFilters, paging: Paging) {
      const { rows, total } = await repo.listCompanies(db, visibleCompanies(actor), filters, paging);
      const logos = await repo.companyIdsWithLogo(db, rows.map((r) => r.id));
      return { data: rows.map((r) => companyView(r, logos.has(r.id))), total };
    },

    /** Batches of visible companies for the spreadsheet export. */
    exportRows: (actor: Actor, filters: repo.CompanyFilters) => repo.iterateCompanies(db, visibleCompanies(actor), filters),

    async parameters(actor: Actor, id: number) {
      const c = await loadCompany(actor, id);
      return {
        idEmpresa: c.id,
        ambienteDgi: c.ambienteDgi,
        CodigoCasaDgiPorDefecto: c.codigoCasaDgiPorDefecto,
        regimenTributario: c.regimenTributario,
        urlVerificacion: c.urlVerificacion,
        limiteCfeMensual: c.limiteCfeMensual,
        numeroResolucion: c.numeroResolucion,
        fechaResolucion: c.fechaResolucion,
        configuracion: c.settings,
      };
    },

    enable: async (actor: Actor, id: number) => setEnabled(actor, await loadCompany(actor, id, 'administrador'), true),
    disable: async (actor: Actor, id: number) => setEnabled(actor, await loadCompany(actor, id, 'administrador'), false),
    enableByRut: async (actor: Actor, rut: string) => setEnabled(actor, await findByRut(actor, rut), true),
    disableByRut: async (actor: Actor, rut: string) => setEnabled(actor, await findByRut(actor, rut), false),

    async setLogo(actor: Actor, id: number, data: Buffer) {
      await loadCompany(actor, id, 'administrador');
      const contentType = validateLogo(data);
      await repo.upsertCompanyLogo(db, id, contentType, data);
      return { idEmpresa: id, contentType, bytes: data.length };
    },

    async removeLogo(actor: Actor, id: number): Promise<void> {
      await loadCompany(actor, id, 'administrador');
      if (!(await repo.deleteCompanyLogo(db, id))) throw companyErrors.LOGO_NO_ENCONTRADO();
    },

    /** The stored logo, for the API and for printing (documents module). */
    async logo(actor: Actor, id: number) {
      await loadCompany(actor, id);
      const logo = await repo.findCompanyLogo(db, id);
      if (!logo) throw companyErrors.LOGO_NO_ENCONTRADO();
      return { contentType: logo.contentType, data: logo.data };
    },

    branches,
    points,
    /** Printed representation (cfe-documents): logo, verification site, resolution; no access check. */
    printingProfile: createPrintingProfiles(db),
    /** Emission flow: (idEmpresa, codComercio, codTerminal, fecha) → company, branch, point, codigoDgiSucursal. */
    resolveEmissionPoint: createEmissionResolver(db, deps.invalidation),
  };
}

export type CompaniesService = ReturnType<typeof createCompaniesService>;
