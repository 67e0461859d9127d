/**
 * The actions of `POST /api/v1/facturacionrecurrente/{accion}/{id}` (issue 32 point 2). Each locks
 * the plan, checks the transition (409 with estadoActual and accionesPermitidas when refused),
 * writes the change and its events in one transaction. emitirAhora and reintentar then issue the
 * run at once through the scheduler's issuing step, so the answer carries the CFE.
 */
import type { Db, DbOrTx } from '../../platform/db/client.js';
import type { Actor } from '../../platform/http/actor.js';
import type { RecordEventInput } from '../events/events.service.js';
import { recurringErrors as E } from './recurring.errors.js';
import { queueTick } from './recurring.jobs.js';
import * as repo from './recurring.repository.js';
import { firstIndexFrom, localDate, period, withinEnd } from './recurring.schedule.js';
import { moveTo, stateEvent, writeRuns } from './recurring.ledger.js';
import type { RecurringPorts, Scheduler } from './recurring.scheduler.js';
import { ACTIONS, allowedActions, canTake, isPlanAction, type PlanAction } from './recurring.states.js';
import type { PlanRow, RunRow } from './recurring.tables.js';
import { emissionRequest, runKey, runView, scheduleOf } from './recurring.view.js';

export interface ActionBody {
  hasta?: string;
  politicaReanudacion?: 'omitir' | 'recuperar';
  motivo?: string;
  periodoDesde?: string;
}

interface Deps {
  db: Db;
  ports: RecurringPorts;
  scheduler: Scheduler;
  now: () => Date;
  loadVisible(actor: Actor, id: number, role: 'lectura' | 'emisor'): Promise<PlanRow>;
  viewOf(row: PlanRow): Promise<unknown>;
  settled(rows: RunRow[]): Promise<RunRow[]>;
}

