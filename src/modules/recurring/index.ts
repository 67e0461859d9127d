/** Front door of the recurring-invoicing module (issue 32): wires it to the other modules' services. */
import type { Db } from '../../platform/db/client.js';
import type { Logger } from '../../platform/logger.js';
import { recurringCrontab, recurringJobHandlers } from './recurring.jobs.js';
import { recurringRoutes } from './recurring.routes.js';
import { createScheduler, type RecurringPorts, type SchedulerSettings } from './recurring.scheduler.js';
import { createRecurringService } from './recurring.service.js';
import { createShiftableClock, recurringSandboxRoutes } from './recurring.sandbox.js';

export interface RecurringModuleDeps {
  db: Db;
  logger?: Logger;
  ports: RecurringPorts;
  /** The clock (default the system's): tests and the bench move it. */
  now?: () => Date;
  settings?: Partial<SchedulerSettings>;
  /** Sandbox (in-process simulator, not production): the test-clock route is registered. */
  sandbox?: boolean;
}

export function createRecurringModule(deps: RecurringModuleDeps) {
  const clock = createShiftableClock(deps.now ?? (() => new Date()));
  const now = clock.now;
  const scheduler = createScheduler({ db: deps.db, ports: deps.ports, logger: deps.logger, settings: deps.settings });
  const service = createRecurringService({ db: deps.db, ports: deps.ports, scheduler, now });
  return {
    service, scheduler,
    routes: [recurringRoutes(service), ...(deps.sandbox ? [recurringSandboxRoutes(clock, service, scheduler)] : [])],
    jobs: recurringJobHandlers(service, scheduler, now),
    cron: [recurringCrontab],
  };
}
