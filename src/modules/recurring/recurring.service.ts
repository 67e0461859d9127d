/**
 * Recurring invoicing plans (issue 32): create and edit (versioned; the template is checked with
 * emission's own rules when saved), read, search, history, preview, catalogues. The actions are in
 * recurring.actions.ts, the scheduler in recurring.scheduler.ts. No HTTP knowledge.
 */
import type { Db } from '../../platform/db/client.js';
import { assertCompanyRole, onlyCompanyOf, type Actor } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { companyOfIds } from '../../platform/db/company-of.js';
import { recurringErrors as E } from './recurring.errors.js';
import * as repo from './recurring.repository.js';
import { addDaysTo, firstFutureIndex, localDate, nextPeriods, occurrence, period, zonedInstant } from './recurring.schedule.js';
import type { CreatePlanBody, EditPlanBody, PlanDefinition } from './recurring.schemas.js';
import { moveTo } from './recurring.ledger.js';
import type { KeyedCfe, RecurringPorts, Scheduler } from './recurring.scheduler.js';
import { EDITABLE_STATES, allowedActions } from './recurring.states.js';
import { recurringPlans, type PlanRow, type RunRow } from './recurring.tables.js';
import { catalogos, emissionRequest, PLAN_CFE_TYPES, planView, runView, scheduleOf } from './recurring.view.js';
import { createPlanActions } from './recurring.actions.js';

export interface RecurringDeps {
  db: Db;
  ports: RecurringPorts;
  scheduler: Scheduler;
  /** The clock: every "now" of the module (tests move it; production passes () => new Date()). */
  now: () => Date;
}

const SCHEDULE_FIELDS = ['frecuencia', 'anclaje', 'horaEmision', 'zonaHoraria', 'fechaInicio', 'periodo'] as const;

