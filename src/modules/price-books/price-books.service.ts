/**
 * Price books (issue 34 point 1): immutable versions per (company, code), validity that never
 * overlaps, reads by code, by version and in force at a date. Contracts (issue 33/34) pin a version
 * through `versionById` / `versionInForce`; the rating engine (rating.ts) takes the version as returned.
 */
import { uyToday } from '../../lib/dates.js';
import type { Db } from '../../platform/db/client.js';
import { companyOfIds } from '../../platform/db/company-of.js';
import { assertCompanyRole, onlyCompanyOf, type Actor, type CompanyRole } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { priceBookErrors as E } from './price-books.errors.js';
import type { Price, PriceBookVersion } from './price-books.model.js';
import * as repo from './price-books.repository.js';
import type { CreatePriceBookBody } from './price-books.schemas.js';
import { priceBookVersions } from './price-books.tables.js';
import { checkPriceBook } from './price-books.validation.js';

export type PriceBookVersionView = PriceBookVersion & { id: number; version: number; idEmpresa: number; createdAt: string };

function priceOf(p: repo.PriceRow): Price {
  return {
    metrica: p.metrica,
    ...(Object.keys(p.dimensiones).length ? { dimensiones: p.dimensiones } : {}),
    modelo: p.modelo,
    ...(p.precioUnitario !== null ? { precioUnitario: p.precioUnitario } : {}),
    ...(p.tramos ? { tramos: p.tramos } : {}),
    ...(p.paqueteTamano !== null && p.paquetePrecio !== null ? { paquete: { tamano: p.paqueteTamano, precio: p.paquetePrecio } } : {}),
    ...(p.minimo !== null ? { minimo: p.minimo } : {}),
    indicadorFacturacion: p.indicadorFacturacion,
    nombreItem: p.nombreItem,
    ...(p.unidadMedida ? { unidadMedida: p.unidadMedida } : {}),
  };
}

function head(r: repo.VersionRow) {
  return {
    id: r.id, idEmpresa: r.companyId, codigo: r.codigo, version: r.version, nombre: r.nombre, moneda: r.moneda,
    tipoCambio: { modo: r.tipoCambioModo, ...(r.tipoCambioValor !== null ? { valor: r.tipoCambioValor } : {}) },
    vigenteDesde: r.vigenteDesde, vigenteHasta: r.vigenteHasta, createdAt: r.createdAt.toISOString(),
  };
}

function view(r: repo.VersionRow, prices: repo.PriceRow[]): PriceBookVersionView {
  return { ...head(r), ...(r.minimoPeriodo ? { minimoPeriodo: r.minimoPeriodo } : {}), precios: prices.filter((p) => p.versionId === r.id).map(priceOf) };
}

