/**
 * The scheduler of recurring plans (issue 32 point 3), in two steps that any number of workers may
 * run at once:
 * 1. `claimDue`: locks due active plans (SKIP LOCKED), applies the missed-run policy and writes one
 *    run row per period, key (plan, periodoDesde) UNIQUE, with the emission request frozen in it,
 *    and moves the plan's next index. One transaction per batch: a crash leaves all or nothing.
 * 2. `issueLeased`: leases runs to issue and sends each frozen request to the emission service with
 *    the run key as Idempotency-Key. A second worker, a retry, or a restart after a crash between
 *    numbering and marking the run replays the same key and gets the same CFE: never a second one.
 */
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { AppError } from '../../lib/errors.js';
import type { Logger } from '../../platform/logger.js';
import type { RecordEventInput } from '../events/events.service.js';
import type { IssueCfeBody } from '../issued-cfe/issued-cfe.schemas.js';
import * as repo from './recurring.repository.js';
import { catchUp, duePeriods, localDate, period, withinEnd, type Period } from './recurring.schedule.js';
import { nextRetryAt, type PlanState } from './recurring.states.js';
import type { PlanRow, RunRow } from './recurring.tables.js';
import { emissionRequest, planView, runKey, runView, scheduleOf } from './recurring.view.js';

/** What the scheduler needs from other modules (wired in modules/index.ts). */
export interface RecurringPorts {
  /** Emission's own preparation (rules, receiver, totals), nothing numbered: validation and preview. */
  prepare(body: IssueCfeBody): Promise<{ draft: unknown; fecha: string }>;
  /** emitir with an Idempotency-Key. */
  emit(body: IssueCfeBody, idempotencyKey: string): Promise<{ view: { id: number; tipoCfe: number; serie: string; numero: number }; replayed: boolean }>;
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
  /** How long a worker holds a run it is issuing before another may take it. */
  leaseMs: number;
}

export const DEFAULT_SCHEDULER_SETTINGS: SchedulerSettings = { claimBatch: 200, concurrency: 64, leaseMs: 5 * 60_000 };

export function stateEvent(p: PlanRow, from: PlanState, accion: string): RecordEventInput {
  return { type: 'PlanRecurrente.EstadoCambiado', companyId: p.companyId, resource: { idPlan: p.id, estadoAnterior: from, estado: p.estado, accion, version: p.version } };
}

/**
 * Writes the run rows of the given periods of one plan (locked by the caller) and returns the new
 * rows to issue. `groups` are the CFEs (one or several periods each); `skip` the omitted periods.
 */
export async function writeRuns(tx: DbOrTx, p: PlanRow, now: Date, work: { emit: Period[][]; skip: Period[] }, origen: string, motivoSkip: string): Promise<RunRow[]> {
  const d = p.definicion;
  const fecha = localDate(now, d.zonaHoraria);
  const base = { planId: p.id, companyId: p.companyId, version: p.version, origen };
  await repo.insertRuns(tx, work.skip.map((x) => ({
    ...base, periodIndex: x.k, periodoDesde: x.desde, periodoHasta: x.hasta, programadaPara: x.programadaPara, resultado: 'omitido' as const, motivo: motivoSkip, ejecutadaEn: now,
  })));
  const issued: RunRow[] = [];
  for (const group of work.emit) {
    const first = group[0];
    const last = group[group.length - 1];
    const [main] = await repo.insertRuns(tx, [{
      ...base, periodIndex: first.k, periodoDesde: first.desde, periodoHasta: last.hasta, periodos: group.length, programadaPara: last.programadaPara,
      resultado: 'pendiente', proximoIntento: now, idempotencyKey: runKey(p.id, first.desde), request: emissionRequest(p.companyId, d, group, fecha),
      correo: d.envioEmail.activo ? { destinatarios: d.envioEmail.destinatarios } : null,
    }]);
    if (!main) continue; // the key exists: another scheduler wrote it
    issued.push(main);
    await repo.insertRuns(tx, group.slice(1).map((x) => ({
      ...base, periodIndex: x.k, periodoDesde: x.desde, periodoHasta: x.hasta, programadaPara: x.programadaPara, resultado: 'acumulado' as const, acumuladaEn: main.id,
      motivo: `Facturado en la ejecución del período ${first.desde} (politicaAtrasos emitir_uno).`,
    })));
  }
  return issued;
}

