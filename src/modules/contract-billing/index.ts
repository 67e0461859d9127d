/** Contract billing (issue 34 points 2-4): terms, usage-rule state and history, period CFEs and corrections. */
import type { Db } from '../../platform/db/client.js';
import type { CacheInvalidation } from '../../platform/db/invalidation.js';
import type { Logger } from '../../platform/logger.js';
import type { EventsService } from '../events/events.service.js';
import type { IssuedCfeService } from '../issued-cfe/issued-cfe.service.js';
import type { PriceBooksService } from '../price-books/price-books.service.js';
import type { IngestionDeps } from '../usage/ingestion.service.js';
import type { UsageBillingPort } from '../usage/usage.billing-port.js';
import type { ContractStateHook, UsageService } from '../usage/usage.service.js';
import { uyToday } from '../../lib/dates.js';
import { markLateUsage } from './contract-billing.repository.js';
import { recordHistory } from './contract-evaluation.js';
import { contractBillingCrontab, contractBillingJobHandlers, runClose } from './contract-billing.jobs.js';
import { createEvaluationQueue } from './evaluation-queue.js';
import { contractBillingRoutes } from './contract-billing.routes.js';
import { createContractBillingService } from './contract-billing.service.js';
import { createPeriodCloseService } from './period-close.service.js';
import { createPeriodRecovery } from './period-recovery.js';

export function createContractBillingModule(deps: {
  db: Db; logger: Logger; events: EventsService; priceBooks: PriceBooksService; issuedCfe: IssuedCfeService;
  /** The CFE a company issued under an Idempotency-Key (a period's CFE issued by a worker that died before marking it). */
  cfeIdByKey: (companyId: number, key: string) => Promise<number | undefined>;
  /** The scheduling clock (platform/clock.ts): the close and the open period follow it. */
  now: () => Date;
  usage: {
    service: UsageService; billing: UsageBillingPort;
    onEventsStored: (hook: NonNullable<IngestionDeps['afterStore']>) => void; onStateChanged: (hook: ContractStateHook) => void;
    onEventsStoring: (hook: NonNullable<IngestionDeps['beforeStore']>) => void;
  };
  /** Empties what the evaluation queue knows of contracts without rules when terms change in any process. */
  invalidation?: CacheInvalidation;
}) {
  const evaluation = { db: deps.db, usage: deps.usage.billing, priceBooks: deps.priceBooks, events: deps.events, versions: new Map(), now: deps.now };
  const close = createPeriodCloseService({ ...evaluation, issuedCfe: deps.issuedCfe, cfeIdByKey: deps.cfeIdByKey, loadContract: deps.usage.service.loadContract });
  const service = createContractBillingService({ ...evaluation, usageService: deps.usage.service, close });
  // Before a batch's events are stored its contracts with rules are marked in the database; when the
  // batch is over they are touched, and every 250 ms each touched contract is evaluated once and its
  // mark deleted; a dead process's marks are evaluated by another's sweep (evaluation-queue.ts).
  const queue = createEvaluationQueue({ ...evaluation, logger: deps.logger, invalidation: deps.invalidation });
  deps.usage.onEventsStoring((_companyId, events) => queue.mark(events.map((e) => e.contractId)));
  deps.usage.onEventsStored(async (_companyId, events) => {
    // Events in a closed period (ingestion said so in their outcome) mark that period as having late usage.
    const late = events.filter((e) => e.late);
    // (Their outcome already says periodoCerrado; a failure here is logged rather than failing a batch already counted.)
    if (late.length) {
      await markLateUsage(deps.db, late.map((e) => ({ contractId: e.contractId, day: uyToday(e.at) })))
        .catch((err: unknown) => deps.logger.error({ err, events: late.length }, 'late usage not marked on its periods'));
    }
  });
  // A state set through usage's PATCH /contracts/{id} gets its history row and event 8 in the same transaction.
  deps.usage.onStateChanged((tx, c) => recordHistory(evaluation, tx, c, [{
    desde: c.from, hacia: c.to, en: c.at.toISOString(), causa: { tipo: 'manual', usuario: c.usuario, reglas: [], accion: 'patch' },
  }]));
  const recovery = createPeriodRecovery({ db: deps.db, logger: deps.logger });
  return {
    service, close, queue, recovery,
    /** The close at `at` (the sandbox clock runs it when moved). */
    runClose: (at: Date) => runClose(close, recovery, at),
    routes: [contractBillingRoutes(service, close)], jobs: contractBillingJobHandlers(evaluation, close, recovery, deps.now), cron: contractBillingCrontab,
  };
}