export function createPriceBooksService(deps: { db: Db; isKnownCurrency: (code: string) => boolean }) {
  const { db } = deps;

  /** The company the request acts on: the one given, or the caller's only company. */
  function companyOf(actor: Actor, idEmpresa: number | undefined, min: CompanyRole): number {
    let companyId = idEmpresa;
    if (companyId === undefined) {
      companyId = onlyCompanyOf(actor);
      if (companyId === undefined) throw E.LISTA_PRECIOS_EMPRESA_REQUERIDA();
    }
    assertCompanyRole(actor, companyId, min);
    return companyId;
  }

  async function withPrices(rows: repo.VersionRow[]): Promise<PriceBookVersionView[]> {
    const prices = await repo.pricesOf(db, rows.map((r) => r.id));
    return rows.map((r) => view(r, prices));
  }

  async function versionInForce(companyId: number, codigo: string, fecha: string): Promise<PriceBookVersionView | undefined> {
    const row = await repo.findInForce(db, companyId, codigo, fecha);
    return row ? (await withPrices([row]))[0] : undefined;
  }

  return {
    /** id → company id (platform/http/company-refs.ts resolves a pinned version id in a contract body through it). */
    companyOf: (ids: readonly number[]) => companyOfIds(db, priceBookVersions, ids),

    /** POST /api/v1/price-books: a new version of `codigo` (1 for a new code); 409 when its validity overlaps another version's. */
    async create(actor: Actor, idEmpresa: number | undefined, body: CreatePriceBookBody): Promise<PriceBookVersionView> {
      const companyId = companyOf(actor, idEmpresa, 'administrador');
      if (!deps.isKnownCurrency(body.moneda)) throw E.LISTA_PRECIOS_MONEDA_DESCONOCIDA(`La moneda ${body.moneda} no existe en el catálogo.`);
      checkPriceBook(body);
      const hasta = body.vigenteHasta ?? null;
      const row = await db.transaction(async (tx) => {
        await repo.lockCode(tx, companyId, body.codigo);
        const clash = await repo.overlapping(tx, companyId, body.codigo, body.vigenteDesde, hasta);
        if (clash.length) {
          const c = clash[0]!;
          throw E.LISTA_PRECIOS_SUPERPUESTA(
            `La vigencia ${body.vigenteDesde} a ${hasta ?? 'sin fin'} se superpone con la versión ${c.version} de ${body.codigo} (${c.vigenteDesde} a ${c.vigenteHasta ?? 'sin fin'}). Cierre esa versión (POST /api/v1/price-books/${body.codigo}/versiones/${c.version}/cerrar) o elija otra vigencia.`,
            { versiones: clash.map((v) => ({ version: v.version, vigenteDesde: v.vigenteDesde, vigenteHasta: v.vigenteHasta })) },
          );
        }
        const version = await repo.nextVersion(tx, companyId, body.codigo);
        return repo.insertVersion(tx, {
          companyId, codigo: body.codigo, version, nombre: body.nombre, moneda: body.moneda,
          tipoCambioModo: body.tipoCambio?.modo ?? 'emision', tipoCambioValor: body.tipoCambio?.valor ?? null,
          vigenteDesde: body.vigenteDesde, vigenteHasta: hasta, minimoPeriodo: body.minimoPeriodo ?? null, createdBy: actor.userId,
        }, body.precios.map((p, orden) => ({
          orden, metrica: p.metrica, dimensiones: p.dimensiones ?? {}, modelo: p.modelo, precioUnitario: p.precioUnitario ?? null,
          tramos: p.tramos ?? null, paqueteTamano: p.paquete?.tamano ?? null, paquetePrecio: p.paquete?.precio ?? null, minimo: p.minimo ?? null,
          indicadorFacturacion: p.indicadorFacturacion, nombreItem: p.nombreItem, unidadMedida: p.unidadMedida ?? null,
        })));
      });
      return (await withPrices([row]))[0]!;
    },

    /** Versions of the company (optionally of one code, or in force on a day), without their prices. */
    async list(actor: Actor, idEmpresa: number | undefined, f: { codigo?: string; vigenteEn?: string }, paging: Paging) {
      const companyId = companyOf(actor, idEmpresa, 'lectura');
      const { rows, total } = await repo.listVersions(db, companyId, f, paging);
      return { data: rows.map(({ row, n }) => ({ ...head(row), cantidadPrecios: n })), total };
    },

    /** One code with every version, newest first. */
    async byCode(actor: Actor, idEmpresa: number | undefined, codigo: string) {
      const companyId = companyOf(actor, idEmpresa, 'lectura');
      const rows = await repo.versionsOfCode(db, companyId, codigo);
      if (!rows.length) throw E.LISTA_PRECIOS_NO_ENCONTRADA(`La lista de precios ${codigo} no existe.`);
      return { codigo, versiones: await withPrices(rows) };
    },

    async version(actor: Actor, idEmpresa: number | undefined, codigo: string, version: number): Promise<PriceBookVersionView> {
      const companyId = companyOf(actor, idEmpresa, 'lectura');
      const row = await repo.findVersion(db, companyId, codigo, version);
      if (!row) throw E.LISTA_PRECIOS_NO_ENCONTRADA(`La lista de precios ${codigo} no tiene versión ${version}.`);
      return (await withPrices([row]))[0]!;
    },

    /** The version of `codigo` in force on `fecha` (default today in Montevideo). */
    async inForce(actor: Actor, idEmpresa: number | undefined, codigo: string, fecha = uyToday()): Promise<PriceBookVersionView> {
      const companyId = companyOf(actor, idEmpresa, 'lectura');
      const found = await versionInForce(companyId, codigo, fecha);
      if (!found) throw E.LISTA_PRECIOS_NO_ENCONTRADA(`La lista de precios ${codigo} no tiene una versión vigente el ${fecha}.`);
      return found;
    },

    /**
     * Brings the end of a version forward (or ends an open one) so a new version can follow. The
     * prices never change; the new end is today or later, so no day already billed changes its prices.
     */
    async close(actor: Actor, idEmpresa: number | undefined, codigo: string, version: number, vigenteHasta: string): Promise<PriceBookVersionView> {
      const companyId = companyOf(actor, idEmpresa, 'administrador');
      const row = await db.transaction(async (tx) => {
        await repo.lockCode(tx, companyId, codigo);
        const v = await repo.findVersion(tx, companyId, codigo, version);
        if (!v) throw E.LISTA_PRECIOS_NO_ENCONTRADA(`La lista de precios ${codigo} no tiene versión ${version}.`);
        const today = uyToday();
        if (vigenteHasta < today || vigenteHasta < v.vigenteDesde || (v.vigenteHasta !== null && v.vigenteHasta < today)) {
          throw E.LISTA_PRECIOS_VERSION_CERRADA(`La versión ${version} (${v.vigenteDesde} a ${v.vigenteHasta ?? 'sin fin'}) no se puede terminar el ${vigenteHasta}: el nuevo fin debe ser hoy (${today}) o después, y no anterior a su inicio.`);
        }
        if (v.vigenteHasta !== null && vigenteHasta > v.vigenteHasta) {
          throw E.LISTA_PRECIOS_VERSION_CERRADA(`La versión ${version} ya termina el ${v.vigenteHasta}: cerrar solo adelanta el fin (una versión no se extiende; cree otra).`);
        }
        return repo.setEnd(tx, v.id, vigenteHasta);
      });
      return (await withPrices([row]))[0]!;
    },

    /** For contracts: a version by id within the company, or undefined. */
    async versionById(companyId: number, id: number): Promise<PriceBookVersionView | undefined> {
      const row = await repo.findVersionById(db, id);
      return row && row.companyId === companyId ? (await withPrices([row]))[0] : undefined;
    },

    /** For contracts that follow the current version: the one in force on `fecha`, or undefined. */
    versionInForce,
  };
}

export type PriceBooksService = ReturnType<typeof createPriceBooksService>;
