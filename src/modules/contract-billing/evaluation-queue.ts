/**
 * Rule evaluations requested by ingestion (issue 34 point 6: rules must not cost ingestion more
 * than 10 %; issue 45: a process killed with evaluations pending loses none of them).
 *
 * In process: a batch adds its contract ids to a set when it is over; every FLUSH_MS the set is
 * evaluated in this process, EVALUATION_LANES contracts at a time, each once whatever the number of
 * batches that touched it. So a crossing changes the state within about FLUSH_MS plus one evaluation,
 * and a contract receiving hundreds of batches a second is evaluated a few times a second.
 *
 * Durable (rule_evaluation_marks): before a batch's events are stored, `mark` makes sure a mark
 * (contract, this process) exists for each of its contracts that has usage rules, so no commit of
 * events ever precedes its mark. It writes only what this process does not know to be there: a
 * contract it marked less than REFRESH_MS ago and no flush has taken since is skipped, and contracts
 * found without rules are remembered while the invalidation bus is live (topic `contract-rules`, a
 * trigger on contract_terms.rules). So ingestion pays at most one small upsert, for all the batch's
 * unmarked contracts at once, per contract and flush window, not per batch. A flush deletes, after
 * its evaluations, the marks of the contracts it evaluated, naming the generation it saw: a batch
 * marking the contract after the flush began wrote a new generation and keeps its mark. A contract
 * with a batch of this process between mark and end when the flush begins keeps its mark too (that
 * batch may commit after the evaluation read the usage; it touches the contract when it ends, and a
 * later flush deletes the mark). Marks are per process so that one process's delete never takes a
 * mark another process's batches rely on.
 *
 * Takeover: `sweep` takes marks not written for STALE_MS, FOR UPDATE SKIP LOCKED in slices of
 * SWEEP_SLICE, leases them (`marked_at` = now, so two sweeps split them and a sweep that dies leaves
 * them for the next), evaluates them and deletes them. A live process rewrites its marks every
 * REFRESH_MS while batches come and deletes them within a flush, so only a dead process's marks (or
 * a stuck one's: then an evaluation runs twice) get that old: a process killed at t has its marks
 * evaluated by t + STALE_MS + SWEEP_MS + one evaluation (~15 s). The sweep runs on this queue's own
 * timer (`start`) in every process that ingests or runs jobs (main.ts, worker.ts), not as a job:
 * graphile-worker's cron runs at most once a minute, and a job re-queuing itself every 5 s would
 * churn the job table for one statement that any live process can run. Evaluating a contract twice
 * is harmless: evaluations serialise on its terms row, rules latch, and one that changes nothing
 * writes nothing (contract-evaluation.ts).
 *
 * An evaluation that fails is handed to the `contract_rules_evaluate` job (retried by the queue) and
 * its mark deleted; when the job cannot be queued either, the mark stays for the sweep.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../platform/db/client.js';
import type { CacheInvalidation } from '../../platform/db/invalidation.js';
import type { Logger } from '../../platform/logger.js';
import { queueEvaluations } from './contract-billing.jobs.js';
import { contractsWithTerms } from './contract-billing.repository.js';
import { evaluateContract, type EvaluationDeps } from './contract-evaluation.js';
import { claimStaleMarks, deleteMarks, writeMarks, type Mark } from './evaluation-marks.repository.js';

export const FLUSH_MS = 250;
const EVALUATION_LANES = 2;
/** A mark this process wrote longer ago is written again by the next batch (well inside STALE_MS, so a live process's marks never look abandoned). */
const REFRESH_MS = 5_000;
/** A mark not written for this long is a dead (or stuck) process's: any sweep takes it. */
export const STALE_MS = 10_000;
export const SWEEP_MS = 5_000;
const SWEEP_SLICE = 100;
/** The contracts known without rules start again after this, whatever the bus said (the safety net), or beyond NO_RULES_MAX. */
const NO_RULES_TTL_MS = 30_000;
const NO_RULES_MAX = 100_000;

