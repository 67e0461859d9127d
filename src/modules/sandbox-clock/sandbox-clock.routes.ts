import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../lib/errors.js';
import { errorResponses } from '../../platform/http/error-body.js';
import { requireActor } from '../../platform/http/tenancy.js';
import type { SandboxClockService } from './sandbox-clock.service.js';

const body = z.object({
  ahora: z.iso.datetime({ offset: true }).nullable().describe('The instant the schedulers\' clock shows from now on (ISO 8601); null = back to the real clock.'),
});
const result = z.object({
  ahora: z.string(),
  reanudados: z.number().int().describe('Recurring plans resumed (their pause `hasta` passed).'),
  planes: z.number().int().describe('Recurring plans with runs claimed by the pass.'),
  ejecuciones: z.number().int().describe('Recurring runs issued by the pass.'),
  contratos: z.object({
    reencolados: z.number().int().describe('Periods whose issue had stalled (a crash), queued again.'),
    periodosCerrados: z.number().int().describe('Contract periods claimed by the close (end plus the company\'s grace passed at `ahora`).'),
    emitidos: z.number().int().describe('Pending contract periods issued during this call (their CFE is in GET /contracts/{id}/periods).'),
    alertas: z.array(z.object({ idContrato: z.number().int(), alerta: z.string() })).describe('Contracts whose open period no close takes (see alertaCierre in GET /contracts/{id}/state).'),
  }),
});
const description = 'Sandbox only (in-process DGI simulator, not production), operators only (403 otherwise): sets the one clock every scheduler of this process reads (`ahora`; null = the real clock) and runs each once at that time, as their every-minute cron would: recurring plans (resumes paused plans whose `hasta` passed, claims and issues due runs) and usage-contract period closes (claims every period whose end plus the company\'s grace passed, catching up several periods if needed, and issues their CFEs in this call). Contracts\' open periods and states (GET /contracts/{id}/state) follow the clock too. The daily report to DGI does not: it reports CFEs signed on real days. The clock moves for every company of this process; emission\'s own date rules stay real (fechaEmision at most 60 days ahead; the CAE range must be valid on the date), so CFEs dated outside them fail with emitir\'s code, as they would. Usage events are still judged against the real time.';

export function sandboxClockRoutes(service: SandboxClockService): FastifyPluginAsyncZod {
  return async (app) => {
    const paths = [
      ['/api/v1/sandbox/reloj', 'Sandbox: move the schedulers\' clock and run them', 'Sandbox DGI (solo simulador)'],
      // Issue 41 point 6: the recurring module's path, kept as an alias of the same clock.
      ['/api/v1/sandbox/facturacionrecurrente/reloj', 'Sandbox: move the schedulers\' clock (alias of /api/v1/sandbox/reloj)', 'Facturación recurrente'],
    ] as const;
    for (const [url, summary, tag] of paths) {
      app.post(url, {
        config: { minRole: 'administrador' },
        schema: { tags: [tag], summary, description, body, response: { 200: result, ...errorResponses } },
      }, async (req) => {
        if (!requireActor(req).isOperator) throw errors.SIN_PERMISO();
        return service.move(req.body.ahora === null ? null : new Date(req.body.ahora));
      });
    }
    app.get('/api/v1/sandbox/reloj', {
      config: { minRole: 'administrador' },
      schema: { tags: ['Sandbox DGI (solo simulador)'], summary: 'Sandbox: the schedulers\' clock', response: { 200: z.object({ ahora: z.string(), desplazado: z.boolean().describe('true while the sandbox moved it away from the real clock.') }), ...errorResponses } },
    }, async (req) => {
      if (!requireActor(req).isOperator) throw errors.SIN_PERMISO();
      return service.now();
    });
  };
}
