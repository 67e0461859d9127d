/**
 * One sandbox clock for every scheduler (issue 40 point 5, issue 41 point 6). The operator moves the
 * process's scheduling clock (platform/clock.ts) and each scheduler runs one pass at the new time, as
 * its cron would: recurring plans (resume paused plans whose `hasta` passed, claim and issue due
 * runs) and contract period closes (re-queue stalled periods, claim the due ones, issue them now).
 * The daily report (reporte diario) does not follow it: it reports to DGI the CFEs signed on a real
 * calendar day, and emission dates stay real, so a simulated day would report nothing true.
 */
import type { ShiftableClock } from '../../platform/clock.js';

export interface ClockSchedulers {
  recurring(at: Date): Promise<{ reanudados: number; planes: number; ejecuciones: number }>;
  contracts(at: Date): Promise<{ reencolados: number; periodosCerrados: number; emitidos: number; alertas: Array<{ contractId: number; alerta: string }> }>;
}

export function createSandboxClockService(deps: { clock: ShiftableClock; schedulers: ClockSchedulers }) {
  const { clock } = deps;
  return {
    now: () => ({ ahora: clock.now().toISOString(), desplazado: clock.shifted() }),
    /** Sets the clock (null: back to the real one) and runs every scheduler once at that time. */
    async move(ahora: Date | null) {
      if (ahora === null) clock.reset();
      else clock.set(ahora);
      const at = clock.now();
      const recurring = await deps.schedulers.recurring(at);
      const contracts = await deps.schedulers.contracts(at);
      return {
        ahora: at.toISOString(), ...recurring,
        contratos: { ...contracts, alertas: contracts.alertas.map((a) => ({ idContrato: a.contractId, alerta: a.alerta })) },
      };
    },
  };
}
export type SandboxClockService = ReturnType<typeof createSandboxClockService>;