export function createEvaluationQueue(deps: EvaluationDeps & { db: Db; logger: Logger; invalidation?: CacheInvalidation }) {
  /** This process's marks are (contract, owner). */
  const owner = randomUUID();
  const dirty = new Set<number>();
  /** Marks this process wrote and no flush has taken yet: generation and when (before the write). */
  const marked = new Map<number, { generation: string; at: number }>();
  /** Batches between `mark` and their end, per contract. */
  const inFlight = new Map<number, number>();
  /** Mark writes under way, per contract. */
  const writing = new Map<number, Promise<void>>();
  const noRules = new Set<number>();
  let noRulesSince = Date.now();
  // A write that began before terms changed must not keep what it found.
  let rulesChanges = 0;
  deps.invalidation?.subscribe('contract-rules', () => {
    rulesChanges++;
    noRules.clear();
  });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let sweepTimer: NodeJS.Timeout | undefined;
  let sweeping: Promise<number> | undefined;
  let stopped = false;

  /** Writes the marks of `ids` that have rules (one statement) and keeps what it learnt. */
  async function write(ids: number[], now: number): Promise<void> {
    const started = rulesChanges;
    const written = await writeMarks(deps.db, owner, ids);
    for (const w of written) {
      const prev = marked.get(w.contractId);
      // Two writes may cross: the later generation is the mark's.
      if (!prev || BigInt(w.generation) > BigInt(prev.generation)) marked.set(w.contractId, { generation: w.generation, at: now });
    }
    if (started === rulesChanges && deps.invalidation?.live) {
      const withRules = new Set(written.map((w) => w.contractId));
      for (const id of ids) if (!withRules.has(id)) noRules.add(id);
    }
  }

  /** Evaluates contracts; answers those done (evaluated, without terms, or handed to the job). */
  async function evaluateAll(touched: number[]): Promise<Set<number>> {
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
    const done = new Set(touched);
    if (failed.length) {
      await queueEvaluations(deps.db, failed).catch((err: unknown) => {
        for (const id of failed) done.delete(id);
        deps.logger.error({ err, contracts: failed.length }, 'usage rules evaluation not queued; their marks stay for the sweep');
      });
    }
    return done;
  }

  /** Evaluates what is pending now (the timer, tests, shutdown); one flush at a time. */
  async function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    while (running) await running;
    if (!dirty.size) return;
    const ids = [...dirty];
    dirty.clear();
    const consumable: Mark[] = [];
    for (const id of ids) {
      const m = marked.get(id);
      if (!m || inFlight.has(id)) continue;
      // From now on a batch writes the mark again (a new generation, which the delete below leaves).
      marked.delete(id);
      consumable.push({ contractId: id, owner, generation: m.generation });
    }
    running = (async () => {
      const done = await evaluateAll(ids);
      await deleteMarks(deps.db, consumable.filter((m) => done.has(m.contractId)))
        .catch((err: unknown) => deps.logger.warn({ err, marks: consumable.length }, 'evaluated rule marks not deleted; the sweep evaluates them again'));
    })().finally(() => {
      running = undefined;
      if (dirty.size) schedule();
    });
    await running;
  }

  function schedule() {
    if (timer || stopped) return;
    timer = setTimeout(() => void flush(), FLUSH_MS);
    timer.unref();
  }

  function touch(contractIds: Iterable<number>) {
    for (const id of contractIds) dirty.add(id);
    if (dirty.size) schedule();
  }

  /** Takes stale marks (a dead process's) slice by slice, evaluates and deletes them; answers how many were taken. */
  async function sweepOnce(): Promise<number> {
    let taken = 0;
    for (;;) {
      const claimed = await claimStaleMarks(deps.db, STALE_MS / 1000, SWEEP_SLICE);
      taken += claimed.length;
      if (!claimed.length) return taken;
      const done = await evaluateAll([...new Set(claimed.map((m) => m.contractId))]);
      await deleteMarks(deps.db, claimed.filter((m) => done.has(m.contractId)));
      if (claimed.length < SWEEP_SLICE) return taken;
    }
  }

  function sweep(): Promise<number> {
    sweeping ??= sweepOnce().finally(() => (sweeping = undefined));
    return sweeping;
  }

  function scheduleSweep() {
    if (stopped) return;
    sweepTimer = setTimeout(() => {
      sweep()
        .then((n) => n && deps.logger.info({ marks: n }, 'usage rules evaluations of a stopped process taken over'))
        .catch((err: unknown) => deps.logger.error({ err }, 'sweep of rule evaluation marks failed; retried'))
        .finally(scheduleSweep);
    }, SWEEP_MS);
    sweepTimer.unref();
  }

  return {
    /**
     * Before a batch is stored (ingestion's beforeStore): makes sure its contracts with rules are
     * marked. Answers what to call when the batch is over, stored or not: the contracts are then
     * touched (evaluated within about FLUSH_MS, and their marks deleted).
     */
    async mark(contractIds: Iterable<number>): Promise<() => void> {
      const ids = [...new Set(contractIds)];
      // Counted before any await: a flush beginning while the mark is written leaves it.
      for (const id of ids) inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
      let over = false;
      const release = (stored: boolean) => {
        if (over) return;
        over = true;
        for (const id of ids) {
          const n = inFlight.get(id)! - 1;
          if (n) inFlight.set(id, n);
          else inFlight.delete(id);
        }
        if (stored) touch(ids);
      };
      const now = Date.now();
      if (now - noRulesSince > NO_RULES_TTL_MS || noRules.size > NO_RULES_MAX) {
        noRules.clear();
        noRulesSince = now;
      }
      const needed = ids.filter((id) => !noRules.has(id) && !((marked.get(id)?.at ?? -Infinity) > now - REFRESH_MS));
      // A mark another batch of this process is writing now is waited for, not written again.
      const waits = new Set<Promise<void>>();
      const mine = needed.filter((id) => {
        const w = writing.get(id);
        if (w) waits.add(w);
        return !w;
      });
      if (mine.length) {
        const p: Promise<void> = write(mine, now).finally(() => {
          for (const id of mine) if (writing.get(id) === p) writing.delete(id);
        });
        for (const id of mine) writing.set(id, p);
        waits.add(p);
      }
      try {
        if (waits.size) await Promise.all(waits);
      } catch (err) {
        release(false);
        throw err;
      }
      return () => release(true);
    },
    /** Marks contracts whose usage changed, without a durable mark (tests; ingestion goes through `mark`). */
    touch,
    flush,
    sweep,
    /** The takeover sweep every SWEEP_MS (main.ts, worker.ts). */
    start() {
      stopped = false;
      if (!sweepTimer) scheduleSweep();
    },
    /** Stops the sweep and evaluates what is pending (a graceful shutdown leaves no mark behind but those of batches still in flight). */
    async stop() {
      stopped = true;
      clearTimeout(sweepTimer);
      sweepTimer = undefined;
      await sweeping?.catch(() => undefined);
      await flush();
    },
  };
}
export type EvaluationQueue = ReturnType<typeof createEvaluationQueue>;
