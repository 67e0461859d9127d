/**
 * Simulated BCU `awsbcucotizaciones` (BRIEF §11): deterministic quotes per currency and date, none
 * on weekends, so clients exercise the walk-back to the last business day. `setRate` overrides.
 */
import { soapEnvelope } from '../dgi.soap.ts';
import type { SoapReply } from './efactura-service.ts';

interface Currency {
  iso: string;
  name: string;
  base: number;
  decimals: number;
}

/** Bases are plausible 2026 levels; only determinism matters to tests. */
export const BCU_CURRENCIES: Readonly<Record<number, Currency>> = {
  2225: { iso: 'USD', name: 'DLS. USA BILLETE', base: 39.5, decimals: 3 },
  1111: { iso: 'EUR', name: 'EURO', base: 46.2, decimals: 3 },
  1001: { iso: 'BRL', name: 'REAL', base: 7.25, decimals: 4 },
  501: { iso: 'ARS', name: 'PESO ARG.BILLETE', base: 0.035, decimals: 5 },
  9800: { iso: 'UYI', name: 'UNIDAD INDEXADA', base: 6.3, decimals: 4 },
};

function isWeekend(date: string): boolean {
  const day = new Date(`${date}T12:00:00Z`).getUTCDay();
  return day === 0 || day === 6;
}

function* days(from: string, to: string): Generator<string> {
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    yield new Date(t).toISOString().slice(0, 10);
  }
}

export class BcuService {
  private readonly overrides = new Map<string, string | null>();

  /** `rate: null` removes the quote for that day (e.g. a holiday). */
  setRate(code: number, date: string, rate: string | null): void {
    this.overrides.set(`${code}:${date}`, rate);
  }

  rate(code: number, date: string): string | null {
    const key = `${code}:${date}`;
    if (this.overrides.has(key)) return this.overrides.get(key) ?? null;
    const currency = BCU_CURRENCIES[code];
    if (!currency || isWeekend(date)) return null;
    // ±1 % wave over the day number: deterministic, different every business day.
    const dayNumber = Math.floor(Date.parse(`${date}T00:00:00Z`) / 86_400_000);
    const value = currency.base * (1 + 0.01 * Math.sin(dayNumber / 7));
    return value.toFixed(currency.decimals);
  }

  answer(request: string): SoapReply {
    const items = [...request.matchAll(/<(?:\w+:)?item>\s*(\d+)\s*</g)].map((m) => Number(m[1]));
    const from = /<(?:\w+:)?FechaDesde>\s*([\d-]{10})\s*</.exec(request)?.[1];
    const to = /<(?:\w+:)?FechaHasta>\s*([\d-]{10})\s*</.exec(request)?.[1] ?? from;
    let data = '';
    if (from && to && to >= from && Date.parse(to) - Date.parse(from) <= 366 * 86_400_000) {
      for (const day of days(from, to)) {
        for (const code of items) {
          const rate = this.rate(code, day);
          const c = BCU_CURRENCIES[code];
          if (!rate || !c) continue;
          data +=
            `<datoscotizaciones.dato><Fecha>${day}</Fecha><Moneda>${code}</Moneda><Nombre>${c.name}</Nombre>` +
            `<CodigoISO>${c.iso}</CodigoISO><Emisor></Emisor><TCC>${rate}</TCC><TCV>${rate}</TCV>` +
            `<ArbAct>0</ArbAct><FormaArbitrar>0</FormaArbitrar></datoscotizaciones.dato>`;
        }
      }
    }
    const status = data
      ? '<status>1</status><codigoerror>0</codigoerror><mensaje></mensaje>'
      : '<status>0</status><codigoerror>100</codigoerror><mensaje>No existen cotizaciones para los datos ingresados</mensaje>';
    return {
      status: 200,
      body: soapEnvelope(
        `<wsbcucotizaciones.ExecuteResponse xmlns="Cotiza"><Salida><respuestastatus>${status}</respuestastatus>` +
          `<datoscotizaciones>${data}</datoscotizaciones></Salida></wsbcucotizaciones.ExecuteResponse>`,
      ),
    };
  }
}
