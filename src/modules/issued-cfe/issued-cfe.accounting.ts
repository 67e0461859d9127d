/**
 * The accounting export (ExportacionContable/exportarExt, issue 7 point 4): pure journal lines per
 * receipt and their CSV layout. Per sales receipt: the receivable is debited with the sum of the
 * credits; each non-zero DGI total component is credited to its account (net per VAT rate,
 * exports, untaxed, VAT payable per rate, VAT in suspense, perceived tax). Credit notes (NC) are the
 * same entry reversed. The components are the ones that add up to MntTotal (DGI Totales, BRIEF 2.4);
 * retentions and non-billable amounts (MontoNF) only change MntPagar and are not journalised.
 * Remitos, resguardos and e-Boletas de entrada (a purchase) are not sales and produce no lines.
 * Amounts: decimal.js, 2 decimals; the local-currency (UYU) column converts each line with the
 * receipt's TpoCambio and puts any rounding difference on the receivable so the entry balances.
 */
import { Decimal } from 'decimal.js';
import { getCfeType } from '../emission/index.js';
import type { IssuedCfeSummary } from './issued-cfe.search.js';

export const ACCOUNT_CATALOGUE = {
  deudoresPorVentas: { codigo: '1.1.3.01', nombre: 'Deudores por ventas' },
  ventasTasaBasica: { codigo: '4.1.1.01', nombre: 'Ventas gravadas tasa básica' },
  ventasTasaMinima: { codigo: '4.1.1.02', nombre: 'Ventas gravadas tasa mínima' },
  ventasOtraTasa: { codigo: '4.1.1.03', nombre: 'Ventas gravadas otra tasa' },
  ventasNoGravadas: { codigo: '4.1.1.04', nombre: 'Ventas no gravadas' },
  ventasExportacion: { codigo: '4.1.1.05', nombre: 'Exportaciones y asimiladas' },
  ivaVentasTasaBasica: { codigo: '2.1.4.01', nombre: 'IVA ventas tasa básica' },
  ivaVentasTasaMinima: { codigo: '2.1.4.02', nombre: 'IVA ventas tasa mínima' },
  ivaVentasOtraTasa: { codigo: '2.1.4.03', nombre: 'IVA ventas otra tasa' },
  ivaEnSuspenso: { codigo: '2.1.4.04', nombre: 'IVA en suspenso' },
  impuestoPercibido: { codigo: '2.1.4.05', nombre: 'Impuesto percibido a pagar' },
} as const;
export type AccountKey = keyof typeof ACCOUNT_CATALOGUE;
export const ACCOUNT_KEYS = Object.keys(ACCOUNT_CATALOGUE) as AccountKey[];
export type AccountCodes = Record<AccountKey, string>;

export const DEFAULT_ACCOUNT_CODES = Object.fromEntries(ACCOUNT_KEYS.map((k) => [k, ACCOUNT_CATALOGUE[k].codigo])) as AccountCodes;

/** DGI Totales field → credited account (the components of MntTotal). */
const CREDITS: Array<[string, AccountKey]> = [
  ['MntNetoIVATasaBasica', 'ventasTasaBasica'],
  ['MntNetoIvaTasaMin', 'ventasTasaMinima'],
  ['MntNetoIVAOtra', 'ventasOtraTasa'],
  ['MntNoGrv', 'ventasNoGravadas'],
  ['MntExpoyAsim', 'ventasExportacion'],
  ['MntIVATasaBasica', 'ivaVentasTasaBasica'],
  ['MntIVATasaMin', 'ivaVentasTasaMinima'],
  ['MntIVAOtra', 'ivaVentasOtraTasa'],
  ['MntIVaenSusp', 'ivaEnSuspenso'],
  ['MntImpuestoPerc', 'impuestoPercibido'],
];

export interface JournalLine {
  account: AccountKey;
  debe: Decimal;
  haber: Decimal;
  debeMN: Decimal;
  haberMN: Decimal;
}

const NOT_SALES = new Set(['eRem', 'eRem_Exp', 'eResg', 'eBoleta']);

/** Whether a CFE type is journalised (sales and their notes). */
export function isJournalised(tipoCfe: number): boolean {
  try {
    return !NOT_SALES.has(getCfeType(tipoCfe).branch);
  } catch {
    return false;
  }
}

const round2 = (d: Decimal) => d.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

/** The balanced entry of one receipt (empty for non-sales types and all-zero totals). */
export function journalLines(cfe: Pick<IssuedCfeSummary, 'tipoCfe' | 'tipoCambio' | 'moneda'> & { totales: Record<string, unknown> }): JournalLine[] {
  if (!isJournalised(cfe.tipoCfe)) return [];
  const reversed = getCfeType(cfe.tipoCfe).note === 'NC';
  const rate = cfe.moneda === 'UYU' || !cfe.tipoCambio ? new Decimal(1) : new Decimal(cfe.tipoCambio);
  const credits: JournalLine[] = [];
  let sum = new Decimal(0);
  let sumMN = new Decimal(0);
  for (const [field, account] of CREDITS) {
    const raw = cfe.totales[field];
    if (raw === undefined || raw === null || raw === '') continue;
    const amount = round2(new Decimal(String(raw)));
    if (amount.isZero()) continue;
    const mn = round2(amount.times(rate));
    sum = sum.plus(amount);
    sumMN = sumMN.plus(mn);
    credits.push({ account, debe: new Decimal(0), haber: amount, debeMN: new Decimal(0), haberMN: mn });
  }
  if (credits.length === 0) return [];
  const lines = [{ account: 'deudoresPorVentas' as const, debe: sum, haber: new Decimal(0), debeMN: sumMN, haberMN: new Decimal(0) }, ...credits];
  if (!reversed) return lines;
  return lines.map((l) => ({ account: l.account, debe: l.haber, haber: l.debe, debeMN: l.haberMN, haberMN: l.debeMN }));
}

/** CSV layout (documented in the route): `;` separator, `.` decimal point, CRLF, UTF-8 with BOM. */
export const CSV_HEADER = ['fecha', 'idCfe', 'tipoCfe', 'serie', 'numero', 'cuenta', 'nombreCuenta', 'debe', 'haber', 'moneda', 'tipoCambio', 'debeMN', 'haberMN', 'documentoReceptor', 'receptor', 'concepto'];
export const CSV_BOM = '\uFEFF';

export function csvField(v: string | number | null | undefined): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[;"\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvRow = (fields: Array<string | number | null | undefined>) => `${fields.map(csvField).join(';')}\r\n`;

/** The CSV rows of one receipt (empty string when it has no entry). */
export function receiptCsv(cfe: IssuedCfeSummary & { totales: Record<string, unknown> }, codes: AccountCodes): string {
  const lines = journalLines(cfe);
  if (lines.length === 0) return '';
  const type = getCfeType(cfe.tipoCfe);
  const concepto = `${type.name} ${cfe.serie}-${cfe.numero}`;
  return lines.map((l) => csvRow([
    cfe.fechaEmision, cfe.id, cfe.tipoCfe, cfe.serie, cfe.numero, codes[l.account], ACCOUNT_CATALOGUE[l.account].nombre,
    l.debe.toFixed(2), l.haber.toFixed(2), cfe.moneda, cfe.moneda === 'UYU' ? '1' : (cfe.tipoCambio ?? ''),
    l.debeMN.toFixed(2), l.haberMN.toFixed(2), cfe.receptorDocumento, cfe.receptorNombre, concepto,
  ])).join('');
}
