/**
 * Emission points (puntos de emisión, spec 4.3 Punto Emision): terminals of a branch. codTerminal is
 * unique within its branch (spec 1). A disabled point cannot issue (checked by the resolver).
 * Changes need `administrador` on the company; another company's points answer as not found.
 */
import { PG_UNIQUE_VIOLATION, pgErrorCode, type Db } from '../../platform/db/client.js';
import { assertCompanyRole, visibleCompanies, type Actor } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import type { BranchesService } from './branches.service.js';
import { companyErrors } from './companies.errors.js';
import * as repo from './emission-points.repository.js';
import type { PointRow } from './emission-points.repository.js';

export interface PointInput { codTerminal?: string; descripcion?: string | null; habilitada?: boolean }

export const pointView = (p: PointRow) => ({
  id: p.id,
  idSucursal: p.branchId,
  idEmpresa: p.companyId,
  codComercio: p.codComercio,
  codTerminal: p.codTerminal,
  descripcion: p.descripcion,
  habilitada: p.enabled,
});

function duplicate(err: unknown, codTerminal: string | undefined): never {
  if (pgErrorCode(err) === PG_UNIQUE_VIOLATION) throw companyErrors.PUNTO_EMISION_DUPLICADO(`Ya existe un punto de emisión con codTerminal "${codTerminal}" en la sucursal.`);
  throw err;
}

export function createEmissionPointsService(deps: { db: Db; branches: Pick<BranchesService, 'load'> }) {
  const { db, branches } = deps;

  async function load(actor: Actor, id: number, role: 'lectura' | 'administrador' = 'lectura'): Promise<PointRow> {
    const point = await repo.findPoint(db, id);
    if (!point) throw companyErrors.PUNTO_EMISION_NO_ENCONTRADO();
    assertCompanyRole(actor, point.companyId, role, () => companyErrors.PUNTO_EMISION_NO_ENCONTRADO());
    return point;
  }

  /** The branch, also checked against an `idEmpresa` the client sent along (must be the branch's company). */
  async function loadBranch(actor: Actor, idSucursal: number, idEmpresa?: number, role: 'lectura' | 'administrador' = 'lectura') {
    const branch = await branches.load(actor, idSucursal, role);
    if (idEmpresa !== undefined && branch.companyId !== idEmpresa) throw companyErrors.SUCURSAL_NO_ENCONTRADA();
    return branch;
  }

  return {
    async create(actor: Actor, idSucursal: number, input: PointInput & { codTerminal: string }) {
      const branch = await loadBranch(actor, idSucursal, undefined, 'administrador');
      try {
        const id = await repo.insertPoint(db, {
          branchId: branch.id, companyId: branch.companyId, codTerminal: input.codTerminal, descripcion: input.descripcion ?? null, enabled: input.habilitada ?? true,
        });
        return pointView((await repo.findPoint(db, id))!);
      } catch (err) {
        duplicate(err, input.codTerminal);
      }
    },

    async edit(actor: Actor, id: number, input: PointInput) {
      await load(actor, id, 'administrador');
      const changes: Partial<repo.PointInsert> = {};
      if (input.codTerminal !== undefined) changes.codTerminal = input.codTerminal;
      if (input.descripcion !== undefined) changes.descripcion = input.descripcion;
      if (input.habilitada !== undefined) changes.enabled = input.habilitada;
      try {
        if (Object.keys(changes).length) await repo.updatePoint(db, id, changes);
      } catch (err) {
        duplicate(err, input.codTerminal);
      }
      return pointView((await repo.findPoint(db, id))!);
    },

    get: async (actor: Actor, id: number) => pointView(await load(actor, id)),

    async list(actor: Actor, filters: repo.PointFilters, paging: Paging) {
      if (filters.idEmpresa !== undefined) assertCompanyRole(actor, filters.idEmpresa, 'lectura');
      const { rows, total } = await repo.listPoints(db, visibleCompanies(actor), filters, paging);
      return { data: rows.map(pointView), total };
    },

    async listOfBranch(actor: Actor, idSucursal: number, idEmpresa: number | undefined, paging: Paging) {
      await loadBranch(actor, idSucursal, idEmpresa);
      const { rows, total } = await repo.listPoints(db, visibleCompanies(actor), { idSucursal }, paging);
      return { data: rows.map(pointView), total };
    },

    async getByBranchTerminal(actor: Actor, idSucursal: number, idEmpresa: number | undefined, codTerminal: string) {
      await loadBranch(actor, idSucursal, idEmpresa);
      const point = await repo.findPointByTerminal(db, idSucursal, codTerminal);
      if (!point) throw companyErrors.PUNTO_EMISION_NO_ENCONTRADO(`La sucursal no tiene un punto de emisión con codTerminal "${codTerminal}".`);
      return pointView(point);
    },
  };
}

export type EmissionPointsService = ReturnType<typeof createEmissionPointsService>;
