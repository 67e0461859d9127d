/**
 * Products and their variants (the `idVariante` of spec 2.1), with lots and serials for the
 * traceability of spec 2.4 rule 3. No stock is kept: lots and serials are only registered.
 * Emission calls `checkLines` (products.lines.ts) while preparing a CFE, before its transaction.
 */
import { Decimal } from 'decimal.js';
import { PG_UNIQUE_VIOLATION, pgErrorCode, type Db } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { productErrors as e } from './products.errors.js';
import { checkLines, priceOut } from './products.lines.js';
import * as repo from './products.repository.js';
import { productLots, products, productVariants } from './products.tables.js';
import { companyOfIds } from '../../platform/db/company-of.js';

type Role = 'lectura' | 'emisor';

const productView = (r: repo.ProductRow) => ({
  id: r.id, idEmpresa: r.companyId, codigo: r.codigo, nombre: r.nombre, descripcion: r.descripcion, unidadMedida: r.unidadMedida,
  indicadorFacturacion: r.indicadorFacturacion, requiereLote: r.requiresLot, requiereSerie: r.requiresSerial, habilitado: r.enabled,
});
const variantView = (v: repo.VariantRow, p: repo.ProductRow) => ({
  id: v.id, idEmpresa: v.companyId, idProducto: v.productId, codigo: v.codigo, nombre: v.nombre, precioUnitario: priceOut(v.precioUnitario),
  unidadMedida: v.unidadMedida ?? p.unidadMedida, unidadMedidaPropia: v.unidadMedida, habilitado: v.enabled,
});
const lotView = (l: repo.LotRow) => ({ id: l.id, idVariante: l.variantId, codigo: l.codigo, fechaVencimiento: l.fechaVencimiento });
const serialView = (s: repo.SerialRow) => ({ id: s.id, idVariante: s.variantId, numeroSerie: s.numeroSerie, idLote: s.lotId });

async function unique<T>(fn: () => Promise<T>, dup: () => Error): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (pgErrorCode(err) === PG_UNIQUE_VIOLATION) throw dup();
    throw err;
  }
}

/** numeric(24,10): at most 14 integer digits and 10 decimals, never negative. */
function normalizePrice(v: string | null | undefined) {
  if (v === undefined || v === null) return v;
  let d: Decimal;
  try {
    d = new Decimal(v.trim());
  } catch {
    throw e.PRECIO_INVALIDO();
  }
  if (!d.isFinite() || d.isNegative() || d.decimalPlaces() > 10 || d.abs().gte('1e14')) throw e.PRECIO_INVALIDO();
  return d.toFixed();
}

interface ProductInput {
  codigo: string; nombre: string; descripcion?: string | null; unidadMedida?: string | null; indicadorFacturacion?: number | null;
  requiereLote: boolean; requiereSerie: boolean; habilitado: boolean;
}
interface VariantInput { codigo: string; nombre: string; precioUnitario?: string | null; unidadMedida?: string | null; habilitado: boolean }

function productColumns(p: Partial<ProductInput>) {
  return { codigo: p.codigo, nombre: p.nombre, descripcion: p.descripcion, unidadMedida: p.unidadMedida, indicadorFacturacion: p.indicadorFacturacion, requiresLot: p.requiereLote, requiresSerial: p.requiereSerie, enabled: p.habilitado };
}

