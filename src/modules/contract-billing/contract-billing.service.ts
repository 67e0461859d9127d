/**
 * Contract billing terms, state and history (issue 34 points 2-3). A contract of issue 33 is
 * addressed by its id; each use case loads it through the usage service (another company's
 * contract answers 404) and keeps its terms in contract_terms.
 */
import { Decimal } from 'decimal.js';
import type { Actor } from '../../platform/http/actor.js';
import { allowedActions } from '../contract-rules/contract-states.js';
import { observedValue, type UsageRule } from '../contract-rules/usage-rules.js';
import type { UsageService } from '../usage/usage.service.js';
import { billingErrors as E } from './contract-billing.errors.js';
import * as repo from './contract-billing.repository.js';
import { evaluateContract, observe, type EvaluationDeps } from './contract-evaluation.js';
import { currentPeriod, localMidnight, periodFrom } from './periods.js';
import { addDays, isCalendarDate, uyToday } from '../../lib/dates.js';
import type { PeriodCloseService } from './period-close.service.js';

export interface TermsInput {
  idVersionListaPrecios?: number; codigoListaPrecios?: string; diaAncla: number; tipoCfe: 101 | 111;
  codComercio: string; codTerminal: string; formaPago: 1 | 2; reglas: Array<Omit<UsageRule, 'levantamiento'> & { levantamiento: UsageRule['levantamiento'] }>;
}
export const billingActions = ['activar', 'suspender', 'reanudar', 'cancelar', 'finalizar', 'levantar'] as const;
export type BillingAction = (typeof billingActions)[number];

const termsView = (t: repo.TermsRow) => ({
  idContrato: t.contractId, idVersionListaPrecios: t.priceBookVersionId, codigoListaPrecios: t.priceBookCode, diaAncla: t.anchorDay, tipoCfe: t.cfeType,
  codComercio: t.codComercio, codTerminal: t.codTerminal, formaPago: t.paymentTerm, reglas: t.rules as unknown as Array<Record<string, unknown>>, periodoAbierto: t.openPeriodStart,
  periodoAbiertoHasta: periodFrom(t.openPeriodStart, t.anchorDay).hasta, alertaCierre: t.closeAlert,
});

export function periodView(p: repo.PeriodRow, notes: repo.NoteRow[]) {
  const lateOpen = p.lateUsageAt !== null && (p.lateCorrectedAt === null || p.lateCorrectedAt < p.lateUsageAt);
  return {
    desde: p.periodStart, hasta: p.periodEnd, estado: p.status, idCfeEmitido: p.issuedCfeId, total: p.total, moneda: p.rating?.moneda ?? null, error: p.error,
    cerradoEn: p.closedAt?.toISOString() ?? null,
    usoTardio: p.lateUsageAt ? { ultimoEvento: p.lateUsageAt.toISOString(), pendienteDeCorregir: lateOpen, corregidoEn: p.lateCorrectedAt?.toISOString() ?? null } : null,
    notas: notes.map((n) => ({ tipo: n.kind, idCfeEmitido: n.issuedCfeId, monto: n.amount, en: n.createdAt.toISOString() })),
  };
}

