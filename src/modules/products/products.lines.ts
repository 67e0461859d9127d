/**
 * The emission-line check (spec 2.1 idVariante / datosTrazabilidad, spec 2.4 rule 3): every line
 * with idVariante must name a variant of the same company, and a product that requires a lot,
 * a serial or both must carry those ids, each belonging to that variant. Errors are 422 and name the line.
 */
import { Decimal } from 'decimal.js';
import type { Db } from '../../platform/db/client.js';
import { productErrors as e } from './products.errors.js';
import * as repo from './products.repository.js';

/** numeric(24,10) comes back padded ("250.7500000000"): answer the plain decimal ("250.75"). */
export const priceOut = (v: string | null) => (v === null ? null : new Decimal(v).toFixed());

export interface ProductLine {
  idVariante: number;
  datosTrazabilidad?: { id_lote?: number | null; id_serie?: number | null } | null;
}

export interface CheckedLine {
  idVariante: number;
  idProducto: number;
  codigo: string;
  nombre: string;
  /** Variant's DGI UniMed, else the product's. */
  unidadMedida: string | null;
  precioUnitario: string | null;
  indicadorFacturacion: number | null;
  descripcion: string | null;
  lote: { id: number; codigo: string; fechaVencimiento: string | null } | null;
  serie: { id: number; numeroSerie: string } | null;
}

/**
 * Pass the pool, not a transaction: the three reads run in parallel, which one transaction's
 * connection cannot do (pg 8 queues them and warns that this goes away in pg 9).
 */
export async function checkLines(db: Db, companyId: number, lines: ProductLine[]): Promise<CheckedLine[]> {
  if (lines.length === 0) return [];
  const variantIds = [...new Set(lines.map((l) => l.idVariante))];
  const lotIds = [...new Set(lines.map((l) => l.datosTrazabilidad?.id_lote).filter((v): v is number => v != null))];
  const serialIds = [...new Set(lines.map((l) => l.datosTrazabilidad?.id_serie).filter((v): v is number => v != null))];
  const [variants, lots, serials] = await Promise.all([repo.variantsOfCompany(db, companyId, variantIds), repo.lotsByIds(db, lotIds), repo.serialsByIds(db, serialIds)]);
  const variantById = new Map(variants.map((v) => [v.variant.id, v]));
  const lotById = new Map(lots.map((l) => [l.id, l]));
  const serialById = new Map(serials.map((s) => [s.id, s]));

  return lines.map((line, i) => {
    const at = `Línea ${i + 1}`;
    const found = variantById.get(line.idVariante);
    if (!found) throw e.VARIANTE_NO_ENCONTRADA(`${at}: la variante ${line.idVariante} no existe en la empresa.`, { linea: i + 1 });
    const { variant, product } = found;
    if (!variant.enabled || !product.enabled) throw e.VARIANTE_DESHABILITADA(`${at}: la variante ${variant.codigo} o su producto está deshabilitado.`, { linea: i + 1 });
    const idLote = line.datosTrazabilidad?.id_lote ?? null;
    const idSerie = line.datosTrazabilidad?.id_serie ?? null;
    const missing = [product.requiresLot && idLote === null ? 'id_lote' : null, product.requiresSerial && idSerie === null ? 'id_serie' : null].filter(Boolean);
    if (missing.length) throw e.TRAZABILIDAD_REQUERIDA(`${at}: el producto ${product.codigo} requiere datosTrazabilidad con ${missing.join(' e ')}.`, { linea: i + 1, faltan: missing });
    // Ids sent for a product without the flag are still checked: a wrong id is never silently kept.
    const lot = idLote === null ? null : lotById.get(idLote);
    if (lot === undefined || (lot && lot.variantId !== variant.id)) throw e.LOTE_INVALIDO(`${at}: el lote ${idLote} no pertenece a la variante ${variant.codigo}.`, { linea: i + 1 });
    const serial = idSerie === null ? null : serialById.get(idSerie);
    if (serial === undefined || (serial && serial.variantId !== variant.id)) throw e.SERIE_INVALIDA(`${at}: la serie ${idSerie} no pertenece a la variante ${variant.codigo}.`, { linea: i + 1 });
    if (serial && lot && serial.lotId !== null && serial.lotId !== lot.id) throw e.SERIE_INVALIDA(`${at}: la serie ${serial.numeroSerie} no pertenece al lote ${lot.codigo}.`, { linea: i + 1 });
    return {
      idVariante: variant.id, idProducto: product.id, codigo: variant.codigo, nombre: variant.nombre,
      unidadMedida: variant.unidadMedida ?? product.unidadMedida, precioUnitario: priceOut(variant.precioUnitario),
      indicadorFacturacion: product.indicadorFacturacion, descripcion: product.descripcion,
      lote: lot ? { id: lot.id, codigo: lot.codigo, fechaVencimiento: lot.fechaVencimiento } : null,
      serie: serial ? { id: serial.id, numeroSerie: serial.numeroSerie } : null,
    };
  });
}