/** Moves the plan to index `next`: its next run time, or `finalizado` past the end. */
export async function moveTo(tx: DbOrTx, p: PlanRow, next: number, events: RecordEventInput[], accion: string): Promise<PlanRow> {
  const s = scheduleOf(p.definicion);
  if (!withinEnd(s, next)) {
    const row = await repo.updatePlan(tx, p.id, { nextIndex: next, nextRunAt: null, estado: 'finalizado', pausedUntil: null });
    events.push(stateEvent(row, p.estado, accion));
    return row;
  }
  return repo.updatePlan(tx, p.id, { nextIndex: next, nextRunAt: p.estado === 'activo' ? period(s, next).programadaPara : null });
}

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
        for (const p of plans) {
          const due = duePeriods(scheduleOf(p.definicion), p.nextIndex, now);
          if (!due.length) {
            await moveTo(tx, p, p.nextIndex, events, 'programada');
            continue;
          }
          await writeRuns(tx, p, now, catchUp(p.definicion.politicaAtrasos, due), 'programada', 'Período atrasado omitido (politicaAtrasos omitir).');
          await moveTo(tx, p, due[due.length - 1].k + 1, events, 'fin');
        }
        await ports.recordEvents(tx, events);
        return plans.length;
      });
      total += n;
      if (n < settings.claimBatch) return total;
    }
  }

  /** Issues one leased run and records the outcome (only while the run is still pending or failed). */
  async function issueRun(run: RunRow, now: Date): Promise<RunRow | undefined> {
    let outcome: Awaited<ReturnType<RecurringPorts['emit']>>;
    try {
      outcome = await ports.emit(run.request as IssueCfeBody, run.idempotencyKey!);
    } catch (err) {
      const appErr = err instanceof AppError ? err : undefined;
      if (!appErr) deps.logger?.warn({ runId: run.id, err: (err as Error).message }, 'recurring run failed');
      const intento = run.intento + 1;
      return db.transaction(async (tx) => {
        const row = await repo.finishRun(tx, run.id, {
          resultado: 'fallido', codigo: appErr?.code ?? 'ERROR_INTERNO', motivo: (err as Error).message.slice(0, 2000),
          intento, proximoIntento: nextRetryAt(intento, now), ejecutadaEn: now,
        });
        if (row) await ports.recordEvents(tx, [{ type: 'PlanRecurrente.EjecucionFallida', companyId: row.companyId, resource: runView(row) }]);
        return row;
      });
    }
    const { view } = outcome;
    const cfe = { cfeId: view.id, tipoCfe: view.tipoCfe, serie: view.serie, numero: view.numero };
    const row = await db.transaction(async (tx) => {
      const done = await repo.finishRun(tx, run.id, { resultado: 'emitido', ...cfe, ejecutadaEn: now, intento: run.intento + 1, codigo: null, motivo: null, proximoIntento: null });
      if (!done) return undefined; // another worker recorded it (same CFE, by the key)
      if (done.periodos > 1) await repo.foldedInto(tx, run.id, cfe);
      await ports.recordEvents(tx, [{ type: 'PlanRecurrente.EjecucionEmitida', companyId: done.companyId, resource: runView(done) }]);
      return done;
    });
    if (row?.correo && ports.sendMail) {
      // Best effort: the CFE stands without the mail; a refusal (no customer e-mail) is logged.
      await ports.sendMail(row.companyId, view.id, row.correo.destinatarios).catch((err: Error) =>
        deps.logger?.warn({ runId: row.id, err: err.message }, 'recurring CFE mail not queued'));
    }
    return row;
  }

  /** Step 2: issues leased runs until none is left due. Returns how many were attempted. */
  async function issueLeased(now: Date, opts: { runId?: number } = {}): Promise<number> {
    let total = 0;
    for (;;) {
      const runs = await repo.leaseWork(db, now, new Date(now.getTime() + settings.leaseMs), settings.concurrency * 4, opts.runId);
      if (!runs.length) return total;
      total += runs.length;
      let i = 0;
      const lane = async () => {
        while (i < runs.length) await issueRun(runs[i++], now);
      };
      await Promise.all(Array.from({ length: Math.min(settings.concurrency, runs.length) }, lane));
      if (opts.runId) return total;
    }
  }

  return {
    claimDue,
    issueLeased,
    /** One scheduler pass: auto-resume is the service's; this claims and issues. */
    async tick(now: Date) {
      const plans = await claimDue(now);
      const runs = await issueLeased(now);
      return { plans, runs };
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
export { planView };
