/**
 * Usage rules of a contract (issue 34 point 2), evaluated as a pure function: the rules, the state
 * left by the previous evaluation and the values observed now give the next state, the state
 * transitions with their cause, and the rule crossings to notify. The caller stores the state and
 * the transitions (status history) and raises event 8 for each transition in the same transaction.
 *
 * A rule is reached when the observed value (a metric's units in the open period, or the period's
 * amount rated so far) is ≥ its threshold. A reached rule stays reached (latched) even if the value
 * later drops, until it is lifted:
 * - `reinicioPeriodo`: when the observation belongs to another period than the stored state;
 * - `manual` (any rule, whatever its `levantamiento`): an operator's lift, which holds until the
 *   period changes (the rule does not fire again in that period); a `manual` rule is lifted by
 *   nothing else, not even a new period.
 * The state follows the reached rules: `suspendido` if a `suspender` rule is reached, else
 * `en_advertencia` if an `advertir` rule is, else `activo`. `notificar` rules only report a crossing.
 * The full state machine, with the manual states, is in contract-states.ts.
 */
import { Decimal } from 'decimal.js';
import { isRuleState, type ContractState, type RuleState } from './contract-states.js';

export const ruleActions = ['notificar', 'advertir', 'suspender'] as const;
export type RuleAction = (typeof ruleActions)[number];
export const ruleLifts = ['reinicioPeriodo', 'manual'] as const;
export type RuleLift = (typeof ruleLifts)[number];

export interface UsageRule {
  /** Stable id of the rule within its contract (recorded in causes and history). */
  id: string;
  /** `unidades` of `metrica` in the open period, or the period's rated `monto`. */
  objetivo: 'unidades' | 'monto';
  metrica?: string;
  /** Decimal string; reached when observed ≥ umbral. */
  umbral: string;
  accion: RuleAction;
  levantamiento: RuleLift;
}

export interface RuleStatus {
  estado: 'alcanzada' | 'levantada';
  /** ISO instant of the crossing or of the lift. */
  desde: string;
  /** The observed value at the crossing. */
  valor: string;
}

export interface RulesState {
  estado: ContractState;
  /** Key of the period the state belongs to (e.g. its first day, YYYY-MM-DD). */
  periodo: string;
  /** Only rules that are reached or lifted; a rule absent here is free. */
  reglas: Record<string, RuleStatus>;
}

export interface Observation {
  periodo: string;
  /** Units per metric code in the open period (decimal strings); a missing metric counts 0. */
  unidades: Record<string, string>;
  /** The period's amount rated so far (decimal string). */
  monto: string;
  /** ISO instant of the observation. */
  en: string;
}

export type TransitionCause =
  | { tipo: 'regla'; regla: string; accion: RuleAction; objetivo: UsageRule['objetivo']; metrica?: string; umbral: string; valorObservado: string }
  | { tipo: 'periodo'; periodoAnterior: string; periodoNuevo: string }
  | { tipo: 'manual'; usuario: string; reglas: string[]; accion?: string }
  /** The contract's end date (`fin`) fell inside the period just closed: it is finalizado. */
  | { tipo: 'fin'; fin: string };

export interface Transition {
  desde: ContractState;
  hacia: ContractState;
  en: string;
  causa: TransitionCause;
}

/** A rule reached by this observation (notify it, whatever its action). */
export interface RuleCrossing {
  regla: string;
  accion: RuleAction;
  umbral: string;
  valorObservado: string;
  en: string;
}

export interface RulesEvaluation {
  state: RulesState;
  transiciones: Transition[];
  alcanzadas: RuleCrossing[];
  /** Rules lifted by this evaluation (period change or manual). */
  levantadas: string[];
}

/** An operator's lift: the given rules, or every reached rule when `reglas` is absent. */
export interface ManualLift {
  usuario: string;
  reglas?: string[];
}

const SEVERITY: Record<RuleAction, number> = { notificar: 0, advertir: 1, suspender: 2 };

