/**
 * BCU exchange rates: `awsbcucotizaciones` (BRIEF §11), public, no authentication.
 * One request covers the date and the preceding `maxWalkBackDays`; the newest quote on or before
 * the date wins, which is "the last business day with a quote" without one call per day.
 */
import type { ExchangeRate, ExchangeRateClient } from './dgi.client.ts';
import { DgiPermanentError } from './dgi.errors.ts';
import { faultError } from './dgi.soap-client.ts';
import { soapBody, soapEnvelope } from './dgi.soap.ts';
import { postSoap } from './http-post.ts';

/** BCU Moneda codes (BRIEF §11): 2225 is the USD "billete" quote used as the fiscal rate (§9). */
export const BCU_CURRENCY_CODES: Readonly<Record<string, number>> = {
  USD: 2225,
  EUR: 1111,
  BRL: 1001,
  ARS: 501,
  UYI: 9800, // Unidad Indexada
};

export interface BcuSoapClientOptions {
  /** e.g. https://cotizaciones.bcu.gub.uy/wscotizaciones/servlet/awsbcucotizaciones */
  endpoint: string;
  timeoutMs?: number; // default 15 s
  /** Bound for the walk-back over weekends and holidays. Default 10 days. */
  maxWalkBackDays?: number;
  currencyCodes?: Record<string, number>;
}

type Node = Record<string, unknown>;

function minusDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

export class BcuSoapClient implements ExchangeRateClient {
  constructor(private readonly options: BcuSoapClientOptions) {}

  async getRate(isoCurrency: string, date: string): Promise<ExchangeRate | null> {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new RangeError(`date must be YYYY-MM-DD, got ${date}`);
    const code = { ...BCU_CURRENCY_CODES, ...this.options.currencyCodes }[isoCurrency.toUpperCase()];
    if (code === undefined) throw new RangeError(`no BCU code for currency ${isoCurrency}`);
    const from = minusDays(date, this.options.maxWalkBackDays ?? 10);
    const envelope = soapEnvelope(
      `<cot:wsbcucotizaciones.Execute><cot:Entrada><cot:Moneda><cot:item>${code}</cot:item></cot:Moneda>` +
        `<cot:FechaDesde>${from}</cot:FechaDesde><cot:FechaHasta>${date}</cot:FechaHasta><cot:Grupo>0</cot:Grupo>` +
        `</cot:Entrada></cot:wsbcucotizaciones.Execute>`,
      { cot: 'Cotiza' },
    );
    const result = await postSoap(
      'awsbcucotizaciones',
      this.options.endpoint,
      envelope,
      'Cotizaaction/AWSBCUCOTIZACIONES.Execute',
      this.options.timeoutMs ?? 15_000,
    );
    if ('fault' in result) throw faultError(result.fault, 'awsbcucotizaciones');
    const salida = (soapBody(result.xml)?.['wsbcucotizaciones.ExecuteResponse'] as Node | undefined)?.Salida as Node | undefined;
    if (!salida) throw new DgiPermanentError('BCU: response without Salida', 'awsbcucotizaciones', null);
    const wrapper = salida.datoscotizaciones as Node | undefined;
    const raw = wrapper?.['datoscotizaciones.dato'];
    const quotes = ((Array.isArray(raw) ? raw : raw ? [raw] : []) as Node[])
      .map((q) => ({ fecha: String(q.Fecha ?? '').slice(0, 10), moneda: Number(q.Moneda), tcc: String(q.TCC ?? '').trim() }))
      .filter((q) => q.moneda === code && q.fecha <= date && /^\d+(\.\d+)?$/.test(q.tcc) && Number(q.tcc) > 0)
      .sort((a, b) => (a.fecha < b.fecha ? 1 : -1));
    // status != 1 with no data is BCU's "no quotes for these dates", not an error.
    const best = quotes[0];
    return best ? { rate: best.tcc, date: best.fecha, source: 'BCU', currencyCode: code } : null;
  }
}
