/**
 * States of a recurring plan and the actions of `POST /api/v1/facturacionrecurrente/{accion}/{id}`,
 * as data: the catalogue lists them, the service checks them, a refused action answers 409 with the
 * current state and the actions allowed there (design B.7).
 */
export const planStates = ['borrador', 'activo', 'pausado', 'cancelado', 'finalizado'] as const;
export type PlanState = (typeof planStates)[number];

export const planActions = ['activar', 'pausar', 'reanudar', 'cancelar', 'emitirAhora', 'omitirProxima', 'reintentar'] as const;
export type PlanAction = (typeof planActions)[number];

/** Where each action may be taken, and the state it leads to (undefined = the state does not change). */
export const ACTIONS: Record<PlanAction, { from: readonly PlanState[]; to?: PlanState; description: string }> = {
  activar: { from: ['borrador'], to: 'activo', description: 'Starts the schedule. Periods whose run time is already past are handled by the missed-run policy.' },
  pausar: { from: ['activo'], to: 'pausado', description: 'Stops issuing; body {hasta?, politicaReanudacion?}: active again from that instant (runs before it follow politicaReanudacion, default omitir; runs at or after it follow politicaAtrasos).' },
  reanudar: { from: ['pausado'], to: 'activo', description: 'Resumes; runs that fell inside the pause are recorded as omitido unless body {politicaReanudacion: "recuperar"}.' },
  cancelar: { from: ['borrador', 'activo', 'pausado'], to: 'cancelado', description: 'Ends the plan for good (terminal); body {motivo?}.' },
  emitirAhora: { from: ['activo'], description: 'Issues the next period now, ahead of its date; the anchor does not move.' },
  omitirProxima: { from: ['activo', 'pausado'], description: 'Records the next period as omitido (no CFE); the anchor does not move.' },
  reintentar: { from: ['activo', 'pausado', 'finalizado'], description: 'Retries a failed or DGI-rejected run now; body {periodoDesde}.' },
};

export const EDITABLE_STATES: readonly PlanState[] = ['borrador', 'activo', 'pausado'];

export function isPlanAction(value: string): value is PlanAction {
  return (planActions as readonly string[]).includes(value);
}

export function allowedActions(state: PlanState): PlanAction[] {
  return planActions.filter((a) => ACTIONS[a].from.includes(state));
}

export function canTake(state: PlanState, action: PlanAction): boolean {
  return ACTIONS[action].from.includes(state);
}

/** Results of a run (reporte-historial `resultado`). */
export const runResults = ['pendiente', 'emitido', 'fallido', 'omitido', 'acumulado', 'rechazado_dgi'] as const;
export type RunResult = (typeof runResults)[number];

/** Automatic retries of a failed run: after 15 min, 1 h, 6 h, 24 h; then only `reintentar`. */
const RETRY_DELAYS_MS = [15 * 60_000, 3_600_000, 6 * 3_600_000, 24 * 3_600_000];

export function nextRetryAt(attempt: number, now: Date): Date | null {
  const delay = RETRY_DELAYS_MS[attempt - 1];
  return delay === undefined ? null : new Date(now.getTime() + delay);
}
