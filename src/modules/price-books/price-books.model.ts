/**
 * A price book version as the rating engine, the period CFE builder and the HTTP layer see it
 * (issue 34 point 1). Every amount, price and quantity is a decimal string; never a float.
 * Field names are the API's (Spanish), as stored and answered.
 */

export const priceModels = ['estandar', 'escalonado', 'volumen', 'paquete'] as const;
export type PriceModel = (typeof priceModels)[number];

/**
 * How the exchange rate of a foreign-currency CFE is taken: `emision` leaves it to emission (spec
 * 2.3 rule 7: company table, then the central bank, for fechaEmision); `cierrePeriodo` is the rate
 * of the period's last day, resolved by the caller; `fijo` is `valor`, as written in the book.
 */
export const exchangeRateModes = ['emision', 'cierrePeriodo', 'fijo'] as const;
export type ExchangeRateMode = (typeof exchangeRateModes)[number];

/**
 * A tier covers the units in (desde, hasta]; the first starts at 0, each next one where the previous
 * ends, and only the last is open (hasta null). `escalonado` prices each unit at its tier's price;
 * `volumen` prices every unit at the price of the tier the total falls in (a total equal to a
 * tier's hasta stays in that tier).
 */
export interface Tier {
  desde: string;
  hasta: string | null;
  precioUnitario: string;
}

/** The CFE line data of a price (BRIEF 2.5/2.6): IndFact, NomItem, UniMed. */
export interface FiscalData {
  indicadorFacturacion: number;
  nombreItem: string;
  unidadMedida?: string;
}

export interface Price extends FiscalData {
  /** The metric's `code` (issue 33); no id: metrics are matched by code. */
  metrica: string;
  /** Exact-match dimension values (`{ region: 'norte' }`); absent: the metric's fallback price. */
  dimensiones?: Record<string, string>;
  modelo: PriceModel;
  /** `estandar`: price per unit. */
  precioUnitario?: string;
  /** `escalonado` and `volumen`. */
  tramos?: Tier[];
  /** `paquete`: every started package of `tamano` units costs `precio`. */
  paquete?: { tamano: string; precio: string };
  /** Minimum charge of this price per period: a shortfall is its own line. */
  minimo?: string;
}

/** The whole book's minimum per period (a minimum commitment), billed on its own line. */
export interface PeriodMinimum extends FiscalData {
  monto: string;
}

export interface PriceBookVersion {
  id?: number;
  codigo: string;
  version?: number;
  nombre: string;
  moneda: string;
  tipoCambio: { modo: ExchangeRateMode; valor?: string };
  vigenteDesde: string;
  vigenteHasta: string | null;
  minimoPeriodo?: PeriodMinimum;
  precios: Price[];
}

/**
 * IndFact values a price may carry (BRIEF 2.6). Left out: 4 (otra tasa: emission cannot compute its
 * totals without sent totales), 5 (free delivery: the builder uses it by itself for 0-priced lines),
 * 7, 8, 9 (negative, remito, resguardo lines) and the e-Boleta ones (13, 14, 15, 17: a purchase
 * document, never a sale of usage).
 */
export const PRICE_IND_FACT = [1, 2, 3, 6, 10, 11, 12, 16] as const;

/** DGI limits (DGITypes.xsd): Cantidad 3 decimals, PrecioUnitario 6, amounts 2 (BRIEF 2.4/2.5). */
export const QUANTITY_DECIMALS = 3;
export const UNIT_PRICE_DECIMALS = 6;
export const AMOUNT_DECIMALS = 2;
