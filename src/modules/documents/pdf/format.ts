/**
 * Uruguayan number and date formatting for the printed representation: thousands '.', decimals ','
 * (`$ 1.234,50`, `U$S 10,00`). Inputs are the CFE's decimal strings; rounding is half-up with
 * decimal.js, never binary floating point.
 */
import { Decimal } from 'decimal.js';

/** Symbols used on Uruguayan receipts; any other currency prints its ISO 4217 code. */
const CURRENCY_SYMBOLS: Readonly<Record<string, string>> = {
  UYU: '$',
  USD: 'U$S',
  EUR: '€',
  ARS: 'AR$',
  BRL: 'R$',
  UYI: 'UI',
  UYR: 'UR',
};

export function currencySymbol(currency = 'UYU'): string {
  return CURRENCY_SYMBOLS[currency] ?? currency;
}

function groupThousands(integer: string): string {
  return integer.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
}

/**
 * `1234.5` → `1.234,50`. `minDecimals`..`maxDecimals` digits after the comma (trailing zeros
 * beyond the minimum are dropped). The sign stays in front of the digits.
 */
export function formatNumber(value: string | number, minDecimals = 2, maxDecimals = minDecimals): string {
  const d = new Decimal(value).toDecimalPlaces(maxDecimals, Decimal.ROUND_HALF_UP);
  let fixed = d.abs().toFixed(maxDecimals);
  if (maxDecimals > minDecimals) {
    const [int, frac] = fixed.split('.');
    let trimmed = frac.replace(/0+$/, '');
    if (trimmed.length < minDecimals) trimmed = trimmed.padEnd(minDecimals, '0');
    fixed = trimmed ? `${int}.${trimmed}` : int;
  }
  const [int, frac] = fixed.split('.');
  const sign = d.isNegative() && !d.isZero() ? '-' : '';
  return `${sign}${groupThousands(int)}${frac ? `,${frac}` : ''}`;
}

/** Amount with currency symbol and 2 decimals: `formatMonto('1234.5', 'UYU')` → `$ 1.234,50`. */
export function formatMonto(value: string | number, currency = 'UYU'): string {
  return `${currencySymbol(currency)} ${formatNumber(value, 2)}`;
}

/** Quantity: up to 3 decimals (XSD Cantidad), none when whole: `2` → `2`, `8.5` → `8,5`. */
export function formatCantidad(value: string | number): string {
  return formatNumber(value, 0, 3);
}

/** Unit price: 2 to 6 decimals (XSD PrecioUnitario decimal(17,6)). */
export function formatPrecio(value: string | number): string {
  return formatNumber(value, 2, 6);
}

/** xs:date or xs:dateTime → dd/mm/yyyy. */
export function formatFecha(isoDate: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(isoDate);
  if (!m) throw new Error(`Not an ISO date: ${isoDate}`);
  return `${m[3]}/${m[2]}/${m[1]}`;
}

/** xs:dateTime → `dd/mm/yyyy hh:mm` in the timestamp's own offset (as signed). */
export function formatFechaHora(isoDateTime: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(isoDateTime);
  if (!m) return formatFecha(isoDateTime);
  return `${m[3]}/${m[2]}/${m[1]} ${m[4]}:${m[5]}`;
}

/** Rate as printed: `22.000` → `22%`, `10` → `10%`. */
export function formatTasa(value: string | number): string {
  return `${formatNumber(value, 0, 3)}%`;
}