export function createRecurringService(deps: RecurringDeps) {
  const { db, ports, now } = deps;

  async function loadVisible(actor: Actor, id: number, role: 'lectura' | 'emisor'): Promise<PlanRow> {
    const row = await repo.findPlan(db, id);
    if (!row) throw E.PLAN_NO_ENCONTRADO();
    assertCompanyRole(actor, row.companyId, role, () => E.PLAN_NO_ENCONTRADO());
    return row;
  }

  /** The rules a plan must meet when saved, then the first run's CFE through emission's prepare. */
  async function validate(companyId: number, d: PlanDefinition) {
    if (!(PLAN_CFE_TYPES as readonly number[]).includes(d.plantilla.idDoc.tipoCfe)) throw E.PLAN_TIPO_CFE_NO_PERMITIDO();
    const u = d.frecuencia.unidad;
    if (d.anclaje.diaDelMes !== undefined && u !== 'mes' && u !== 'anio') throw E.PLAN_ANCLAJE_INVALIDO('anclaje.diaDelMes corresponde a frecuencia mes o anio.');
    if (d.anclaje.diaSemana !== undefined && u !== 'semana') throw E.PLAN_ANCLAJE_INVALIDO('anclaje.diaSemana corresponde a frecuencia semana.');
    if (d.fin.tipo === 'fecha' && d.fin.fecha < d.fechaInicio) throw E.PLAN_FIN_INVALIDO();
    const t = d.plantilla.totales as Record<string, unknown> | undefined;
    if (d.politicaAtrasos === 'emitir_uno' && t && Object.keys(t).some((k) => k.startsWith('mnt') || k === 'cantLinDet')) throw E.PLAN_TOTALES_FIJOS();
    const s = scheduleOf(d);
    await ports.prepare(emissionRequest(companyId, d, [period(s, 0)], localDate(now(), d.zonaHoraria)));
  }

  /**
   * Runs still pendiente (or fallido) whose CFE exists under their key: the emission committed and
   * the run's own write is in flight, or its worker crashed before it (the retake writes it within
   * the lease). Shown as what they are, emitido with that CFE, so the history never shows a run
   * without the CFE that exists for it.
   */
  async function settled(rows: RunRow[]): Promise<RunRow[]> {
    const open = rows.filter((r) => (r.resultado === 'pendiente' || r.resultado === 'fallido') && r.idempotencyKey);
    if (!open.length) return rows;
    const found = new Map<number, KeyedCfe>();
    for (const companyId of new Set(open.map((r) => r.companyId))) {
      const ofCompany = open.filter((r) => r.companyId === companyId);
      const cfes = await ports.cfesByKeys(companyId, ofCompany.map((r) => r.idempotencyKey!));
      for (const r of ofCompany) {
        const cfe = cfes.get(r.idempotencyKey!);
        if (cfe) found.set(r.id, cfe);
      }
    }
    return rows.map((r) => {
      const cfe = found.get(r.id);
      return cfe ? { ...r, resultado: 'emitido', cfeId: cfe.id, tipoCfe: cfe.tipoCfe, serie: cfe.serie, numero: cfe.numero, ejecutadaEn: cfe.createdAt, codigo: null, motivo: null, proximoIntento: null } : r;
    });
  }

  async function withDgiStates(rows: Array<{ cfeId: number | null }>) {
    const ids = rows.flatMap((r) => (r.cfeId ? [r.cfeId] : []));
    return ids.length ? ports.dgiStates(ids) : new Map<number, string>();
  }

  async function viewOf(row: PlanRow) {
    const found = (await repo.lastRuns(db, [row.id])).get(row.id);
    const last = found && (await settled([found]))[0];
    const states = last ? await withDgiStates([last]) : new Map();
    return planView(row, last, last?.cfeId ? states.get(last.cfeId) ?? null : null);
  }

  function customerOf(d: PlanDefinition) {
    const r = d.plantilla.receptor as { idCliente?: number; documento?: string } | undefined;
    return { customerId: r?.idCliente ?? null, documentoReceptor: r?.documento ?? null };
  }

  const actions = createPlanActions({ ...deps, loadVisible, viewOf, settled });

  return {
    companyOf: (ids: readonly number[]) => companyOfIds(db, recurringPlans, ids),
    catalogos,
    act: actions.act,
    resumeDue: actions.resumeDue,

    /** crear: a new plan in `borrador`, version 1. */
    async create(actor: Actor, body: CreatePlanBody) {
      const { idEmpresa, ...d } = body;
      assertCompanyRole(actor, idEmpresa, 'emisor');
      await validate(idEmpresa, d);
      const row = await db.transaction((tx) => repo.insertPlan(tx, { companyId: idEmpresa, estado: 'borrador', definicion: d, ...customerOf(d) }, actor.userId || null));
      return viewOf(row);
    },

    /**
     * editar: the fields sent replace the current ones and make a new version; past runs keep the
     * version that produced them. A schedule change applies from the first period that starts after
     * the last run's and whose run time is still ahead (no catch-up is triggered by an edit).
     */
    async edit(actor: Actor, body: EditPlanBody) {
      const { id, ...changes } = body;
      await loadVisible(actor, id, 'emisor');
      const row = await db.transaction(async (tx) => {
        const p = (await repo.lockPlan(tx, id))!;
        if (!EDITABLE_STATES.includes(p.estado)) throw E.PLAN_NO_EDITABLE(undefined, { estadoActual: p.estado, accionesPermitidas: allowedActions(p.estado) });
        const sent = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
        const d = { ...p.definicion, ...sent } as PlanDefinition;
        await validate(p.companyId, d);
        let nextIndex = p.nextIndex;
        // `fin` alone moves nothing: moveTo below finalizes the plan if the new end is already passed.
        const scheduleChanged = SCHEDULE_FIELDS.some((k) => k in sent);
        if (scheduleChanged && p.estado !== 'borrador') {
          const s = scheduleOf(d);
          const last = (await repo.lastRuns(tx, [p.id])).get(p.id);
          let k = 0;
          while (last && occurrence(s, k) <= last.periodoDesde) k++;
          nextIndex = firstFutureIndex(s, k, now());
        }
        const updated = await repo.updatePlan(tx, id, { definicion: d, version: p.version + 1, nextIndex, ...customerOf(d) });
        await repo.insertVersion(tx, updated, actor.userId || null);
        if (p.estado === 'borrador') return updated;
        const events: Parameters<RecurringPorts['recordEvents']>[1] = [];
        const moved = await moveTo(tx, updated, nextIndex, events, 'editar');
        await ports.recordEvents(tx, events);
        return moved;
      });
      return viewOf(row);
    },

    async get(actor: Actor, id: number) {
      const row = await loadVisible(actor, id, 'lectura');
      const versions = await repo.listVersions(db, id);
      return { ...(await viewOf(row)), versiones: versions.map((v) => ({ version: v.version, idUsuario: v.userId, fecha: v.createdAt.toISOString() })) };
    },

    async search(actor: Actor, q: { idEmpresa: number; estado?: string; idCliente?: number; documento?: string; proximaEjecucionDesde?: string; proximaEjecucionHasta?: string }, paging: Paging) {
      assertCompanyRole(actor, q.idEmpresa, 'lectura');
      // The receiver actually billed: a plan may name the customer by idCliente or by document (either finds it by the other).
      const receivers = [];
      if (q.idCliente) {
        const doc = await ports.documentOfCustomer(q.idEmpresa, q.idCliente);
        receivers.push({ customerIds: [q.idCliente], documentos: doc ? [doc] : [] });
      }
      if (q.documento?.trim()) {
        const documento = q.documento.trim();
        receivers.push({ customerIds: await ports.customerIdsByDocument(q.idEmpresa, documento), documentos: [documento] });
      }
      const { rows, total } = await repo.searchPlans(db, q.idEmpresa, {
        estado: q.estado, receivers,
        nextFrom: q.proximaEjecucionDesde ? new Date(q.proximaEjecucionDesde) : undefined, nextTo: q.proximaEjecucionHasta ? new Date(q.proximaEjecucionHasta) : undefined,
      }, paging);
      const last = new Map((await settled([...(await repo.lastRuns(db, rows.map((r) => r.id))).values()])).map((r) => [r.planId, r]));
      const states = await withDgiStates([...last.values()]);
      return { data: rows.map((r) => { const l = last.get(r.id); return planView(r, l, l?.cfeId ? states.get(l.cfeId) ?? null : null); }), total };
    },

    /** reporte-historial: every run, newest first, with the CFE's current DGI state. */
    async history(actor: Actor, query: { idEmpresa?: number; idPlan?: number; resultado?: string; desde?: string; hasta?: string }, paging: Paging) {
      let idEmpresa = query.idEmpresa;
      if (idEmpresa === undefined) {
        idEmpresa = onlyCompanyOf(actor);
        if (idEmpresa === undefined) throw E.PLAN_EMPRESA_REQUERIDA();
      }
      const q = { ...query, idEmpresa };
      assertCompanyRole(actor, q.idEmpresa, 'lectura');
      const zone = 'America/Montevideo';
      const page = await repo.history(db, q.idEmpresa, {
        planId: q.idPlan, resultado: q.resultado,
        from: q.desde ? zonedInstant(q.desde, '00:00', zone) : undefined, to: q.hasta ? zonedInstant(addDaysTo(q.hasta, 1), '00:00', zone) : undefined,
      }, paging);
      // A run settled as emitido no longer matches a resultado=pendiente/fallido filter (the ledger row catches up within seconds).
      const all = await settled(page.rows);
      const rows = q.resultado ? all.filter((r) => r.resultado === q.resultado) : all;
      const total = page.total - (all.length - rows.length);
      const states = await withDgiStates(rows);
      return { data: rows.map((r) => runView(r, r.cfeId ? states.get(r.cfeId) ?? null : null)), total };
    },

    /** The next N run dates and the CFE the next run would issue (emission's prepare: nothing numbered). */
    async preview(actor: Actor, id: number, cantidad: number) {
      const p = await loadVisible(actor, id, 'lectura');
      const s = scheduleOf(p.definicion);
      const live = p.estado === 'activo' || p.estado === 'pausado' || p.estado === 'borrador';
      const next = live ? nextPeriods(s, p.estado === 'borrador' ? 0 : p.nextIndex, cantidad) : [];
      const ejecuciones = next.map((x) => ({ periodoDesde: x.desde, periodoHasta: x.hasta, programadaPara: x.programadaPara.toISOString(), fechaEmision: localDate(x.programadaPara, s.zonaHoraria) }));
      if (!next.length) return { idPlan: id, ejecuciones, proximoCfe: null, errorProximoCfe: null };
      // The next run's own date, unless it is beyond what emission accepts today (60 days ahead, BRIEF 2.1).
      const t0 = now().getTime();
      const planned = next[0].programadaPara.getTime();
      const at = new Date(planned > t0 && planned < t0 + 59 * 86_400_000 ? planned : t0);
      try {
        const prepared = await ports.prepare(emissionRequest(p.companyId, p.definicion, [next[0]], localDate(at, s.zonaHoraria)));
        // The whole CFE: the signed part (DGI names) plus its Adenda, the unsigned text that travels with it (CFE_Adenda).
        return { idPlan: id, ejecuciones, proximoCfe: { ...prepared.draft, Adenda: prepared.adenda ?? null }, errorProximoCfe: null };
      } catch (err) {
        const e = err as { code?: string; message: string };
        if (!e.code) throw err;
        return { idPlan: id, ejecuciones, proximoCfe: null, errorProximoCfe: { code: e.code, error: e.message } };
      }
    },
  };
}

export type RecurringService = ReturnType<typeof createRecurringService>;
