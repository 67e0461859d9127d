/**
 * Contract state as usage arrives (issue 34 points 2-3): observes the open period's usage (rollups)
 * and its amount rated against the pinned prices, runs the pure rule evaluator
 * (contract-rules/usage-rules.ts), and in ONE transaction, under the terms row's lock, stores the new
 * rules state, the contract's state (usage_contracts, through the usage port), one history row per
 * transition and event 8 `Contrato.EstadoCambiado` with the same cause. Manual actions go through
 * the same path, so their history and events read the same way.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { evaluateRules, type ManualLift, type RuleCrossing, type RulesState, type Transition, type TransitionCause } from '../contract-rules/usage-rules.js';
import type { EventsService } from '../events/events.service.js';
import type { PriceBooksService, PriceBookVersionView } from '../price-books/price-books.service.js';
import { ratePeriod, type RatingResult } from '../price-books/rating.js';
import type { UsageBillingPort } from '../usage/usage.billing-port.js';
import type { ContractState } from '../usage/usage.tables.js';
import * as repo from './contract-billing.repository.js';
import { periodUsage } from './period-usage.js';
import { currentPeriod, type Period } from './periods.js';


export interface Observed {
  period: Period;
  usage: Array<{ metrica: string; dimensiones?: Record<string, string>; cantidad: string }>;
  unidades: Record<string, string>;
  rating: RatingResult | null;
  versionId: number | null;
}

export interface EvaluationDeps {
  db: Db; usage: UsageBillingPort; priceBooks: PriceBooksService; events: EventsService;
  /** Pinned versions by id: versions are immutable, so evaluations after each batch need not read them again. */
  versions?: Map<number, PriceBookVersionView>;
  /** The scheduling clock (platform/clock.ts; the sandbox moves it). Default the system's. */
  now?: () => Date;
}

/** The price-book version that prices a period: the pinned one, or the code's version in force on the period's first day. */
export async function versionFor(deps: EvaluationDeps, terms: repo.TermsRow, periodStart: string) {
  if (terms.priceBookVersionId) {
    const cached = deps.versions?.get(terms.priceBookVersionId);
    if (cached && cached.idEmpresa === terms.companyId) return cached;
    const v = await deps.priceBooks.versionById(terms.companyId, terms.priceBookVersionId);
    if (v && deps.versions) {
      if (deps.versions.size >= 10_000) deps.versions.clear();
      deps.versions.set(terms.priceBookVersionId, v);
    }
    return v;
  }
  return deps.priceBooks.versionInForce(terms.companyId, terms.priceBookCode, periodStart);
}

/** Usage so far in the period containing `now`, per metric as its prices group it (period-usage.ts), and rated. */
export async function observe(deps: EvaluationDeps, terms: repo.TermsRow, contract: { id: number; metricIds: number[] }, period: Period): Promise<Observed> {
  const version = await versionFor(deps, terms, period.desde);
  const { usage, unidades } = await periodUsage(deps.usage, contract, period.start, period.end, version?.precios);
  return { period, usage, unidades, rating: version ? ratePeriod(version, usage) : null, versionId: version?.id ?? null };
}

export type StateChange =
  | { kind: 'rules'; lift?: ManualLift }
  /** A manual action: the state the rules leave (activar, cancelar) and whether an operator holds the contract suspended. */
  | { kind: 'set'; rulesState?: ContractState; manualSuspension: boolean; cause: TransitionCause };

/** Writes transitions: history rows, the contract's state and event 8 per transition, in `tx`. */
async function record(deps: EvaluationDeps, tx: DbOrTx, terms: Pick<repo.TermsRow, 'contractId' | 'companyId'>, transitions: Transition[]) {
  if (!transitions.length) return;
  const last = transitions[transitions.length - 1]!;
  await deps.usage.setState(tx, terms.contractId, last.hacia, new Date(last.en));
  await recordHistory(deps, tx, terms, transitions);
}

/** History rows and event 8 of transitions whose state is already written (by `record`, or by usage's PATCH). */
export async function recordHistory(deps: Pick<EvaluationDeps, 'events'>, tx: DbOrTx, terms: Pick<repo.TermsRow, 'contractId' | 'companyId'>, transitions: Transition[]) {
  await repo.insertHistory(tx, transitions.map((t) => ({
    contractId: terms.contractId, companyId: terms.companyId, fromState: t.desde, toState: t.hacia, at: new Date(t.en), cause: t.causa,
  })));
  for (const t of transitions) {
    await deps.events.record(tx, {
      type: 'Contrato.EstadoCambiado', companyId: terms.companyId,
      resource: { idContrato: terms.contractId, estadoAnterior: t.desde, estadoNuevo: t.hacia, en: t.en, motivo: t.causa },
    });
  }
}

