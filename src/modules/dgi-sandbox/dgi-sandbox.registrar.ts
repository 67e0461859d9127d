/**
 * How the cae module tells the simulated DGI about a range it did not issue (importar-manual, a file
 * from elsewhere), so its receipts are not answered E09 (issue 27 point 2). Only in simulator mode;
 * an external simulator (DGI_SIMULATOR_URL) cannot be told, and the import's answer says so.
 */
import type { Logger } from '../../platform/logger.js';
import type { RegisterWithSimulatedDgi } from '../cae/cae.simulated-dgi.js';
import type { DgiSimulatorControl } from '../dgi/dgi.simulator.js';

const HOW_TO_GET_ONE = 'obtenga un CAE con POST /api/v1/sandbox/dgi/cae e impórtelo con POST /api/v1/cae/importar';

export function simulatedDgiRegistrar(opts: {
  mode: 'simulator' | 'real';
  /** The in-process simulator's control; undefined with an external simulator. */
  simulator?: () => Promise<DgiSimulatorControl | undefined>;
  logger: Logger;
}): RegisterWithSimulatedDgi | undefined {
  if (opts.mode !== 'simulator') return undefined;
  return async (range) => {
    const sim = await opts.simulator?.();
    if (!sim) {
      return `El DGI simulado externo (DGI_SIMULATOR_URL) no conoce este rango y rechazará sus comprobantes con E09: inicie el servicio sin DGI_SIMULATOR_URL (simulador interno) y ${HOW_TO_GET_ONE}, o inicie el simulador con --no-cae-check.`;
    }
    try {
      sim.registerCae({ ...range, tipoCfe: String(range.tipoCfe) });
      return undefined;
    } catch (err) {
      // The range is stored; only the simulated DGI failed to learn it (its state file): say what follows.
      opts.logger.error({ err, NA: range.NA }, 'the DGI simulator could not record a CAE range');
      return `El DGI simulado no pudo registrar este rango (${(err as Error).message}) y rechazará sus comprobantes con E09: ${HOW_TO_GET_ONE}.`;
    }
  };
}
