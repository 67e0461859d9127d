/**
 * A test clock for recurring plans (issue 32; Stripe's "test clocks" idea), sandbox only: registered
 * with the DGI sandbox routes (in-process simulator, not production; modules/index.ts). The operator
 * moves this process's recurring clock and runs one scheduler pass at the new time, to try a plan
 * over a simulated year through the API. Only the recurring module reads this clock: emission's
 * own date rules stay real (fechaEmision at most 60 days ahead, BRIEF 2.1; CAE validity), so the
 * simulated dates must lie where a CFE may be dated.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../lib/errors.js';
import { errorResponses } from '../../platform/http/error-body.js';
import { requireActor } from '../../platform/http/tenancy.js';
import type { RecurringService } from './recurring.service.js';
import type { Scheduler } from './recurring.scheduler.js';

/** The module's clock: the base clock (system, or a test's) shifted by an offset the sandbox sets. */
export function createShiftableClock(base: () => Date) {
  let offsetMs = 0;
  return {
    now: () => new Date(base().getTime() + offsetMs),
    set: (at: Date) => void (offsetMs = at.getTime() - base().getTime()),
    reset: () => void (offsetMs = 0),
  };
}
export type ShiftableClock = ReturnType<typeof createShiftableClock>;

const body = z.object({
  ahora: z.iso.datetime({ offset: true }).nullable().describe('The instant the recurring clock shows from now on (ISO 8601); null = back to the real clock.'),
});
const result = z.object({ ahora: z.string(), reanudados: z.number().int(), planes: z.number().int(), ejecuciones: z.number().int() });

export function recurringSandboxRoutes(clock: ShiftableClock, service: RecurringService, scheduler: Scheduler): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/v1/sandbox/facturacionrecurrente/reloj', {
      config: { minRole: 'administrador' },
      schema: {
        tags: ['Facturación recurrente'], summary: 'Sandbox: move the recurring clock and run the scheduler',
        description: 'Sandbox only (in-process DGI simulator, not production), operators only (403 otherwise): sets the clock the recurring plans read in this process (`ahora`; null = the real clock) and runs one scheduler pass at that time (resumes paused plans whose `hasta` passed, claims and issues due runs), as the every-minute `recurring_tick` job would. Answers the clock and what the pass did. The clock moves for every company of this process; emission\'s own date rules stay real (fechaEmision at most 60 days ahead; the CAE range must be valid on the date), so runs dated outside them fail with emitir\'s code, as they would.',
        body, response: { 200: result, ...errorResponses },
      },
    }, async (req) => {
      if (!requireActor(req).isOperator) throw errors.SIN_PERMISO();
      if (req.body.ahora === null) clock.reset();
      else clock.set(new Date(req.body.ahora));
      const at = clock.now();
      const reanudados = await service.resumeDue(at);
      const { plans, runs } = await scheduler.tick(at);
      return { ahora: at.toISOString(), reanudados, planes: plans, ejecuciones: runs };
    });
  };
}
