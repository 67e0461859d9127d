/**
 * The period's CFE (issue 34 point 4), pure: rated lines (rating.ts) plus what the contract says
 * (customer, CFE type, emission point, period, currency) give the body `POST /api/v1/comprobante/emitir`
 * takes (spec 2.1), to hand to the emission service with `periodIdempotencyKey` as Idempotency-Key.
 *
 * Lines (B-C24 holds on each: MontoItem = Cantidad × PrecioUnitario, rounded to 2 decimals):
 * - one line per metric and dimension price: `estandar` and `volumen` as units × the unit price,
 *   `paquete` as started packages × the package price;
 * - `escalonado`: one line per tier reached, since no single 6-decimal unit price reproduces a
 *   graduated amount for every quantity; the description names the tier;
 * - a line whose unit price is 0 is an entrega gratuita, IndFact 5 (BRIEF 2.6);
 * - every minimum shortfall is its own line, quantity 1 at the shortfall;
 * - lines with quantity 0 sell nothing and are left out (emission refuses them).
 * Totals are left to emission (spec 2.3 rule 2); the period goes in PeriodoDesde/PeriodoHasta and
 * in the adenda, with the price book version and any usage no price covered.
 */
import { Decimal } from 'decimal.js';
import type { PriceBookVersion } from './price-books.model.js';
import type { MinimumLine, RatedLine, RatingResult } from './rating.js';

/** IndFact of an entrega gratuita (BRIEF 2.6): PrecioUnitario and MontoItem 0. */
const FREE = 5;
const NAME_MAX = 80; // DGI NomItemType
const DESCRIPTION_MAX = 1000; // the emitir schema's descripcionItem

export interface PeriodCfeInput {
  idEmpresa: number;
  codComercio: string;
  codTerminal: string;
  tipoCfe: number;
  /** The contract's customer (spec 2.1 receptor): idCliente of the same company, or documento. */
  receptor?: { idCliente?: number; documento?: string };
  fechaEmision: string;
  periodo: { desde: string; hasta: string };
  formaPago?: 1 | 2;
  fechaVencimiento?: string;
  /** Rate of the period's last day when the book's tipoCambio.modo is `cierrePeriodo` (the caller resolves it, e.g. currencies.findRate). */
  tipoCambioCierre?: string;
  /** Text naming the contract in the adenda (e.g. "Contrato 42 (ext-abc)"). */
  contrato?: string;
}

export interface PeriodCfeLine {
  numeroLineaDetalle: number;
  indicadorFacturacion: number;
  nombreItem: string;
  descripcionItem: string;
  cantidad: string;
  unidadMedida?: string;
  precioUnitario: string;
  montoItem: string;
}

/** The emitir body (spec 2.1) as this builder fills it; a subset of issued-cfe's issueCfeBody input. */
export interface PeriodCfeBody {
  idEmpresa: number;
  codComercio: string;
  codTerminal: string;
  cfe: {
    idDoc: { tipoCfe: number; fechaEmision: string; periodoDesde: string; periodoHasta: string; formaPago?: 1 | 2; fechaVencimiento?: string };
    receptor?: { idCliente?: number; documento?: string };
    totales?: { tipoMoneda: string; tipoCambio?: string };
    detalles: PeriodCfeLine[];
    adenda: string;
  };
}

export class PeriodCfeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PeriodCfeError';
  }
}

/** Idempotency-Key of a contract period's CFE: a retry, a crash or a second worker issue it once (issue 34 point 4). */
export function periodIdempotencyKey(contractId: number | string, periodStart: string): string {
  return `contrato-${contractId}-periodo-${periodStart}`;
}

const cut = (s: string, max: number): string => ([...s].length <= max ? s : [...s].slice(0, max - 1).join('') + '…');
const isZero = (s: string): boolean => new Decimal(s).isZero();
const dims = (d: Record<string, string> | undefined): string => Object.entries(d ?? {}).map(([k, v]) => `${k}=${v}`).join(', ');
const about = (metrica: string, d: Record<string, string> | undefined): string => (dims(d) ? `${metrica} (${dims(d)})` : metrica);

type Draft = Omit<PeriodCfeLine, 'numeroLineaDetalle'>;

