/**
 * The scheduler of recurring plans (issue 32 point 3), in two steps that any number of workers may
 * run at once:
 * 1. `claimDue`: locks due active plans (SKIP LOCKED), applies the missed-run policy and writes one
 *    run row per period, key (plan, periodoDesde) UNIQUE, with the emission request frozen in it,
 *    and moves the plan's next index. One transaction per batch: a crash leaves all or nothing.
 * 2. `issueLeased`: leases runs to issue and sends each frozen request to the emission service with
 *    the run key as Idempotency-Key. A second worker, a retry, or a restart after a crash between
 *    numbering and marking the run replays the same key and gets the same CFE: never a second one.
 *    The lease is short (20 s) and renewed by a heartbeat while the worker lives; a retake pass is
 *    queued at its expiry, so a crashed worker's runs are taken again within ~20 s (issue 41 point 2).
 *    Each outcome is written as it comes (the next write takes all that arrived meanwhile), not at the
 *    end of a batch: a crash leaves pending only the runs whose emission was in flight.
 */
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { AppError } from '../../lib/errors.js';
import type { Logger } from '../../platform/logger.js';
import type { RecordEventInput } from '../events/events.service.js';
import type { IssueCfeBody } from '../issued-cfe/issued-cfe.schemas.js';
import { queueTick } from './recurring.jobs.js';
import { movePlans, writeRuns, type RunWork } from './recurring.ledger.js';
import * as repo from './recurring.repository.js';
import { catchUp, duePeriods } from './recurring.schedule.js';
import { nextRetryAt } from './recurring.states.js';
import type { RunRow } from './recurring.tables.js';
import { runView, scheduleOf } from './recurring.view.js';

export interface KeyedCfe { id: number; tipoCfe: number; serie: string; numero: number; createdAt: Date }

/** What the scheduler needs from other modules (wired in modules/index.ts). */
export interface RecurringPorts {
  /** Emission's own preparation (rules, receiver, totals), nothing numbered: validation and preview. */
  prepare(body: IssueCfeBody): Promise<{ draft: object; fecha: string; adenda?: string }>;
  /** emitir with an Idempotency-Key. */
  emit(body: IssueCfeBody, idempotencyKey: string): Promise<{ view: { id: number; tipoCfe: number; serie: string; numero: number }; replayed: boolean }>;
  /** The CFEs issued under these Idempotency-Keys (run keys) of a company. */
  cfesByKeys(companyId: number, keys: string[]): Promise<Map<string, KeyedCfe>>;
  /** The company's customers with this document (the receiver a plan naming them by idCliente bills). */
  customerIdsByDocument(companyId: number, documento: string): Promise<number[]>;
  /** A customer's document, if the customer is the company's. */
  documentOfCustomer(companyId: number, customerId: number): Promise<string | undefined>;
  /** Current DGI state of issued CFEs. */
  dgiStates(ids: number[]): Promise<Map<number, string>>;
  recordEvents(tx: DbOrTx, inputs: RecordEventInput[]): Promise<void>;
  /** Queues the e-mail of an issued CFE's PDF (cfe-documents). */
  sendMail?(companyId: number, cfeId: number, destinatarios?: string[]): Promise<void>;
}

export interface SchedulerSettings {
  /** Plans locked per claiming transaction. */
  claimBatch: number;
  /** Emissions in flight at once (the emission batcher groups them into shared transactions). */
  concurrency: number;
  /** How long a run leased by a worker that stopped renewing it (crashed) waits before another takes it; renewed every quarter of it. */
  leaseMs: number;
}

export const DEFAULT_SCHEDULER_SETTINGS: SchedulerSettings = { claimBatch: 500, concurrency: 128, leaseMs: 20_000 };

