/**
 * Coalesces rule evaluations requested by ingestion (issue 34 point 6: rules must not cost
 * ingestion more than 10 %). Each stored batch only adds its contract ids to an in-process set; every
 * FLUSH_MS one statement queues `contract_rules_evaluate` for the whole set (one pending job per
 * contract, job key `contract-rules-<id>`). So concurrent batches never contend on the queue's rows,
 * and a contract receiving hundreds of batches a second is evaluated a few times a second, still
 * well within the second the issue allows. A process that dies with ids in the set loses only those
 * evaluations; the contract's next batch or period change evaluates it again.
 */
import type { Db } from '../../platform/db/client.js';
import type { Logger } from '../../platform/logger.js';
import { queueEvaluations } from './contract-billing.jobs.js';

export const FLUSH_MS = 200;

export function createEvaluationQueue(deps: { db: Db; logger: Logger }) {
  const dirty = new Set<number>();
  let timer: NodeJS.Timeout | undefined;

  async function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!dirty.size) return;
    const ids = [...dirty];
    dirty.clear();
    try {
      await queueEvaluations(deps.db, ids);
    } catch (err) {
      deps.logger.error({ err, contracts: ids.length }, 'usage rules evaluation not queued; the next batch or period change evaluates them');
    }
  }

  return {
    /** Marks contracts whose usage changed; their evaluation is queued within FLUSH_MS. */
    touch(contractIds: Iterable<number>) {
      for (const id of contractIds) dirty.add(id);
      if (!timer && dirty.size) {
        timer = setTimeout(() => void flush(), FLUSH_MS);
        timer.unref();
      }
    },
    /** Queues what is pending now (tests, shutdown). */
    flush,
  };
}
