/**
 * The rating engine (issue 34 point 2): a period's usage against one price book version gives the
 * lines to bill. Pure: no database, no clock.
 *
 * Matching. A usage row is billed by the price of its metric whose `dimensiones` all equal the row's
 * values (exact match, the most specific one when several match); else by the metric's price without
 * dimensiones (the fallback); else it is reported in `sinPrecio` (never dropped in silence). Rows
 * billed by the same price are summed first, so tiers apply to the price's whole quantity.
 *
 * Rounding (DGI limits, BRIEF 2.4/2.5: Cantidad 3 decimals, PrecioUnitario 6, amounts 2; all half-up):
 * 1. The measured quantity is rounded to 3 decimals once; that billed quantity is what is priced,
 *    so every CFE line reproduces MontoItem = Cantidad × PrecioUnitario (B-C24).
 * 2. Each priced piece (a tier of `escalonado`, the whole of `estandar`/`volumen`, the packages of
 *    `paquete`) is rounded to 2 decimals on its own; a line's amount is the sum of its pieces.
 * 3. A minimum's shortfall is minimum − amount, exact in 2 decimals.
 * Unit prices keep the up to 6 decimals the book was written with; they are never rounded.
 */
import { Decimal } from 'decimal.js';
import { AMOUNT_DECIMALS, QUANTITY_DECIMALS, type FiscalData, type Price, type PriceBookVersion, type PriceModel, type Tier } from './price-books.model.js';

/** 50 significant digits: a 17-digit quantity times a 17-digit price is exact before rounding. */
const Dec = Decimal.clone({ precision: 50, rounding: Decimal.ROUND_HALF_UP });
type Dec = InstanceType<typeof Dec>;

/** One row of aggregated usage: a metric, the dimension values it was grouped by, a decimal quantity. */
export interface UsageRow {
  metrica: string;
  dimensiones?: Record<string, string>;
  cantidad: string;
}

/** A priced piece of a line: one tier of `escalonado`, the reached tier of `volumen`, the packages of `paquete`, or the units of `estandar`. */
export interface RatedPiece {
  desde: string | null;
  hasta: string | null;
  /** Units of this piece (packages for `paquete`). */
  cantidad: string;
  precioUnitario: string;
  monto: string;
}

export interface RatedLine extends FiscalData {
  tipo: 'precio';
  metrica: string;
  dimensiones: Record<string, string>;
  modelo: PriceModel;
  /** Sum of the usage rows billed by this price, as measured. */
  cantidadMedida: string;
  /** cantidadMedida rounded to 3 decimals: what is priced and printed. */
  cantidad: string;
  /** The one unit price of the line when there is one (estandar, volumen, paquete: per package); null for escalonado. */
  precioUnitario: string | null;
  /** `paquete`: number of started packages. */
  paquetes?: string;
  monto: string;
  detalle: RatedPiece[];
}

export interface MinimumLine extends FiscalData {
  tipo: 'minimo';
  /** `precio`: the minimum of one price (metrica/dimensiones set); `periodo`: the book's minimum commitment. */
  alcance: 'precio' | 'periodo';
  metrica?: string;
  dimensiones?: Record<string, string>;
  minimo: string;
  /** What was billed against the minimum. */
  facturado: string;
  /** The shortfall billed by this line: minimo − facturado. */
  monto: string;
}

export interface RatingResult {
  moneda: string;
  lineas: RatedLine[];
  minimos: MinimumLine[];
  /** Usage rows no price of the book covers: not billed, reported. */
  sinPrecio: UsageRow[];
  /** Σ lineas + Σ minimos, 2 decimals. */
  total: string;
}

const ZERO = new Dec(0);
const q3 = (x: Dec): Dec => x.toDecimalPlaces(QUANTITY_DECIMALS, Decimal.ROUND_HALF_UP);
const m2 = (x: Dec): Dec => x.toDecimalPlaces(AMOUNT_DECIMALS, Decimal.ROUND_HALF_UP);
const amount = (x: Dec): string => x.toFixed(AMOUNT_DECIMALS);
const plain = (x: Dec): string => x.toFixed();

/** The price that bills `row`: the most specific exact dimension match, else the fallback, else none. */
export function priceFor(prices: readonly Price[], row: UsageRow): Price | undefined {
  let best: Price | undefined;
  let bestKeys = -1;
  for (const p of prices) {
    if (p.metrica !== row.metrica) continue;
    const dims = Object.entries(p.dimensiones ?? {});
    if (!dims.every(([k, v]) => row.dimensiones?.[k] === v)) continue;
    if (dims.length > bestKeys) {
      best = p;
      bestKeys = dims.length;
    }
  }
  return best;
}

/**
 * The dimension keys the prices of `metrica` are written with (sorted): the keys its usage must be
 * grouped by to be rated (issue 40 point 1). None: the metric is rated on its period aggregate.
 */
export function pricedKeys(prices: readonly Price[], metrica: string): string[] {
  const keys = new Set<string>();
  for (const p of prices) if (p.metrica === metrica) for (const k of Object.keys(p.dimensiones ?? {})) keys.add(k);
  return [...keys].sort();
}

