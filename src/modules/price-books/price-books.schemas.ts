/**
 * Price book requests and answers (issue 34 point 1; the spec names only POST /api/v1/price-books,
 * the record's fields are "not shown": designed here and documented in the OpenAPI description).
 *
 * Decimals travel as JSON strings only ("0.50"): a JSON number is a 400 naming the field. A price
 * sent as a binary float (0.1 + 0.2) could be silently altered before it reaches the book, and a
 * price book is read back and billed for years; strings are written and answered exactly.
 */
import { z } from 'zod';
import { calendarDate } from '../../platform/http/dates.js';
import { dgiText } from '../../platform/http/dgi-fields.js';
import { positiveInt4 } from '../../platform/http/numbers.js';
import { pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import { xsdLimit, xsdProblem } from '../../platform/xml/xsd-limits.js';
import { AMOUNT_DECIMALS, exchangeRateModes, PRICE_IND_FACT, priceModels, QUANTITY_DECIMALS, UNIT_PRICE_DECIMALS } from './price-books.model.js';

const DECIMAL = /^\d+(\.\d+)?$/;
const MAX_DIGITS = 17; // DGITypes.xsd: totalDigits of Cantidad, PrecioUnitario and Monto types.

/** Decimals and digits of a decimal string as XSD counts them (trailing zeros and leading zeros do not count). */
function digitsOf(v: string): { fraction: number; total: number } {
  const [whole, frac = ''] = v.split('.');
  const fraction = frac.replace(/0+$/, '').length;
  const w = whole!.replace(/^0+/, '').length;
  return { fraction, total: w + fraction };
}

function decimalText(decimals: number, opts: { positive?: boolean } = {}) {
  return z
    .string({ error: (iss) => (iss.input === undefined ? undefined : 'envíe el valor como texto decimal, p. ej. "0.50" (los números JSON no se aceptan en precios)') })
    .regex(DECIMAL, 'debe ser un número decimal no negativo escrito como texto, p. ej. "0.50"')
    .superRefine((v, ctx) => {
      if (!DECIMAL.test(v)) return;
      const d = digitsOf(v);
      if (d.fraction > decimals) ctx.addIssue({ code: 'custom', message: decimals === 0 ? 'no admite decimales' : `admite como máximo ${decimals} decimales` });
      if (d.total > MAX_DIGITS) ctx.addIssue({ code: 'custom', message: `admite como máximo ${MAX_DIGITS} dígitos` });
      if (opts.positive && /^0*(\.0*)?$/.test(v)) ctx.addIssue({ code: 'custom', message: 'debe ser mayor que 0' });
    })
    .describe(`Decimal as a JSON string, ≥ 0${opts.positive ? ' and > 0' : ''}, at most ${decimals} decimals and ${MAX_DIGITS} digits (DGI type).`);
}

const unitPrice = decimalText(UNIT_PRICE_DECIMALS);
const quantity = decimalText(QUANTITY_DECIMALS);
const amount = decimalText(AMOUNT_DECIMALS);
const TIP_CAMBIO = xsdLimit('TipCambioType');
const exchangeRate = z.string({ error: (iss) => (iss.input === undefined ? undefined : 'envíe el tipo de cambio como texto decimal, p. ej. "39.500"') })
  .regex(DECIMAL, 'debe ser un número decimal escrito como texto')
  .superRefine((v, ctx) => {
    const problem = xsdProblem(TIP_CAMBIO, v);
    if (problem) ctx.addIssue({ code: 'custom', message: `${problem} (TipCambioType de DGI)` });
  })
  .describe('UYU per unit of the currency, as a string: 0.001..9999.999, at most 3 decimals (DGI TipCambioType).');

const indFact = z.number().int().refine((v) => (PRICE_IND_FACT as readonly number[]).includes(v), `indicadorFacturacion admitidos en una lista de precios: ${PRICE_IND_FACT.join(', ')}`)
  .describe(`IndFact of the CFE line (BRIEF 2.6): ${PRICE_IND_FACT.join(', ')}. 4 (otra tasa) needs sent totals, 5 is set by the billing itself on 0-priced lines, the rest belong to remitos, resguardos or e-Boletas.`);
const nombreItem = dgiText('NomItemType', { required: true }).describe('NomItem of the CFE line (≤ 80 characters).');
const unidadMedida = z.string().trim().min(1).max(4).optional().describe('UniMed of the CFE line (≤ 4 characters); default "N/A".');

export const codigoField = z.string().regex(/^[A-Za-z0-9_.-]{1,50}$/, '1 a 50 letras, dígitos, "_", "." o "-"').describe('Code of the price book; the same code makes a new version.');

export const tierBody = z.object({
  desde: quantity.describe('Units above which the tier applies (exclusive); the first tier starts at "0".'),
  hasta: quantity.nullable().describe('Last unit of the tier (inclusive); null only on the last tier (open).'),
  precioUnitario: unitPrice,
});

export const priceBody = z.object({
  metrica: z.string().trim().min(1).max(100).describe('The metric\'s `code` (metrics of issue 33); matched by code.'),
  dimensiones: z.record(z.string().min(1).max(50), z.string().min(1).max(100)).optional()
    .describe('Exact-match dimension values (e.g. {"region": "norte"}); at most 5 keys. All dimensioned prices of one metric use the same keys; a price without dimensiones is the fallback for the other values.'),
  modelo: z.enum(priceModels).describe('estandar: precioUnitario per unit. escalonado: each unit at its tier\'s price (graduated). volumen: every unit at the price of the tier the total reaches (a total equal to a tier\'s hasta stays in it). paquete: every started package of paquete.tamano units costs paquete.precio.'),
  precioUnitario: unitPrice.optional().describe('estandar only.'),
  tramos: z.array(tierBody).min(1).max(20).optional().describe('escalonado and volumen only: contiguous tiers from 0, the last open.'),
  paquete: z.object({ tamano: decimalText(QUANTITY_DECIMALS, { positive: true }), precio: unitPrice }).optional().describe('paquete only.'),
  minimo: amount.optional().describe('Minimum of this price per period; a shortfall is billed on its own line.'),
  indicadorFacturacion: indFact,
  nombreItem,
  unidadMedida,
});

export const createPriceBookBody = z.object({
  codigo: codigoField,
  nombre: z.string().trim().min(1).max(200),
  moneda: z.string().regex(/^[A-Z]{3}$/, 'código ISO 4217 de 3 letras').describe('Currency of the prices, from the currencies catalogue (GET /api/v1/monedas).'),
  tipoCambio: z.object({
    modo: z.enum(exchangeRateModes).describe('emision: emission resolves it for the CFE date (company table, then central bank; spec 2.3 rule 7). cierrePeriodo: the rate of the billed period\'s last day. fijo: `valor`.'),
    valor: exchangeRate.optional(),
  }).optional().describe('How the exchange rate of a foreign-currency CFE is taken. Default {modo: "emision"}; not allowed with UYU.'),
  vigenteDesde: calendarDate.describe('First day of validity (inclusive).'),
  vigenteHasta: calendarDate.nullable().optional().describe('Last day of validity (inclusive); null or absent: open-ended.'),
  minimoPeriodo: z.object({ monto: decimalText(AMOUNT_DECIMALS, { positive: true }), indicadorFacturacion: indFact, nombreItem, unidadMedida }).optional()
    .describe('Minimum commitment of the whole book per period: a shortfall is billed on its own line.'),
  precios: z.array(priceBody).min(1).max(200),
});
export type CreatePriceBookBody = z.infer<typeof createPriceBookBody>;

export const closeVersionBody = z.object({
  vigenteHasta: calendarDate.describe('New last day of validity: today (Montevideo) or later, and not after the current end.'),
});

export const companyQuery = z.object({ idEmpresa: positiveInt4.optional().describe('Company; needed when the caller has access to more than one.') });
export const listQuery = pagingQuery.extend({
  idEmpresa: positiveInt4.optional().describe('Company; needed when the caller has access to more than one.'),
  codigo: codigoField.optional().describe('Only versions of this code.'),
  vigenteEn: calendarDate.optional().describe('Only versions in force on this day.'),
});
export const codeParams = z.object({ codigo: codigoField });
export const versionParams = codeParams.extend({ version: positiveInt4 });
export const inForceQuery = companyQuery.extend({ fecha: calendarDate.optional().describe('Day (YYYY-MM-DD); default today in Montevideo.') });

const tierView = z.object({ desde: z.string(), hasta: z.string().nullable(), precioUnitario: z.string() });
const fiscalView = { indicadorFacturacion: z.number().int(), nombreItem: z.string(), unidadMedida: z.string().optional() };
export const priceView = z.object({
  metrica: z.string(), dimensiones: z.record(z.string(), z.string()).optional(), modelo: z.enum(priceModels),
  precioUnitario: z.string().optional(), tramos: z.array(tierView).optional(), paquete: z.object({ tamano: z.string(), precio: z.string() }).optional(),
  minimo: z.string().optional(), ...fiscalView,
});
const versionHead = {
  id: z.number().int().describe('Id of this version (what a contract pins).'),
  idEmpresa: z.number().int(),
  codigo: z.string(),
  version: z.number().int().describe('1, 2, … per code.'),
  nombre: z.string(),
  moneda: z.string(),
  tipoCambio: z.object({ modo: z.enum(exchangeRateModes), valor: z.string().optional() }),
  vigenteDesde: z.string(),
  vigenteHasta: z.string().nullable(),
  createdAt: z.string(),
};
export const versionView = z.object({
  ...versionHead,
  minimoPeriodo: z.object({ monto: z.string(), ...fiscalView }).optional(),
  precios: z.array(priceView),
});
export const versionSummary = z.object({ ...versionHead, cantidadPrecios: z.number().int() });
export const versionsPage = pagedResponse(versionSummary);
export const codeView = z.object({ codigo: z.string(), versiones: z.array(versionView).describe('Every version, newest first.') });
