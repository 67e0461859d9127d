/** Front door of the sandbox clock (issue 40 point 5, issue 41 point 6): one clock, every scheduler. */
import type { ShiftableClock } from '../../platform/clock.js';
import { sandboxClockRoutes } from './sandbox-clock.routes.js';
import { createSandboxClockService, type ClockSchedulers } from './sandbox-clock.service.js';

export function createSandboxClockModule(deps: { clock: ShiftableClock; schedulers: ClockSchedulers }) {
  const service = createSandboxClockService(deps);
  return { service, routes: [sandboxClockRoutes(service)] };
}