/** The state the reached rules put the contract in. */
export function stateFromRules(rules: readonly UsageRule[], reglas: Record<string, RuleStatus>): RuleState {
  let worst = 0;
  for (const r of rules) if (reglas[r.id]?.estado === 'alcanzada') worst = Math.max(worst, SEVERITY[r.accion]);
  return worst === 2 ? 'suspendido' : worst === 1 ? 'en_advertencia' : 'activo';
}

/** The observed value a rule compares with its threshold. */
export function observedValue(rule: UsageRule, obs: Pick<Observation, 'unidades' | 'monto'>): string {
  return rule.objetivo === 'monto' ? obs.monto : obs.unidades[rule.metrica ?? ''] ?? '0';
}

/**
 * Evaluates `rules` for `observed` after `previous`, with an optional manual lift applied first.
 * Outside activo/en_advertencia/suspendido (borrador, cancelado, finalizado) nothing changes.
 * Order within one call: period change, then manual lift, then crossings; each step that changes
 * the state adds one transition, so history reads as it happened.
 */
export function evaluateRules(rules: readonly UsageRule[], previous: RulesState, observed: Observation, lift?: ManualLift): RulesEvaluation {
  if (!isRuleState(previous.estado)) return { state: previous, transiciones: [], alcanzadas: [], levantadas: [] };
  const byId = new Map(rules.map((r) => [r.id, r]));
  // Rules removed from the contract stop counting.
  const reglas: Record<string, RuleStatus> = Object.fromEntries(Object.entries(previous.reglas).filter(([id]) => byId.has(id)));
  const transiciones: Transition[] = [];
  const levantadas: string[] = [];
  let estado: ContractState = previous.estado;
  const settle = (causa: TransitionCause) => {
    const next = stateFromRules(rules, reglas);
    if (next !== estado) transiciones.push({ desde: estado, hacia: next, en: observed.en, causa });
    estado = next;
  };

  if (observed.periodo !== previous.periodo) {
    for (const [id, s] of Object.entries(reglas)) {
      if (s.estado === 'levantada' || byId.get(id)!.levantamiento === 'reinicioPeriodo') {
        delete reglas[id];
        if (s.estado === 'alcanzada') levantadas.push(id);
      }
    }
    settle({ tipo: 'periodo', periodoAnterior: previous.periodo, periodoNuevo: observed.periodo });
  }

  if (lift) {
    const lifted = Object.keys(reglas).filter((id) => reglas[id]!.estado === 'alcanzada' && (!lift.reglas || lift.reglas.includes(id)));
    for (const id of lifted) reglas[id] = { ...reglas[id]!, estado: 'levantada', desde: observed.en };
    levantadas.push(...lifted);
    settle({ tipo: 'manual', usuario: lift.usuario, reglas: lifted });
  }

  const alcanzadas: RuleCrossing[] = [];
  for (const rule of rules) {
    if (reglas[rule.id]) continue;
    const value = observedValue(rule, observed);
    if (new Decimal(value).lt(rule.umbral)) continue;
    reglas[rule.id] = { estado: 'alcanzada', desde: observed.en, valor: value };
    alcanzadas.push({ regla: rule.id, accion: rule.accion, umbral: rule.umbral, valorObservado: value, en: observed.en });
  }
  if (alcanzadas.length) {
    // The cause is the crossing that set the new state: the most severe one (the first in rule order on a tie).
    const top = alcanzadas.reduce((a, b) => (SEVERITY[b.accion] > SEVERITY[a.accion] ? b : a));
    const rule = byId.get(top.regla)!;
    settle({ tipo: 'regla', regla: rule.id, accion: rule.accion, objetivo: rule.objetivo, ...(rule.metrica ? { metrica: rule.metrica } : {}), umbral: rule.umbral, valorObservado: top.valorObservado });
  }
  return { state: { estado, periodo: observed.periodo, reglas }, transiciones, alcanzadas, levantadas };
}