export function createProductsService(deps: { db: Db }) {
  const { db } = deps;

  async function visibleProduct(actor: Actor, id: number, role: Role) {
    const row = await repo.findProduct(db, id);
    if (!row) throw e.PRODUCTO_NO_ENCONTRADO();
    assertCompanyRole(actor, row.companyId, role, () => e.PRODUCTO_NO_ENCONTRADO());
    return row;
  }
  async function visibleVariant(actor: Actor, id: number, role: Role) {
    const row = await repo.findVariant(db, id);
    if (!row) throw e.VARIANTE_NO_ENCONTRADA();
    assertCompanyRole(actor, row.variant.companyId, role, () => e.VARIANTE_NO_ENCONTRADA());
    return row;
  }

  return {
    /** id → company id of existing rows (issue 28 point 5: platform/http/company-refs.ts resolves body ids through it). */
    companyOfProducts: (ids: readonly number[]) => companyOfIds(db, products, ids),
    companyOfVariants: (ids: readonly number[]) => companyOfIds(db, productVariants, ids),
    companyOfLots: (ids: readonly number[]) => companyOfIds(db, productLots, ids),
    async createProduct(actor: Actor, input: { idEmpresa: number } & ProductInput) {
      assertCompanyRole(actor, input.idEmpresa, 'emisor');
      return unique(async () => productView(await repo.insertProduct(db, { ...productColumns(input), codigo: input.codigo, nombre: input.nombre, companyId: input.idEmpresa })), () => e.PRODUCTO_DUPLICADO());
    },
    async editProduct(actor: Actor, input: { idProducto: number } & Partial<ProductInput>) {
      await visibleProduct(actor, input.idProducto, 'emisor');
      return unique(async () => productView(await repo.updateProduct(db, input.idProducto, productColumns(input))), () => e.PRODUCTO_DUPLICADO());
    },
    getProduct: async (actor: Actor, id: number) => productView(await visibleProduct(actor, id, 'lectura')),
    async listProducts(actor: Actor, f: { idEmpresa: number; nombre?: string; codigo?: string; habilitado?: boolean }, paging: Paging) {
      assertCompanyRole(actor, f.idEmpresa, 'lectura');
      const { rows, total } = await repo.listProducts(db, { companyId: f.idEmpresa, nombre: f.nombre, codigo: f.codigo, enabled: f.habilitado }, paging);
      return { data: rows.map(productView), total };
    },

    async createVariant(actor: Actor, input: { idProducto: number } & VariantInput) {
      const product = await visibleProduct(actor, input.idProducto, 'emisor');
      const values = { companyId: product.companyId, productId: product.id, codigo: input.codigo, nombre: input.nombre, precioUnitario: normalizePrice(input.precioUnitario), unidadMedida: input.unidadMedida, enabled: input.habilitado };
      return unique(async () => variantView(await repo.insertVariant(db, values), product), () => e.VARIANTE_DUPLICADA());
    },
    async editVariant(actor: Actor, input: { idVariante: number } & Partial<VariantInput>) {
      const { product } = await visibleVariant(actor, input.idVariante, 'emisor');
      const values = { codigo: input.codigo, nombre: input.nombre, precioUnitario: normalizePrice(input.precioUnitario), unidadMedida: input.unidadMedida, enabled: input.habilitado };
      return unique(async () => variantView(await repo.updateVariant(db, input.idVariante, values), product), () => e.VARIANTE_DUPLICADA());
    },
    async getVariant(actor: Actor, id: number) {
      const { variant, product } = await visibleVariant(actor, id, 'lectura');
      return variantView(variant, product);
    },
    async listVariants(actor: Actor, productId: number, paging: Paging) {
      const product = await visibleProduct(actor, productId, 'lectura');
      const { rows, total } = await repo.listVariants(db, product.id, paging);
      return { data: rows.map((v) => variantView(v, product)), total };
    },

    async addLot(actor: Actor, variantId: number, input: { codigo: string; fechaVencimiento?: string | null }) {
      const { variant } = await visibleVariant(actor, variantId, 'emisor');
      return unique(async () => lotView(await repo.insertLot(db, { companyId: variant.companyId, variantId, codigo: input.codigo, fechaVencimiento: input.fechaVencimiento ?? null })), () => e.LOTE_DUPLICADO());
    },
    async listLots(actor: Actor, variantId: number, q: string | undefined, paging: Paging) {
      await visibleVariant(actor, variantId, 'lectura');
      const { rows, total } = await repo.listLots(db, variantId, q, paging);
      return { data: rows.map(lotView), total };
    },
    async addSerial(actor: Actor, variantId: number, input: { numeroSerie: string; idLote?: number | null }) {
      const { variant } = await visibleVariant(actor, variantId, 'emisor');
      if (input.idLote != null) {
        const [lot] = await repo.lotsByIds(db, [input.idLote]);
        if (!lot || lot.variantId !== variantId) throw e.LOTE_INVALIDO(`El lote ${input.idLote} no pertenece a la variante ${variant.codigo}.`);
      }
      return unique(async () => serialView(await repo.insertSerial(db, { companyId: variant.companyId, variantId, numeroSerie: input.numeroSerie, lotId: input.idLote ?? null })), () => e.SERIE_DUPLICADA());
    },
    async listSerials(actor: Actor, variantId: number, q: string | undefined, paging: Paging) {
      await visibleVariant(actor, variantId, 'lectura');
      const { rows, total } = await repo.listSerials(db, variantId, q, paging);
      return { data: rows.map(serialView), total };
    },

    /** For emission (spec 2.4 rule 3), inside the caller's transaction. See products.lines.ts. */
    checkLines,
  };
}

export type ProductsService = ReturnType<typeof createProductsService>;
