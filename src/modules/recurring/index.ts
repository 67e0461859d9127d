/** Front door of the recurring-invoicing module (issue 32): wires it to the other modules' services. */
import type { Db } from '../../platform/db/client.js';
import type { Logger } from '../../platform/logger.js';
import { recurringCrontab, recurringJobHandlers } from './recurring.jobs.js';
import { recurringRoutes } from './recurring.routes.js';
import { createScheduler, type RecurringPorts, type SchedulerSettings } from './recurring.scheduler.js';
import { createRecurringService } from './recurring.service.js';

export interface RecurringModuleDeps {
  db: Db;
  logger?: Logger;
  ports: RecurringPorts;
  /** The scheduling clock shared by every scheduler (platform/clock.ts; the sandbox-clock module moves it). */
  now: () => Date;
  settings?: Partial<SchedulerSettings>;
}

export function createRecurringModule(deps: RecurringModuleDeps) {
  const now = deps.now;
  const scheduler = createScheduler({ db: deps.db, ports: deps.ports, logger: deps.logger, settings: deps.settings });
  const service = createRecurringService({ db: deps.db, ports: deps.ports, scheduler, now });
  return {
    service, scheduler,
    routes: [recurringRoutes(service)],
    jobs: recurringJobHandlers(service, scheduler, now),
    cron: [recurringCrontab],
  };
}
