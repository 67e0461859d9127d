/**
 * What every process of the service (API, worker, demo) does before its modules start: checks that
 * need a module's knowledge run here, so that platform/runtime.ts (database, migrations, mailer)
 * stays free of any module.
 */
import type { AppConfig } from './config.js';
import { readSimulatorState } from './modules/dgi/simulator/state.js';
import type { Logger } from './platform/logger.js';
import { startRuntime, type Runtime } from './platform/runtime.js';

export async function startProcess(config: AppConfig, logger: Logger): Promise<Runtime> {
  // The in-process DGI simulator starts on first use, deep inside a request or job: a damaged state
  // file is reported here, before anything starts, rather than as failing DGI jobs later.
  if (config.dgi.mode === 'simulator' && !config.dgi.simulatorUrl) readSimulatorState(config.dgi.simulatorStatePath);
  return startRuntime(config, logger);
}
