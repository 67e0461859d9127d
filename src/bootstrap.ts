/**
 * What every process of the service (API, worker, demo) does before its modules start: checks that
 * need a module's knowledge run here, so that platform/runtime.ts (database, migrations, mailer)
 * stays free of any module.
 */
import type { AppConfig } from './config.js';
import { ensureWritableDataDir } from './platform/data-dir.js';
import { readSimulatorState } from './modules/dgi/simulator/state.js';
import type { Logger } from './platform/logger.js';
import { startRuntime, type Runtime } from './platform/runtime.js';

export async function startProcess(config: AppConfig, logger: Logger): Promise<Runtime> {
  // DATA_DIR first, when anything will be written there (the embedded cluster, the generated JWT
  // secret, the mail outbox, the in-process simulator's state): one line naming the variable and
  // the real reason, before a deeper component fails on it (issue 44 point 4).
  const simulatorInProcess = config.dgi.mode === 'simulator' && !config.dgi.simulatorUrl;
  if (!config.db.url || !config.auth.jwtSecret || !config.mail.smtpUrl || simulatorInProcess) ensureWritableDataDir(config.dataDir);
  // The in-process DGI simulator starts on first use, deep inside a request or job: a damaged state
  // file is reported here, before anything starts, rather than as failing DGI jobs later.
  if (simulatorInProcess) readSimulatorState(config.dgi.simulatorStatePath);
  return startRuntime(config, logger);
}