export function createPlanActions(deps: Deps) {
  const { db, ports, scheduler, now } = deps;

  /**
   * Back to `activo` from `at`, the instant the pause ends: now for reanudar, `hasta` for the
   * automatic resume (however late a scheduler pass notices it: the service may have been down).
   * omitir: the periods planned before `at` fell inside the pause and are recorded as omitido
   * (origen pausa); recuperar: they stay due. The periods planned at or after `at` always stay due:
   * the plan was active when they came, so the next pass handles them by its missed-run policy.
   */
  async function resume(tx: DbOrTx, p: PlanRow, at: Date, politica: 'omitir' | 'recuperar', events: RecordEventInput[], accion: string) {
    const s = scheduleOf(p.definicion);
    let next = p.nextIndex;
    if (politica === 'omitir') {
      const until = firstIndexFrom(s, p.nextIndex, at);
      const skipped = [];
      for (let k = p.nextIndex; k < until; k++) skipped.push(period(s, k));
      await writeRuns(tx, [{ p, emit: [], skip: skipped, origen: 'pausa', motivoSkip: 'Plan pausado en la fecha de la ejecución.' }], now());
      next = until;
    }
    const active = await repo.updatePlan(tx, p.id, { estado: 'activo', pausedUntil: null, pausePolicy: null });
    events.push(stateEvent(active, p.estado, accion));
    return moveTo(tx, active, next, events, 'fin');
  }

  /** Takes one action inside the transaction; returns the plan and the run to issue now, if any. */
  async function apply(tx: DbOrTx, p: PlanRow, action: PlanAction, body: ActionBody, at: Date, events: RecordEventInput[]): Promise<{ plan: PlanRow; issue?: RunRow }> {
    const s = scheduleOf(p.definicion);
    switch (action) {
      case 'activar': {
        const row = await repo.updatePlan(tx, p.id, { estado: 'activo', nextIndex: 0 });
        events.push(stateEvent(row, p.estado, action));
        return { plan: await moveTo(tx, row, 0, events, 'fin') };
      }
      case 'pausar': {
        const hasta = body.hasta ? new Date(body.hasta) : null;
        if (hasta && hasta <= at) throw E.PAUSA_HASTA_PASADA();
        const row = await repo.updatePlan(tx, p.id, { estado: 'pausado', pausedUntil: hasta, pausePolicy: hasta ? body.politicaReanudacion ?? 'omitir' : null, nextRunAt: null });
        events.push(stateEvent(row, p.estado, action));
        return { plan: row };
      }
      case 'reanudar':
        return { plan: await resume(tx, p, at, body.politicaReanudacion ?? 'omitir', events, action) };
      case 'cancelar': {
        const row = await repo.updatePlan(tx, p.id, { estado: 'cancelado', nextRunAt: null, pausedUntil: null, motivoCancelacion: body.motivo ?? null });
        events.push(stateEvent(row, p.estado, action));
        return { plan: row };
      }
      case 'emitirAhora':
      case 'omitirProxima': {
        if (!withinEnd(s, p.nextIndex)) throw E.SIN_PERIODOS_RESTANTES(undefined, { estadoActual: p.estado, accionesPermitidas: allowedActions(p.estado) });
        const next = period(s, p.nextIndex);
        const work = action === 'emitirAhora' ? { emit: [[next]], skip: [] } : { emit: [], skip: [next] };
        const [issue] = await writeRuns(tx, [{ p, ...work, origen: 'manual', motivoSkip: 'Omitida a pedido (omitirProxima).' }], at);
        if (issue) await scheduler.hold(tx, issue.id);
        return { plan: await moveTo(tx, p, p.nextIndex + 1, events, 'fin'), issue };
      }
      case 'reintentar': {
        if (!body.periodoDesde) throw E.EJECUCION_NO_ENCONTRADA();
        const run = await repo.findRun(tx, p.id, body.periodoDesde);
        if (!run) throw E.EJECUCION_NO_ENCONTRADA();
        if (run.resultado !== 'fallido' && run.resultado !== 'rechazado_dgi') throw E.EJECUCION_NO_REINTENTABLE(undefined, { resultado: run.resultado });
        // The plan's current version (an edit may be the fix), dated today, billing the run's own period(s).
        // A failed run keeps its key (no CFE exists under it; a body that differs from one that does is refused
        // IDEMPOTENCIA_CONFLICTO, never a second CFE). After a DGI rejection the number is spent: a new CFE under a
        // new key (design B.6 point 9).
        const periods = Array.from({ length: run.periodos }, () => ({ k: run.periodIndex, desde: run.periodoDesde, hasta: run.periodoHasta, fechaEjecucion: '', programadaPara: run.programadaPara }));
        const request = emissionRequest(p.companyId, p.definicion, periods, localDate(at, s.zonaHoraria));
        const reissue = run.resultado === 'rechazado_dgi' ? { idempotencyKey: runKey(p.id, run.periodoDesde, run.intento), cfeId: null, serie: null, numero: null, tipoCfe: null } : {};
        const issue = await repo.updateRun(tx, run.id, { ...reissue, request, resultado: 'pendiente', proximoIntento: at, version: p.version });
        await scheduler.hold(tx, issue.id);
        return { plan: p, issue };
      }
    }
  }

  return {
    async act(actor: Actor, accion: string, id: number, body: ActionBody) {
      if (!isPlanAction(accion)) throw E.ACCION_DESCONOCIDA();
      await deps.loadVisible(actor, id, 'emisor');
      const at = now();
      const { plan, issue } = await db.transaction(async (tx) => {
        const p = (await repo.lockPlan(tx, id))!;
        if (!canTake(p.estado, accion)) {
          throw E.TRANSICION_NO_PERMITIDA(`La acción ${accion} no está permitida en el estado ${p.estado} (permitida en: ${ACTIONS[accion].from.join(', ')}).`, { estadoActual: p.estado, accionesPermitidas: allowedActions(p.estado) });
        }
        const events: RecordEventInput[] = [];
        const result = await apply(tx, p, accion, body, at, events);
        await ports.recordEvents(tx, events);
        // A run already due (activar or reanudar over past periods) is issued by a pass queued with the change, not at the next minute tick.
        if (result.plan.estado === 'activo' && result.plan.nextRunAt && result.plan.nextRunAt <= at) await queueTick(tx);
        return result;
      });
      let ejecucion = null;
      if (issue) {
        await scheduler.issueHeld(at, issue.id);
        const found = await repo.getRun(db, issue.id);
        const row = found && (await deps.settled([found]))[0];
        const states = row?.cfeId ? await ports.dgiStates([row.cfeId]) : new Map<number, string>();
        ejecucion = row ? runView(row, row.cfeId ? states.get(row.cfeId) ?? null : null) : null;
      }
      return { ...((await deps.viewOf((await repo.findPlan(db, plan.id))!)) as object), ejecucion };
    },

    /**
     * Plans paused with `hasta` that has come: resumed AT `hasta`, not at `at` (the pass that notices
     * it), so only the runs planned before `hasta` follow the pause's politicaReanudacion.
     */
    async resumeDue(at: Date) {
      let total = 0;
      for (;;) {
        const n = await db.transaction(async (tx) => {
          const plans = await repo.lockPausedToResume(tx, at, 200);
          const events: RecordEventInput[] = [];
          for (const p of plans) await resume(tx, p, p.pausedUntil!, p.pausePolicy ?? 'omitir', events, 'reanudar');
          await ports.recordEvents(tx, events);
          return plans.length;
        });
        total += n;
        if (n < 200) return total;
      }
    },
  };
}
