/**
 * The buyer's public receipt page (issue 47 point 3): unauthenticated, rate-limited per client
 * address (PUBLIC_LOOKUP_RATE_LIMIT_PER_MINUTE). Plain HTML forms, no script, so it works in any
 * browser and from the link printed on the receipt and carried by the mail:
 *   GET /consulta/{rut}                       the form (the same page for any RUT: no company is revealed)
 *   GET /consulta/{rut}/comprobante?tipo&serie&numero&fecha&codigo      the receipt found, with its links
 *   GET /consulta/{rut}/comprobante.pdf?…     the printed representation (PDF)
 *   GET /consulta/{rut}/comprobante.xml?…     the signed CFE (XML)
 * Every mismatch answers 404 with the same page (to a browser, Accept: text/html) or the same JSON body
 * (CONSULTA_NO_ENCONTRADA), whichever field was wrong.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../lib/errors.js';
import { getCfeType } from '../emission/index.js';
import type { BuyerLookup } from './buyer-lookup.service.js';

const TYPES = [101, 102, 103, 111, 112, 113, 121, 122, 123, 124, 131, 132, 133, 141, 142, 143, 151, 152, 153, 181, 182];
const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
// No script, inline style only, forms only to this site, never framed.
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const params = z.object({ rut: z.string().max(20) });
const query = z.object({}).catchall(z.string().max(20));

function page(title: string, body: string): string {
  return `<!doctype html><html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${esc(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#222}` +
    `label{display:block;margin:.6rem 0 .2rem}input,select{width:100%;padding:.45rem;font-size:1rem;box-sizing:border-box}button,a.b{margin-top:1rem;padding:.6rem 1rem;font-size:1rem;display:inline-block}` +
    `.err{background:#fde8e8;border:1px solid #e0a0a0;padding:.7rem}.ok{background:#e8f6ea;border:1px solid #9c9;padding:.7rem}</style></head><body>${body}</body></html>`;
}

function form(rut: string, q: Record<string, string>, error?: string): string {
  const options = TYPES.map((t) => `<option value="${t}"${String(t) === q.tipo ? ' selected' : ''}>${t} ${esc(getCfeType(t).name)}</option>`).join('');
  return page('Consulta de comprobante electrónico',
    `<h1>Consulta de comprobante electrónico</h1><p>Emisor RUT <strong>${esc(rut)}</strong>. Ingrese los datos impresos en su comprobante.</p>` +
    (error ? `<p class="err" role="alert">${esc(error)}</p>` : '') +
    `<form method="get" action="/consulta/${esc(rut)}/comprobante">` +
    `<label for="tipo">Tipo de comprobante</label><select id="tipo" name="tipo">${options}</select>` +
    `<label for="serie">Serie</label><input id="serie" name="serie" required maxlength="2" value="${esc(q.serie)}">` +
    `<label for="numero">Número</label><input id="numero" name="numero" required inputmode="numeric" value="${esc(q.numero)}">` +
    `<label for="fecha">Fecha de emisión</label><input id="fecha" name="fecha" type="date" required value="${esc(q.fecha)}">` +
    `<label for="codigo">Código de seguridad</label><input id="codigo" name="codigo" required maxlength="6" value="${esc(q.codigo)}">` +
    `<button type="submit">Consultar</button></form>`);
}

export function buyerLookupRoutes(lookup: BuyerLookup, opts: { rateLimitPerMinute: number }): FastifyPluginAsyncZod {
  const config = { public: true, rateLimit: { max: opts.rateLimitPerMinute, timeWindow: '1 minute' } };
  const description = 'Public and unauthenticated (issue 47): the buyer gives type, serie, number, date of issue and security code as printed. Any mismatch is 404 CONSULTA_NO_ENCONTRADA naming no field. Rate-limited per client address (PUBLIC_LOOKUP_RATE_LIMIT_PER_MINUTE, 429 beyond).';
  return async (app) => {
    app.get('/consulta/:rut', { config, schema: { tags: ['Consulta pública'], security: [], summary: 'Buyer lookup form (HTML)', params, querystring: query, description } },
      async (req, reply) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').header('content-security-policy', CSP).send(form(req.params.rut, req.query)));

    app.get('/consulta/:rut/comprobante', { config, schema: { tags: ['Consulta pública'], security: [], summary: 'The receipt found (HTML) with its PDF and XML links', params, querystring: query, description } },
      async (req, reply) => {
        reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').header('content-security-policy', CSP);
        try {
          const cfe = await lookup.check(req.params.rut, req.query);
          const qs = new URLSearchParams({ tipo: req.query.tipo, serie: req.query.serie, numero: req.query.numero, fecha: req.query.fecha, codigo: req.query.codigo }).toString();
          const base = `/consulta/${encodeURIComponent(req.params.rut)}/comprobante`;
          return reply.send(page('Comprobante encontrado',
            `<h1>Comprobante encontrado</h1><p class="ok">${esc(getCfeType(cfe.tipoCfe).name)} <strong>${esc(cfe.serie)}-${esc(cfe.numero)}</strong> del ${esc(cfe.fechaEmision)}, emisor RUT ${esc(req.params.rut)}.</p>` +
            `<p><a class="b" id="pdf" href="${base}.pdf?${esc(qs)}">Descargar PDF</a> <a class="b" id="xml" href="${base}.xml?${esc(qs)}">Descargar XML firmado</a></p>` +
            `<p><a href="/consulta/${esc(req.params.rut)}">Consultar otro comprobante</a></p>`));
        } catch (err) {
          // A browser gets the form again with the message; any other client the JSON error body (error, code).
          if (!(err instanceof AppError) || err.status !== 404 || !req.headers.accept?.includes('text/html')) throw err;
          return reply.status(404).send(form(req.params.rut, req.query, err.message));
        }
      });

    app.get('/consulta/:rut/comprobante.pdf', { config, schema: { tags: ['Consulta pública'], security: [], summary: 'The receipt\'s printed representation (PDF)', params, querystring: query, description } },
      async (req, reply) => {
        const { pdf, fileName } = await lookup.pdf(req.params.rut, req.query, req.query.formato === 'ticket80' ? 'ticket80' : 'A4');
        return reply.type('application/pdf').header('content-disposition', `inline; filename="${fileName}"`).header('cache-control', 'no-store').send(pdf as never);
      });

    app.get('/consulta/:rut/comprobante.xml', { config, schema: { tags: ['Consulta pública'], security: [], summary: 'The signed CFE (XML)', params, querystring: query, description } },
      async (req, reply) => {
        const { xml, fileName } = await lookup.xml(req.params.rut, req.query);
        return reply.type('application/xml; charset=utf-8').header('content-disposition', `attachment; filename="${fileName}"`).header('cache-control', 'no-store').send(xml);
      });
  };
}
