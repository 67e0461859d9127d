/**
 * Branches (sucursales, spec 4.3 Sucursal). A branch is addressed by its own id, so every use case
 * loads it and checks the caller's role on its company: another company's branch answers exactly
 * like a missing one (SUCURSAL_NO_ENCONTRADA). Changes need `administrador` on the company.
 */
import { PG_UNIQUE_VIOLATION, pgErrorCode, type Db } from '../../platform/db/client.js';
import { assertCompanyRole, visibleCompanies, type Actor, type CompanyRole } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import * as repo from './branches.repository.js';
import type { BranchRow, DgiCodeRow } from './branches.repository.js';
import { companyErrors } from './companies.errors.js';
import * as companiesRepo from './companies.repository.js';
import { historyCodeAt, pickDgiBranchCode, validateHistory } from './dgi-branch-code.js';
import { validateLogo } from './logos.js';

export interface DgiCodeApi { codigoDgiSucursal: number; vigenciaDesde: string; vigenciaHasta?: string | null }

export interface BranchInput {
  codComercio?: string;
  nombre?: string;
  direccion?: string | null;
  ciudad?: string | null;
  departamento?: string | null;
  telefono?: string | null;
  email?: string | null;
  CodigoCasaDgi?: number | null;
  habilitada?: boolean;
  /** Full history; on edit it replaces the stored one. */
  codigosDgi?: DgiCodeApi[];
}

const historyView = (h: DgiCodeRow) => ({ codigoDgiSucursal: h.codigoDgiSucursal, vigenciaDesde: h.validFrom, vigenciaHasta: h.validTo });

export function branchView(b: BranchRow, history: DgiCodeRow[], hasLogo: boolean) {
  return {
    id: b.id,
    idEmpresa: b.companyId,
    codComercio: b.codComercio,
    nombre: b.nombre,
    direccion: b.direccion,
    ciudad: b.ciudad,
    departamento: b.departamento,
    telefono: b.telefono,
    email: b.email,
    CodigoCasaDgi: b.codigoCasaDgi,
    habilitada: b.enabled,
    tieneLogo: hasLogo,
    codigosDgi: history.filter((h) => h.branchId === b.id).map(historyView),
  };
}

function toColumns(input: BranchInput): Partial<repo.BranchInsert> {
  const out: Partial<repo.BranchInsert> = {
    codComercio: input.codComercio,
    nombre: input.nombre,
    direccion: input.direccion,
    ciudad: input.ciudad,
    departamento: input.departamento,
    telefono: input.telefono,
    email: input.email,
    codigoCasaDgi: input.CodigoCasaDgi,
    enabled: input.habilitada,
  };
  for (const k of Object.keys(out) as Array<keyof typeof out>) if (out[k] === undefined) delete out[k];
  return out;
}

const toHistory = (codes: DgiCodeApi[]) =>
  validateHistory(codes.map((c) => ({ codigoDgiSucursal: c.codigoDgiSucursal, validFrom: c.vigenciaDesde, validTo: c.vigenciaHasta ?? null })));

function duplicate(err: unknown, codComercio: string | undefined): never {
  if (pgErrorCode(err) === PG_UNIQUE_VIOLATION) throw companyErrors.SUCURSAL_DUPLICADA(`Ya existe una sucursal con codComercio "${codComercio}" en la empresa.`);
  throw err;
}

