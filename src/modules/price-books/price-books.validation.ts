/**
 * The rules of a price book body that zod's field shapes cannot say (issue 34 point 1): the fields
 * each model needs, contiguous tiers, one set of dimension keys per metric, no duplicate price,
 * validity order and the exchange-rate mode of the currency. Each broken rule is its own 400 code
 * naming the price by its position (`precios[2]`).
 */
import { Decimal } from 'decimal.js';
import { priceBookErrors as E } from './price-books.errors.js';
import type { CreatePriceBookBody } from './price-books.schemas.js';

type PriceInput = CreatePriceBookBody['precios'][number];

const MODEL_FIELDS = {
  estandar: 'precioUnitario',
  escalonado: 'tramos',
  volumen: 'tramos',
  paquete: 'paquete',
} as const;
const PRICE_FIELDS = ['precioUnitario', 'tramos', 'paquete'] as const;
const MAX_DIMENSION_KEYS = 5;

function checkModel(p: PriceInput, at: string): void {
  const needed = MODEL_FIELDS[p.modelo];
  if (p[needed] === undefined) throw E.PRECIO_MODELO_INVALIDO(`${at}: el modelo ${p.modelo} requiere ${needed}.`, { campo: `${at}.${needed}` });
  const extra = PRICE_FIELDS.find((f) => f !== needed && p[f] !== undefined);
  if (extra) throw E.PRECIO_MODELO_INVALIDO(`${at}: el modelo ${p.modelo} no lleva ${extra} (lleva ${needed}).`, { campo: `${at}.${extra}` });
}

/** Tiers (desde, hasta]: the first from 0, each from the previous hasta, hasta > desde, only the last open. */
export function tierProblem(tramos: ReadonlyArray<{ desde: string; hasta: string | null }>): string | undefined {
  if (!new Decimal(tramos[0]!.desde).isZero()) return `el primer tramo debe empezar en 0 (empieza en ${tramos[0]!.desde})`;
  for (let i = 0; i < tramos.length; i++) {
    const t = tramos[i]!;
    const last = i === tramos.length - 1;
    if (t.hasta === null && !last) return `el tramo ${i + 1} no tiene hasta y no es el último: solo el último queda abierto`;
    if (t.hasta === null) continue;
    if (last) return `el último tramo debe quedar abierto (hasta null) para que toda cantidad tenga precio; termina en ${t.hasta}`;
    if (!new Decimal(t.hasta).gt(t.desde)) return `el tramo ${i + 1} termina (${t.hasta}) antes o donde empieza (${t.desde})`;
    const next = tramos[i + 1]!;
    if (!new Decimal(next.desde).eq(t.hasta)) return `el tramo ${i + 2} empieza en ${next.desde} y el anterior termina en ${t.hasta}: deben coincidir`;
  }
  return undefined;
}

const dimsKey = (d: Record<string, string> | undefined) => JSON.stringify(Object.entries(d ?? {}).sort(([a], [b]) => a.localeCompare(b)));
const keysOf = (d: Record<string, string> | undefined) => Object.keys(d ?? {}).sort().join(',');

export function checkPriceBook(body: CreatePriceBookBody): void {
  if (body.vigenteHasta && body.vigenteHasta < body.vigenteDesde) {
    throw E.LISTA_PRECIOS_VIGENCIA_INVALIDA(`vigenteHasta ${body.vigenteHasta} es anterior a vigenteDesde ${body.vigenteDesde}.`);
  }
  const modo = body.tipoCambio?.modo ?? 'emision';
  if (body.moneda === 'UYU' && body.tipoCambio) throw E.LISTA_PRECIOS_TIPO_CAMBIO_INVALIDO('Una lista en UYU no lleva tipoCambio.');
  if (modo === 'fijo' && body.tipoCambio?.valor === undefined) throw E.LISTA_PRECIOS_TIPO_CAMBIO_INVALIDO('Con tipoCambio.modo fijo, indique tipoCambio.valor.');
  if (modo !== 'fijo' && body.tipoCambio?.valor !== undefined) throw E.LISTA_PRECIOS_TIPO_CAMBIO_INVALIDO(`Con tipoCambio.modo ${modo} el valor se resuelve al facturar: quite tipoCambio.valor o use modo fijo.`);

  const seen = new Map<string, number>();
  const dimensionKeys = new Map<string, string>();
  body.precios.forEach((p, i) => {
    const at = `precios[${i}]`;
    checkModel(p, at);
    if (p.tramos) {
      const problem = tierProblem(p.tramos);
      if (problem) throw E.PRECIO_TRAMOS_INVALIDOS(`${at}: ${problem}.`, { campo: `${at}.tramos` });
    }
    const dims = p.dimensiones && Object.keys(p.dimensiones).length ? p.dimensiones : undefined;
    if (dims && Object.keys(dims).length > MAX_DIMENSION_KEYS) throw E.PRECIO_DIMENSIONES_INVALIDAS(`${at}: como máximo ${MAX_DIMENSION_KEYS} dimensiones por precio.`);
    const key = `${p.metrica}\u0000${dimsKey(dims)}`;
    const other = seen.get(key);
    if (other !== undefined) throw E.PRECIO_DUPLICADO(`${at} repite la métrica ${p.metrica} con las mismas dimensiones que precios[${other}].`);
    seen.set(key, i);
    if (!dims) return;
    // One key set per metric: with {region} and {plan} prices, usage with both would match two prices.
    const keys = keysOf(dims);
    const first = dimensionKeys.get(p.metrica);
    if (first !== undefined && first !== keys) {
      throw E.PRECIO_DIMENSIONES_INVALIDAS(`${at}: la métrica ${p.metrica} ya tiene precios por [${first}]; este usa [${keys}]. Use las mismas claves en todos sus precios con dimensiones.`);
    }
    dimensionKeys.set(p.metrica, keys);
  });
}