/**
 * Event `Contrato.ReglaAlcanzada` (issue 40 point 3) for each rule this evaluation found reached,
 * whatever its action (a `notificar` rule does nothing else). Raised in the transaction that stores
 * the rule as reached under the terms row's lock: a reached rule stays latched until a new period
 * (or a lift, which holds until the period changes), so each rule is notified at most once per period.
 */
async function recordCrossings(deps: Pick<EvaluationDeps, 'events'>, tx: DbOrTx, terms: repo.TermsRow, period: Period, crossings: RuleCrossing[]) {
  for (const c of crossings) {
    const rule = terms.rules.find((r) => r.id === c.regla);
    await deps.events.record(tx, {
      type: 'Contrato.ReglaAlcanzada', companyId: terms.companyId,
      resource: {
        idContrato: terms.contractId, regla: c.regla, accion: c.accion, objetivo: rule?.objetivo ?? null, metrica: rule?.metrica ?? null,
        umbral: c.umbral, valorObservado: c.valorObservado, periodo: { desde: period.desde, hasta: period.hasta }, en: c.en,
      },
    });
  }
}

/**
 * Evaluates one contract now (or applies a manual change) and stores the outcome. Answers the
 * transitions recorded. Contracts without terms, or in borrador/cancelado/finalizado, do not move by rules.
 */
export async function evaluateContract(deps: EvaluationDeps, contractId: number, change: StateChange = { kind: 'rules' }, now = deps.now?.() ?? new Date()): Promise<Transition[]> {
  const pre = await repo.findTerms(deps.db, contractId);
  const contract = await deps.usage.contract(contractId);
  if (!pre || !contract) return [];
  // The observation is read before the lock (it reads rollups); a batch that commits meanwhile queues another evaluation.
  const observed = change.kind === 'rules' ? await observe(deps, pre, contract, currentPeriod(pre.openPeriodStart, pre.anchorDay, now)) : undefined;
  if (observed && change.kind === 'rules' && !change.lift) {
    // Most evaluations after a batch change nothing: answered without a transaction or a write.
    const prev: RulesState = { ...pre.rulesState, estado: pre.manualSuspension ? pre.rulesState.estado : contract.state };
    const ev = evaluateRules(pre.rules, prev, { periodo: observed.period.desde, unidades: observed.unidades, monto: observed.rating?.total ?? '0', en: now.toISOString() });
    // (Key order differs once stored as jsonb: compared deeply.)
    if (!ev.transiciones.length && isDeepStrictEqual(ev.state, pre.rulesState)) return [];
  }
  return deps.db.transaction(async (tx) => {
    const terms = (await repo.findTerms(tx, contractId, true))!;
    const current = await deps.usage.contract(contractId);
    const state = current!.state;
    if (change.kind === 'set') {
      const rulesState: RulesState = { ...terms.rulesState, estado: change.rulesState ?? terms.rulesState.estado };
      const next = change.manualSuspension ? 'suspendido' : rulesState.estado;
      await repo.updateTerms(tx, contractId, { rulesState, manualSuspension: change.manualSuspension, stateCause: change.cause });
      const transitions = next !== state ? [{ desde: state, hacia: next, en: now.toISOString(), causa: change.cause }] : [];
      await record(deps, tx, terms, transitions);
      return transitions;
    }
    const period = observed?.period ?? currentPeriod(terms.openPeriodStart, terms.anchorDay, now);
    const obs = observed ?? await observe(deps, terms, current!, period);
    // The contract's own state is the truth (usage's PATCH may have activated or cancelled it), except under a manual suspension.
    const rulesPrev: RulesState = { ...terms.rulesState, estado: terms.manualSuspension ? terms.rulesState.estado : state };
    const ev = evaluateRules(terms.rules, rulesPrev, { periodo: period.desde, unidades: obs.unidades, monto: obs.rating?.total ?? '0', en: now.toISOString() }, change.lift);
    const lastCause = ev.transiciones.at(-1)?.causa;
    await repo.updateTerms(tx, contractId, { rulesState: ev.state, ...(lastCause && !terms.manualSuspension ? { stateCause: lastCause } : {}) });
    await recordCrossings(deps, tx, terms, period, ev.alcanzadas);
    // An operator's suspension holds whatever the rules say: their transitions are kept in rulesState only.
    const transitions = (terms.manualSuspension ? [] : ev.transiciones.filter((t) => t.desde !== t.hacia))
      .map((t) => (t.causa.tipo === 'manual' ? { ...t, causa: { ...t.causa, accion: 'levantar' } } : t));
    if (transitions.length && transitions[0]!.desde !== state) transitions[0] = { ...transitions[0]!, desde: state };
    await record(deps, tx, terms, transitions);
    return transitions;
  });
}