function priceLines(l: RatedLine): Draft[] {
  const base = { nombreItem: l.nombreItem, ...(l.unidadMedida ? { unidadMedida: l.unidadMedida } : {}) };
  const measured = `medido ${l.cantidadMedida}`;
  const line = (cantidad: string, precioUnitario: string, montoItem: string, detail: string): Draft => ({
    ...base, indicadorFacturacion: isZero(precioUnitario) ? FREE : l.indicadorFacturacion,
    descripcionItem: cut(`${about(l.metrica, l.dimensiones)}: ${detail}`, DESCRIPTION_MAX), cantidad, precioUnitario, montoItem,
  });
  switch (l.modelo) {
    case 'escalonado':
      return l.detalle.map((p, i) => line(p.cantidad, p.precioUnitario, p.monto, `tramo ${i + 1} (${p.desde} a ${p.hasta ?? 'sin límite'}) de ${l.cantidad}; ${measured}`));
    case 'paquete':
      return [line(l.paquetes!, l.precioUnitario!, l.monto, `${l.cantidad} unidades en ${l.paquetes} paquetes iniciados; ${measured}`)];
    case 'volumen': {
      const p = l.detalle[0]!;
      return [line(l.cantidad, p.precioUnitario, l.monto, `tramo por volumen ${p.desde} a ${p.hasta ?? 'sin límite'}; ${measured}`)];
    }
    case 'estandar':
      return [line(l.cantidad, l.precioUnitario!, l.monto, measured)];
  }
}

function minimumLine(m: MinimumLine): Draft {
  const what = m.alcance === 'periodo' ? 'Mínimo del período' : `Mínimo de ${about(m.metrica!, m.dimensiones)}`;
  return {
    indicadorFacturacion: m.indicadorFacturacion,
    nombreItem: m.alcance === 'periodo' ? m.nombreItem : cut(`Mínimo: ${m.nombreItem}`, NAME_MAX),
    descripcionItem: `${what} ${m.minimo}; facturado ${m.facturado}; diferencia ${m.monto}`,
    cantidad: '1', ...(m.unidadMedida ? { unidadMedida: m.unidadMedida } : {}), precioUnitario: m.monto, montoItem: m.monto,
  };
}

function totalesOf(moneda: string, tipoCambio: PriceBookVersion['tipoCambio'], input: PeriodCfeInput): PeriodCfeBody['cfe']['totales'] {
  if (moneda === 'UYU') return undefined;
  switch (tipoCambio.modo) {
    case 'emision':
      return { tipoMoneda: moneda }; // spec 2.3 rule 7: emission resolves it for fechaEmision
    case 'fijo':
      return { tipoMoneda: moneda, tipoCambio: tipoCambio.valor! };
    case 'cierrePeriodo':
      if (!input.tipoCambioCierre) throw new PeriodCfeError(`La lista de precios toma el tipo de cambio del cierre del período (${input.periodo.hasta}) y no se indicó tipoCambioCierre.`);
      return { tipoMoneda: moneda, tipoCambio: input.tipoCambioCierre };
  }
}

/**
 * The emitir body of one contract period, or undefined when nothing is billable (no usage with a
 * quantity and no minimum): no CFE is issued for an empty period.
 */
export function buildPeriodCfe(rating: RatingResult, version: Pick<PriceBookVersion, 'codigo' | 'version' | 'tipoCambio'>, input: PeriodCfeInput): PeriodCfeBody | undefined {
  const drafts = [
    ...rating.lineas.flatMap(priceLines),
    ...rating.minimos.map(minimumLine),
  ].filter((d) => !isZero(d.cantidad));
  if (!drafts.length) return undefined;
  const unpriced = rating.sinPrecio.map((u) => `${about(u.metrica, u.dimensiones)} ${u.cantidad}`);
  const adenda = [
    `Período facturado: ${input.periodo.desde} a ${input.periodo.hasta}.`,
    input.contrato ? `${input.contrato}.` : '',
    `Lista de precios ${version.codigo}${version.version ? ` versión ${version.version}` : ''}.`,
    unpriced.length ? `Consumo sin precio en la lista (no facturado): ${unpriced.join('; ')}.` : '',
  ].filter(Boolean).join('\n');
  const totales = totalesOf(rating.moneda, version.tipoCambio, input);
  return {
    idEmpresa: input.idEmpresa,
    codComercio: input.codComercio,
    codTerminal: input.codTerminal,
    cfe: {
      idDoc: {
        tipoCfe: input.tipoCfe, fechaEmision: input.fechaEmision, periodoDesde: input.periodo.desde, periodoHasta: input.periodo.hasta,
        ...(input.formaPago ? { formaPago: input.formaPago } : {}), ...(input.fechaVencimiento ? { fechaVencimiento: input.fechaVencimiento } : {}),
      },
      ...(input.receptor ? { receptor: input.receptor } : {}),
      ...(totales ? { totales } : {}),
      detalles: drafts.map((d, i) => ({ numeroLineaDetalle: i + 1, ...d })),
      adenda: cut(adenda, 10_000),
    },
  };
}