function tierPiece(t: Tier, units: Dec): RatedPiece {
  return { desde: t.desde, hasta: t.hasta, cantidad: plain(units), precioUnitario: t.precioUnitario, monto: amount(m2(units.times(t.precioUnitario))) };
}

/** Units of tier (desde, hasta] within a total of q. */
function unitsInTier(t: Tier, q: Dec): Dec {
  const top = t.hasta === null ? q : Dec.min(q, t.hasta);
  return Dec.max(ZERO, top.minus(t.desde));
}

/** The tier whose (desde, hasta] holds q; q = 0 falls in the first. */
function tierReached(tiers: readonly Tier[], q: Dec): Tier {
  return tiers.find((t) => t.hasta === null || q.lte(t.hasta)) ?? tiers[tiers.length - 1]!;
}

/** The priced pieces of one price for a billed quantity q (3 decimals). */
export function pieces(price: Price, q: Dec | string): { detalle: RatedPiece[]; precioUnitario: string | null; paquetes?: string } {
  const qty = new Dec(q);
  switch (price.modelo) {
    case 'estandar': {
      const p = price.precioUnitario!;
      return { detalle: [{ desde: null, hasta: null, cantidad: plain(qty), precioUnitario: p, monto: amount(m2(qty.times(p))) }], precioUnitario: p };
    }
    case 'escalonado': {
      const detalle = price.tramos!.map((t) => tierPiece(t, unitsInTier(t, qty))).filter((d) => !new Dec(d.cantidad).isZero());
      return { detalle, precioUnitario: null };
    }
    case 'volumen': {
      const t = tierReached(price.tramos!, qty);
      return { detalle: [tierPiece(t, qty)], precioUnitario: t.precioUnitario };
    }
    case 'paquete': {
      const { tamano, precio } = price.paquete!;
      // A started package is a whole package: 1001 units in packages of 1000 are 2 packages.
      const packages = qty.div(tamano).ceil();
      return { detalle: [{ desde: null, hasta: null, cantidad: plain(packages), precioUnitario: precio, monto: amount(m2(packages.times(precio))) }], precioUnitario: precio, paquetes: plain(packages) };
    }
  }
}

const sum = (xs: readonly { monto: string }[]): Dec => xs.reduce((acc, x) => acc.plus(x.monto), ZERO);
const keyOf = (p: Price): string => `${p.metrica}\u0000${JSON.stringify(Object.entries(p.dimensiones ?? {}).sort())}`;

/**
 * Rates a period's usage against `version`. `usage` may hold several rows per metric (one per
 * group of dimension values); quantities are decimal strings ≥ 0 (a negative one throws RangeError).
 */
export function ratePeriod(version: Pick<PriceBookVersion, 'moneda' | 'precios' | 'minimoPeriodo'>, usage: readonly UsageRow[]): RatingResult {
  const byPrice = new Map<string, { price: Price; qty: Dec }>();
  const sinPrecio: UsageRow[] = [];
  for (const row of usage) {
    const price = priceFor(version.precios, row);
    if (!price) {
      sinPrecio.push(row);
      continue;
    }
    const k = keyOf(price);
    // Aggregated usage is never negative; a negative row would bill a credit nobody asked for.
    if (new Dec(row.cantidad).isNegative()) throw new RangeError(`Cantidad negativa para ${row.metrica}: ${row.cantidad}`);
    const acc = byPrice.get(k) ?? { price, qty: ZERO };
    acc.qty = acc.qty.plus(row.cantidad);
    byPrice.set(k, acc);
  }
  const lineas: RatedLine[] = [];
  const minimos: MinimumLine[] = [];
  // In the book's order, so the CFE lines follow the order the company wrote its prices in.
  for (const price of version.precios) {
    const hit = byPrice.get(keyOf(price));
    const fiscal = { indicadorFacturacion: price.indicadorFacturacion, nombreItem: price.nombreItem, ...(price.unidadMedida ? { unidadMedida: price.unidadMedida } : {}) };
    const dimensiones = price.dimensiones ?? {};
    let billed = ZERO;
    if (hit) {
      const q = q3(hit.qty);
      const p = pieces(price, q);
      billed = sum(p.detalle);
      lineas.push({ tipo: 'precio', metrica: price.metrica, dimensiones, modelo: price.modelo, cantidadMedida: plain(hit.qty), cantidad: plain(q), ...p, monto: amount(billed), ...fiscal });
    }
    if (price.minimo !== undefined && billed.lt(price.minimo)) {
      minimos.push({ tipo: 'minimo', alcance: 'precio', metrica: price.metrica, dimensiones, minimo: price.minimo, facturado: amount(billed), monto: amount(new Dec(price.minimo).minus(billed)), ...fiscal });
    }
  }
  const subtotal = sum(lineas).plus(sum(minimos));
  const book = version.minimoPeriodo;
  if (book && subtotal.lt(book.monto)) {
    const { monto, ...fiscal } = book;
    minimos.push({ tipo: 'minimo', alcance: 'periodo', minimo: monto, facturado: amount(subtotal), monto: amount(new Dec(monto).minus(subtotal)), ...fiscal });
  }
  return { moneda: version.moneda, lineas, minimos, sinPrecio, total: amount(sum(lineas).plus(sum(minimos))) };
}
