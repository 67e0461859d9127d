import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { calendarDate } from '../../platform/http/dates.js';
import { dgiDecimal } from '../../platform/http/dgi-fields.js';
import { errorResponses } from '../../platform/http/error-body.js';
import { paged, pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import type { CurrenciesService } from './currencies.service.js';

const ymd = calendarDate;
const rate = z.object({
  moneda: z.string().length(3).describe('ISO 4217 code from the catalogue, e.g. USD'),
  fecha: ymd,
  // What emission writes as TpoCambio: refused here beyond DGI's 3 decimals / 9999.999 (issue 28 point 3), never rounded or failed later as XML_INVALIDO.
  tipoCambio: dgiDecimal('TipCambioType').describe('UYU per unit, as DGI\'s TpoCambio holds it: 0.001..9999.999 with at most 3 decimals (TipCambioType); more decimals or a larger rate are a 400 naming the field, never rounded. Sent as string to keep precision.'),
});
const rateView = z.object({ moneda: z.string(), fecha: z.string(), tipoCambio: z.string() });

export function currenciesRoutes(currencies: CurrenciesService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Monedas y cotizaciones'];
    app.get('/api/v1/moneda/todas', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Currency catalogue', description: 'Not in the spec. ISO 4217 codes of DGI TipMonType (includes UYI and UYR).', response: { 200: z.array(z.string()), ...errorResponses } },
    }, async () => [...currencies.catalogue()]);

    app.post('/api/v1/empresa/cotizaciones/cargar', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Load exchange rates', description: 'Not in the spec. Inserts or replaces the company rates (currency, date, rate). Emission uses them before the central bank (spec 2.3 rule 7). Each rate is what a receipt will carry as TpoCambio, so it is held to DGI\'s TipCambioType when loaded: 0.001..9999.999 with at most 3 decimals (EUR 12345.6789 or USD 39.5001 are a 400 naming `cotizaciones.N.tipoCambio`, never rounded or failed later as XML_INVALIDO). Role: emisor.', body: z.object({ idEmpresa: z.number().int().positive(), cotizaciones: z.array(rate).min(1).max(1000) }), response: { 200: z.object({ cargadas: z.number().int() }), ...errorResponses } },
    }, async (req) => currencies.loadRates(requireActor(req), req.body.idEmpresa, req.body.cotizaciones));

    app.get('/api/v1/empresa/cotizaciones', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'List exchange rates', description: 'Not in the spec. Rates of `idEmpresa`, newest first; filters moneda, desde, hasta.', querystring: pagingQuery.extend({ idEmpresa: z.coerce.number().int().positive(), moneda: z.string().length(3).optional(), desde: ymd.optional(), hasta: ymd.optional() }), response: { 200: pagedResponse(rateView), ...errorResponses } },
    }, async (req) => {
      const { start, length, ...f } = req.query;
      const { data, total } = await currencies.listRates(requireActor(req), f, { start, length });
      return paged(data, total, { start, length });
    });
  };
}