export function createScheduler(deps: { db: Db; ports: RecurringPorts; logger?: Logger; settings?: Partial<SchedulerSettings> }) {
  const { db, ports } = deps;
  const settings = { ...DEFAULT_SCHEDULER_SETTINGS, ...deps.settings };

  /** Step 1: run rows for every due period of every due active plan. Returns how many plans were advanced. */
  async function claimDue(now: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await db.transaction(async (tx) => {
        const plans = await repo.lockDuePlans(tx, now, settings.claimBatch);
        const events: RecordEventInput[] = [];
        const work: RunWork[] = [];
        const moves = plans.map((p) => {
          const due = duePeriods(scheduleOf(p.definicion), p.nextIndex, now);
          if (due.length) work.push({ p, ...catchUp(p.definicion.politicaAtrasos, due), origen: 'programada', motivoSkip: 'Período atrasado omitido (politicaAtrasos omitir).' });
          return { p, next: due.length ? due[due.length - 1].k + 1 : p.nextIndex };
        });
        const written = await writeRuns(tx, work, now);
        // Should this worker die before leasing them, a retake pass issues the new runs after one lease time.
        if (written.length) await queueTick(tx, new Date(Date.now() + settings.leaseMs + 1000));
        await movePlans(tx, moves, events, 'fin');
        await ports.recordEvents(tx, events);
        return plans.length;
      });
      total += n;
      if (n < settings.claimBatch) return total;
    }
  }

  type Outcome = { run: RunRow; ok: true; cfe: { cfeId: number; tipoCfe: number; serie: string; numero: number } } | { run: RunRow; ok: false; err: unknown };

  async function attempt(run: RunRow): Promise<Outcome> {
    try {
      const { view } = await ports.emit(run.request as IssueCfeBody, run.idempotencyKey!);
      return { run, ok: true, cfe: { cfeId: view.id, tipoCfe: view.tipoCfe, serie: view.serie, numero: view.numero } };
    } catch (err) {
      return { run, ok: false, err };
    }
  }

  /**
   * Records the outcomes of a batch of attempts in one transaction (only runs still pending or
   * failed: another worker may have recorded one, with the same CFE by the key). Issued runs in one
   * UPDATE; a failure gets its reason, its attempt and the next retry time.
   */
  async function record(outcomes: Outcome[], now: Date): Promise<RunRow[]> {
    const issued = outcomes.flatMap((o) => (o.ok ? [{ id: o.run.id, ...o.cfe, intento: o.run.intento + 1 }] : []));
    return db.transaction(async (tx) => {
      const events: RecordEventInput[] = [];
      const done = await repo.finishIssued(tx, issued, now);
      for (const row of done) {
        if (row.periodos > 1) await repo.foldedInto(tx, row.id, { cfeId: row.cfeId, tipoCfe: row.tipoCfe, serie: row.serie, numero: row.numero });
        events.push({ type: 'PlanRecurrente.EjecucionEmitida', companyId: row.companyId, resource: runView(row) });
      }
      for (const o of outcomes) {
        if (o.ok) continue;
        const appErr = o.err instanceof AppError ? o.err : undefined;
        if (!appErr) deps.logger?.warn({ runId: o.run.id, err: (o.err as Error).message }, 'recurring run failed');
        const intento = o.run.intento + 1;
        const row = await repo.finishRun(tx, o.run.id, {
          resultado: 'fallido', codigo: appErr?.code ?? 'ERROR_INTERNO', motivo: String((o.err as Error)?.message ?? o.err).slice(0, 2000),
          intento, proximoIntento: nextRetryAt(intento, now), ejecutadaEn: now,
        });
        if (row) {
          done.push(row);
          events.push({ type: 'PlanRecurrente.EjecucionFallida', companyId: row.companyId, resource: runView(row) });
        }
      }
      await ports.recordEvents(tx, events);
      return done;
    });
  }

  async function mail(rows: RunRow[]) {
    if (!ports.sendMail) return;
    for (const row of rows) {
      if (!row.correo || row.resultado !== 'emitido') continue;
      // Best effort: the CFE stands without the mail; a refusal (no customer e-mail) is logged.
      await ports.sendMail(row.companyId, row.cfeId!, row.correo.destinatarios).catch((err: Error) =>
        deps.logger?.warn({ runId: row.id, err: err.message }, 'recurring CFE mail not queued'));
    }
  }

  /**
   * Writes outcomes as they come: one transaction per write, the next taking all that arrived while
   * it ran (a batch under load, a single run when quiet). A recorded run leaves `held`, so the
   * heartbeat stops renewing it. A failed write leaves its runs pending under the lease, retaken
   * after it; the error is thrown by drain().
   */
  function recorder(now: Date, held: Set<number>) {
    let queue: Outcome[] = [];
    let writing: Promise<void> | undefined;
    let failure: unknown;
    const write = async () => {
      while (queue.length) {
        const batch = queue;
        queue = [];
        try {
          const rows = await record(batch, now);
          for (const o of batch) held.delete(o.run.id);
          await mail(rows);
        } catch (err) {
          failure ??= err;
        }
      }
      writing = undefined;
    };
    return {
      push(o: Outcome) {
        queue.push(o);
        writing ??= write();
      },
      async drain() {
        while (writing) await writing;
        if (failure) throw failure;
      },
    };
  }

  /** Keeps the leases of `held` alive and the retake pass just after their expiry; returns the stop function. */
  function heartbeat(held: Set<number>, firstExpiry: Date | null) {
    const retakeAfter = (until: Date | null | undefined) => (until ? queueTick(db, new Date(until.getTime() + 1000)) : Promise.resolve());
    let beating = retakeAfter(firstExpiry).catch((err: Error) => deps.logger?.warn({ err: err.message }, 'recurring retake not queued'));
    const timer = setInterval(() => {
      beating = beating.then(async () => retakeAfter(await repo.renewLeases(db, [...held], settings.leaseMs)))
        .catch((err: Error) => deps.logger?.warn({ err: err.message }, 'recurring lease not renewed'));
    }, Math.max(250, Math.floor(settings.leaseMs / 4)));
    return async () => {
      clearInterval(timer);
      await beating;
    };
  }

  /** Issues runs this worker holds the lease of, recording each outcome as it comes. */
  async function issueBatch(runs: RunRow[], now: Date): Promise<void> {
    const held = new Set(runs.map((r) => r.id));
    const stop = heartbeat(held, new Date(Math.max(...runs.map((r) => r.leaseUntil?.getTime() ?? 0))));
    const rec = recorder(now, held);
    let i = 0;
    const lane = async () => {
      while (i < runs.length) rec.push(await attempt(runs[i++]));
    };
    try {
      await Promise.all(Array.from({ length: Math.min(settings.concurrency, runs.length) }, lane));
      await rec.drain();
    } finally {
      await stop();
    }
  }

  /** Step 2: issues leased runs until none is left due. Returns how many were attempted. */
  async function issueLeased(now: Date): Promise<number> {
    let total = 0;
    for (;;) {
      // Large batches keep the lanes full; each outcome is recorded as soon as it comes.
      const runs = await repo.leaseWork(db, now, settings.leaseMs, settings.concurrency * 16);
      if (!runs.length) return total;
      total += runs.length;
      await issueBatch(runs, now);
    }
  }

  return {
    claimDue,
    issueLeased,
    /**
     * Leases a run written in `tx` to the request writing it (emitirAhora, reintentar): a pass running
     * beside it (the minute tick, an activation's pass) cannot take it between the commit and
     * `issueHeld`, so the answer always carries the run's outcome. Should this process die in
     * between, the retake pass queued here issues it once the lease expires.
     */
    async hold(tx: DbOrTx, runId: number) {
      await repo.holdRun(tx, runId, settings.leaseMs);
      await queueTick(tx, new Date(Date.now() + settings.leaseMs + 1000));
    },
    /** Issues a run leased by `hold` in a committed transaction. */
    async issueHeld(now: Date, runId: number) {
      const run = await repo.getRun(db, runId);
      if (run && (run.resultado === 'pendiente' || run.resultado === 'fallido')) await issueBatch([run], now);
    },
    /**
     * One scheduler pass (the module's tick job also resumes paused plans first): claims due runs and,
     * overlapping with the claim, issues each committed batch, until nothing is left to issue.
     */
    async tick(now: Date) {
      // Passes may overlap (two workers, an activation's pass beside the cron's): claims skip locked
      // plans, each run is leased to one pass, and its run key is the CFE's Idempotency-Key. No
      // fleet-wide lock: it would make a plan activated during another plan's long catch-up wait for it.
      let claiming = true;
      const claimed = claimDue(now).finally(() => {
        claiming = false;
      });
      let runs = 0;
      for (;;) {
        const wasClaiming = claiming;
        const n = await issueLeased(now);
        runs += n;
        if (!wasClaiming && n === 0) break;
        if (n === 0) await new Promise((r) => setTimeout(r, 20));
      }
      return { plans: await claimed, runs };
    },

    /** A DGI rejection (BE) of CFEs: their runs become rechazado_dgi, in the caller's transaction. */
    async markRejected(tx: DbOrTx, rejected: Array<{ issuedCfeId: number; codigo?: string | null; mensaje?: string | null }>) {
      const runs = await repo.issuedRunsOfCfes(tx, rejected.map((r) => r.issuedCfeId));
      const events: RecordEventInput[] = [];
      for (const run of runs) {
        const why = rejected.find((r) => r.issuedCfeId === run.cfeId)!;
        const row = await repo.updateRun(tx, run.id, { resultado: 'rechazado_dgi', codigo: why.codigo ?? null, motivo: why.mensaje ?? 'Rechazado por DGI.' });
        events.push({ type: 'PlanRecurrente.EjecucionFallida', companyId: row.companyId, resource: runView(row, 'rechazado') });
      }
      await ports.recordEvents(tx, events);
    },
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;