export function createBranchesService(deps: { db: Db }) {
  const { db } = deps;

  /** Loads a branch of a non-deleted company and checks the caller's role on that company. */
  async function load(actor: Actor, id: number, role: CompanyRole = 'lectura'): Promise<BranchRow> {
    const branch = await repo.findBranch(db, id);
    if (!branch) throw companyErrors.SUCURSAL_NO_ENCONTRADA();
    assertCompanyRole(actor, branch.companyId, role, () => companyErrors.SUCURSAL_NO_ENCONTRADA());
    return branch;
  }

  async function viewOf(b: BranchRow) {
    const [history, logos] = await Promise.all([repo.historyOf(db, [b.id]), repo.branchIdsWithLogo(db, [b.id])]);
    return branchView(b, history, logos.has(b.id));
  }

  return {
    load,

    async create(actor: Actor, idEmpresa: number, input: BranchInput & { codComercio: string; nombre: string }) {
      assertCompanyRole(actor, idEmpresa, 'administrador');
      const history = toHistory(input.codigosDgi ?? []);
      try {
        const branch = await db.transaction(async (tx) => {
          const row = await repo.insertBranch(tx, { ...toColumns(input), companyId: idEmpresa } as repo.BranchInsert);
          await repo.replaceHistory(tx, row, history);
          return row;
        });
        return viewOf(branch);
      } catch (err) {
        duplicate(err, input.codComercio);
      }
    },

    async edit(actor: Actor, id: number, input: BranchInput) {
      await load(actor, id, 'administrador');
      const history = input.codigosDgi ? toHistory(input.codigosDgi) : undefined;
      try {
        const branch = await db.transaction(async (tx) => {
          const changes = toColumns(input);
          const row = Object.keys(changes).length ? await repo.updateBranch(tx, id, changes) : await repo.findBranch(tx, id);
          if (history) await repo.replaceHistory(tx, row!, history);
          return row!;
        });
        return viewOf(branch);
      } catch (err) {
        duplicate(err, input.codComercio);
      }
    },

    get: async (actor: Actor, id: number) => viewOf(await load(actor, id)),

    async list(actor: Actor, filters: repo.BranchFilters, paging: Paging) {
      if (filters.idEmpresa !== undefined) assertCompanyRole(actor, filters.idEmpresa, 'lectura');
      const { rows, total } = await repo.listBranches(db, visibleCompanies(actor), filters, paging);
      const ids = rows.map((r) => r.id);
      const [history, logos] = await Promise.all([repo.historyOf(db, ids), repo.branchIdsWithLogo(db, ids)]);
      return { data: rows.map((r) => branchView(r, history, logos.has(r.id))), total };
    },

    /** Enabled companies visible to the caller, each with its enabled branches (paged by company). */
    async companiesWithBranches(actor: Actor, paging: Paging) {
      const { rows, total } = await companiesRepo.listCompanies(db, visibleCompanies(actor), { habilitada: true }, paging);
      const branches = await repo.enabledBranchesOf(db, rows.map((c) => c.id));
      const data = rows.map((c) => ({
        idEmpresa: c.id,
        rut: c.rut,
        razonSocial: c.razonSocial,
        sucursales: branches.filter((b) => b.companyId === c.id).map((b) => ({ idSucursal: b.id, codComercio: b.codComercio, nombre: b.nombre })),
      }));
      return { data, total };
    },

    async codComercio(actor: Actor, id: number) {
      const b = await load(actor, id);
      return { idSucursal: b.id, idEmpresa: b.companyId, codComercio: b.codComercio };
    },

    /** Spec 2.2 rule 5 for one branch and date, with where the code came from. */
    async dgiCodeAt(actor: Actor, id: number, fecha: string) {
      const b = await load(actor, id);
      const [history, company] = await Promise.all([repo.historyOf(db, [id]), companiesRepo.findCompany(db, b.companyId)]);
      const picked = pickDgiBranchCode(historyCodeAt(history, fecha), b.codigoCasaDgi, company?.codigoCasaDgiPorDefecto ?? null);
      return { idSucursal: id, fecha, codigoDgiSucursal: picked?.codigoDgiSucursal ?? null, origen: picked?.origen ?? null };
    },

    async setLogo(actor: Actor, id: number, data: Buffer) {
      const branch = await load(actor, id, 'administrador');
      const contentType = validateLogo(data);
      await repo.upsertBranchLogo(db, branch, contentType, data);
      return { idSucursal: id, contentType, bytes: data.length };
    },

    async removeLogo(actor: Actor, id: number): Promise<void> {
      await load(actor, id, 'administrador');
      if (!(await repo.deleteBranchLogo(db, id))) throw companyErrors.LOGO_NO_ENCONTRADO();
    },

    async logo(actor: Actor, id: number) {
      await load(actor, id);
      const logo = await repo.findBranchLogo(db, id);
      if (!logo) throw companyErrors.LOGO_NO_ENCONTRADO();
      return { contentType: logo.contentType, data: logo.data };
    },
  };
}

export type BranchesService = ReturnType<typeof createBranchesService>;
