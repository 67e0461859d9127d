/**
 * The contract state machine of issue 34 point 2, for whoever wires contracts (issue 33's module)
 * to the rule evaluator (usage-rules.ts). One table: the state, what moves it, and where to.
 *
 * | From                                         | Trigger                                            | To             | Cause recorded         |
 * |----------------------------------------------|----------------------------------------------------|----------------|------------------------|
 * | borrador                                     | activation (manual)                                | activo         | manual, user           |
 * | activo                                       | a `advertir` rule reached                          | en_advertencia | regla, observed value  |
 * | activo, en_advertencia                       | a `suspender` rule reached                         | suspendido     | regla, observed value  |
 * | en_advertencia                               | its rules lifted (period reset or manual)          | activo         | periodo / manual, user |
 * | suspendido                                   | its rules lifted, an `advertir` rule still reached | en_advertencia | periodo / manual, user |
 * | suspendido                                   | its rules lifted, no other rule reached            | activo         | periodo / manual, user |
 * | borrador, activo, en_advertencia, suspendido | cancellation (manual)                              | cancelado      | manual, user           |
 * | activo, en_advertencia, suspendido           | the contract's end date passes                     | finalizado     | fin de contrato        |
 * | activo, en_advertencia, suspendido           | finalizar (manual; with facturar, billed to today) | finalizado     | manual, user           |
 *
 * `cancelado` and `finalizado` are final. Rules are evaluated only in activo, en_advertencia and
 * suspendido (`RULE_STATES`); `notificar` rules never change the state (they raise the event only).
 * A state change by rules is event 8 of the spec (§6), named `Contrato.EstadoCambiado` in the style
 * of `Cfe.Emitido`, with the same cause the status history stores.
 */

export const contractStates = ['borrador', 'activo', 'en_advertencia', 'suspendido', 'cancelado', 'finalizado'] as const;
export type ContractState = (typeof contractStates)[number];

/** The states usage rules move between. */
export const RULE_STATES = ['activo', 'en_advertencia', 'suspendido'] as const;
export type RuleState = (typeof RULE_STATES)[number];

export const FINAL_STATES: ReadonlySet<ContractState> = new Set(['cancelado', 'finalizado']);

/** Manual actions and the states they are allowed from (the `acciones` a contract's state answers). */
export const MANUAL_ACTIONS = {
  activar: ['borrador'],
  cancelar: ['borrador', 'activo', 'en_advertencia', 'suspendido'],
  finalizar: ['activo', 'en_advertencia', 'suspendido'],
  levantar: ['en_advertencia', 'suspendido'],
} as const satisfies Record<string, readonly ContractState[]>;
export type ManualAction = keyof typeof MANUAL_ACTIONS;

export function isRuleState(s: ContractState): s is RuleState {
  return (RULE_STATES as readonly string[]).includes(s);
}

/** The manual actions allowed in `state`. */
export function allowedActions(state: ContractState): ManualAction[] {
  return (Object.keys(MANUAL_ACTIONS) as ManualAction[]).filter((a) => (MANUAL_ACTIONS[a] as readonly string[]).includes(state));
}
