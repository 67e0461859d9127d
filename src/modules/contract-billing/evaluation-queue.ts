/**
 * Rule evaluations requested by ingestion (issue 34 point 6: rules must not cost ingestion more
 * than 10 %). A stored batch only adds its contract ids to an in-process set; every FLUSH_MS the
 * set is evaluated in this process, EVALUATION_LANES contracts at a time, each once whatever the
 * number of batches that touched it. So a crossing changes the state within about FLUSH_MS plus one
 * evaluation, and a contract receiving hundreds of batches a second is evaluated a few times a second.
 * An evaluation that fails is handed to the `contract_rules_evaluate` job (retried by the queue). A
 * process that dies with ids in the set loses only those evaluations: the contract's next batch or
 * the period change evaluates it again. Two processes evaluating one contract serialise on its terms row.
 */
import type { Db } from '../../platform/db/client.js';
import type { Logger } from '../../platform/logger.js';
import { queueEvaluations } from './contract-billing.jobs.js';
import { contractsWithTerms } from './contract-billing.repository.js';
import { evaluateContract, type EvaluationDeps } from './contract-evaluation.js';

export const FLUSH_MS = 250;
const EVALUATION_LANES = 2;

export function createEvaluationQueue(deps: EvaluationDeps & { db: Db; logger: Logger }) {
  const dirty = new Set<number>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  async function evaluateAll(touched: number[]) {
    const failed: number[] = [];
    // A contract without terms has nothing to evaluate (evaluateContract answers [] for it after two
    // queries): those are set apart with one query for the whole flush (with 64 contracts touched 4
    // times a second, the two queries each were ~2 % of the usage bench's CPU).
    let ids: number[];
    try {
      ids = await contractsWithTerms(deps.db, touched);
    } catch {
      ids = touched;
    }
    let next = 0;
    const lane = async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        await evaluateContract(deps, id).catch(() => failed.push(id));
      }
    };
    await Promise.all(Array.from({ length: Math.min(EVALUATION_LANES, ids.length) }, lane));
    if (failed.length) {
      await queueEvaluations(deps.db, failed).catch((err: unknown) => deps.logger.error({ err, contracts: failed.length }, 'usage rules evaluation not queued; the next batch or period change evaluates them'));
    }
  }

  /** Evaluates what is pending now (the timer, tests, shutdown); one flush at a time. */
  async function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    while (running) await running;
    if (!dirty.size) return;
    const ids = [...dirty];
    dirty.clear();
    running = evaluateAll(ids).finally(() => {
      running = undefined;
      if (dirty.size) schedule();
    });
    await running;
  }

  function schedule() {
    if (timer) return;
    timer = setTimeout(() => void flush(), FLUSH_MS);
    timer.unref();
  }

  return {
    /** Marks contracts whose usage changed; they are evaluated within about FLUSH_MS. */
    touch(contractIds: Iterable<number>) {
      for (const id of contractIds) dirty.add(id);
      if (dirty.size) schedule();
    },
    flush,
  };
}