export function createContractBillingService(deps: EvaluationDeps & { usageService: UsageService; close: Pick<PeriodCloseService, 'terminate'> }) {
  const { db } = deps;
  const clock = () => deps.now?.() ?? new Date();

  function checkRules(reglas: TermsInput['reglas'], metricCodes: string[]) {
    const ids = reglas.map((r) => r.id);
    if (new Set(ids).size !== ids.length) throw E.CONDICIONES_INVALIDAS('Dos reglas tienen el mismo id.');
    for (const r of reglas) {
      if (r.objetivo === 'unidades' && !r.metrica) throw E.CONDICIONES_INVALIDAS(`La regla ${r.id} mide unidades: indique metrica.`);
      if (r.objetivo === 'monto' && r.metrica) throw E.CONDICIONES_INVALIDAS(`La regla ${r.id} mide el monto del período: no lleva metrica.`);
      if (r.metrica && !metricCodes.includes(r.metrica)) throw E.CONDICIONES_INVALIDAS(`La regla ${r.id} usa la métrica ${r.metrica}, que el contrato no mide.`, { metricas: metricCodes });
    }
  }

  async function loadWithTerms(actor: Actor, id: number, role: 'lectura' | 'emisor') {
    const contract = await deps.usageService.loadContract(actor, id, role);
    const terms = await repo.findTerms(db, id);
    if (!terms) throw E.CONTRATO_SIN_CONDICIONES();
    return { contract, terms };
  }

  return {
    /** Evaluates the contract's rules at `now` (the evaluation job does this after each batch). */
    evaluate: (id: number, now = clock()) => evaluateContract(deps, id, { kind: 'rules' }, now),

    /**
     * Sets the terms. On a contract that already has terms, each field applies as the OpenAPI of PUT
     * terms says (issue 40 point 2): diaAncla closes the open period short (periodFrom), the rest
     * applies to the open period's CFE. The first period starts on the contract's start day, also
     * in the past: the close then bills every period since (issue 40 point 7).
     */
    async setTerms(actor: Actor, id: number, input: TermsInput, now = clock()) {
      const contract = await deps.usageService.loadContract(actor, id, 'emisor');
      const view = await deps.usageService.getContract(actor, id);
      if ((input.idVersionListaPrecios === undefined) === (input.codigoListaPrecios === undefined)) {
        throw E.CONDICIONES_INVALIDAS('Indique idVersionListaPrecios (fijar una versión) o codigoListaPrecios (seguir la vigente), uno de los dos.');
      }
      let code = input.codigoListaPrecios;
      if (input.idVersionListaPrecios !== undefined) {
        const v = await deps.priceBooks.versionById(contract.companyId, input.idVersionListaPrecios);
        if (!v) throw E.LISTA_PRECIOS_NO_ENCONTRADA();
        code = v.codigo;
      }
      checkRules(input.reglas, view.metricas);
      const existing = await repo.findTerms(db, id);
      const open = existing?.openPeriodStart ?? uyToday(contract.startsAt);
      const row = await db.transaction(async (tx) => {
        await deps.usage.setAnchorDay(tx, id, input.diaAncla);
        return repo.upsertTerms(tx, {
        contractId: id, companyId: contract.companyId, priceBookVersionId: input.idVersionListaPrecios ?? null, priceBookCode: code!, anchorDay: input.diaAncla,
        cfeType: input.tipoCfe, codComercio: input.codComercio, codTerminal: input.codTerminal, paymentTerm: input.formaPago, rules: input.reglas,
        rulesState: existing?.rulesState ?? { estado: contract.state, periodo: currentPeriod(open, input.diaAncla, now).desde, reglas: {} },
        openPeriodStart: open,
        });
      });
      // New thresholds may already be crossed by the usage counted so far.
      await evaluateContract(deps, id, { kind: 'rules' }, now);
      return termsView(row);
    },

    async getTerms(actor: Actor, id: number) {
      return termsView((await loadWithTerms(actor, id, 'lectura')).terms);
    },

    async state(actor: Actor, id: number, now = clock()) {
      const { contract, terms } = await loadWithTerms(actor, id, 'lectura');
      const period = currentPeriod(terms.openPeriodStart, terms.anchorDay, now);
      const obs = await observe(deps, terms, contract, period);
      const monto = obs.rating?.total ?? '0';
      const samePeriod = terms.rulesState.periodo === period.desde;
      const last = await repo.lastPeriod(db, id);
      const actions = terms.manualSuspension
        ? ['reanudar', 'cancelar']
        : [...allowedActions(contract.state), ...(['activo', 'en_advertencia'].includes(contract.state) ? ['suspender'] : [])];
      return {
        idContrato: id, estado: contract.state, desde: contract.stateSince.toISOString(), motivo: (terms.stateCause ?? null) as Record<string, unknown> | null,
        suspensionManual: terms.manualSuspension,
        periodoAbierto: { desde: period.desde, hasta: period.hasta, inicio: period.start.toISOString(), fin: period.end.toISOString() },
        moneda: obs.rating?.moneda ?? null, idVersionListaPrecios: obs.versionId, uso: obs.usage, montoHastaAhora: obs.rating ? monto : null,
        reglas: terms.rules.map((r) => {
          const st = samePeriod || r.levantamiento === 'manual' ? terms.rulesState.reglas[r.id] : undefined;
          const value = observedValue(r, { unidades: obs.unidades, monto });
          return {
            ...r, valorObservado: value, alcanzada: new Decimal(value).gte(r.umbral),
            estado: st?.estado ?? ('libre' as const), estadoDesde: st?.desde ?? null,
          };
        }),
        acciones: actions,
        ultimoPeriodo: last ? periodView(last, await repo.notesOf(db, id, last.periodStart)) : null,
        alertaCierre: terms.closeAlert,
      };
    },

    /** GET /contracts/{id}/periods: the closed periods, newest first. */
    async periods(actor: Actor, id: number, paging: { start: number; length: number }) {
      await loadWithTerms(actor, id, 'lectura');
      const { data, total } = await repo.listPeriods(db, id, paging);
      return { data: data.map((p) => periodView(p.row, p.notes)), total };
    },

    async history(actor: Actor, id: number, q: { start?: string; end?: string; offset: number; length: number }) {
      await deps.usageService.loadContract(actor, id, 'lectura');
      if (q.start && !isCalendarDate(q.start)) throw E.HISTORIAL_CONSULTA_INVALIDA('start no es una fecha válida (YYYY-MM-DD).');
      if (q.end && !isCalendarDate(q.end)) throw E.HISTORIAL_CONSULTA_INVALIDA('end no es una fecha válida (YYYY-MM-DD).');
      if (q.start && q.end && q.end < q.start) throw E.HISTORIAL_CONSULTA_INVALIDA('end es anterior a start.');
      const { data, total } = await repo.listHistory(db, id, q.start ? localMidnight(q.start) : undefined, q.end ? localMidnight(addDays(q.end, 1)) : undefined, q);
      return {
        data: data.map((h) => ({ id: h.id, estadoAnterior: h.fromState, estadoNuevo: h.toState, en: h.at.toISOString(), motivo: h.cause as unknown as Record<string, unknown> })),
        total, offset: q.offset, length: q.length,
      };
    },

    /** Manual actions (issue 34 point 2): each checked against the current state, recorded with the user. */
    async act(actor: Actor, id: number, action: BillingAction, body: { reglas?: string[]; motivo?: string; facturar?: boolean }, now = clock()) {
      const { contract, terms } = await loadWithTerms(actor, id, 'emisor');
      if (body.facturar && action !== 'cancelar' && action !== 'finalizar') throw E.CONTRATO_ACCION_INVALIDA('facturar solo acompaña a cancelar o finalizar.', { accion: action });
      const usuario = actor.email;
      const cause = { tipo: 'manual' as const, usuario, accion: action, reglas: body.reglas ?? [] };
      const state = contract.state;
      const refuse = () => E.CONTRATO_ACCION_INVALIDA(`Un contrato ${state}${terms.manualSuspension ? ' (suspendido a mano)' : ''} no admite la acción ${action}.`, { estado: state, accion: action });
      switch (action) {
        case 'activar':
          if (state !== 'borrador') throw refuse();
          await evaluateContract(deps, id, { kind: 'set', rulesState: 'activo', manualSuspension: false, cause }, now);
          await evaluateContract(deps, id, { kind: 'rules' }, now);
          break;
        case 'suspender':
          if (terms.manualSuspension || !['activo', 'en_advertencia', 'suspendido'].includes(state)) throw refuse();
          await evaluateContract(deps, id, { kind: 'set', manualSuspension: true, cause }, now);
          break;
        case 'reanudar':
          if (!terms.manualSuspension || ['cancelado', 'finalizado'].includes(state)) throw refuse();
          await evaluateContract(deps, id, { kind: 'set', manualSuspension: false, cause }, now);
          break;
        case 'cancelar':
        case 'finalizar': {
          const target = action === 'cancelar' ? 'cancelado' : 'finalizado';
          // A retry of an end with facturar answers the same state and CFE (the period's key makes the CFE once).
          if (body.facturar && state === target) {
            await deps.close.terminate(id, now);
            break;
          }
          if (!allowedActions(state).includes(action)) throw refuse();
          // The open period up to today is claimed first: a crash between the two leaves a contract still
          // active whose retry claims nothing more and then ends it.
          const billed = body.facturar ? await deps.close.terminate(id, now, false) : undefined;
          await evaluateContract(deps, id, { kind: 'set', rulesState: target, manualSuspension: false, cause }, now);
          if (billed) await deps.close.terminate(id, now);
          break;
        }
        case 'levantar':
          if (!['en_advertencia', 'suspendido'].includes(state) || terms.manualSuspension) throw refuse();
          await evaluateContract(deps, id, { kind: 'rules', lift: { usuario, reglas: body.reglas } }, now);
          break;
      }
      return this.state(actor, id, now);
    },
  };
}
export type ContractBillingService = ReturnType<typeof createContractBillingService>;
