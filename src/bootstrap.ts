/**
 * What every process of the service (API, worker, demo) does before its modules start: checks that
 * need a module's knowledge run here, so that platform/runtime.ts (database, migrations, mailer)
 * stays free of any module.
 */
import type { AppConfig } from './config.js';
import { resolveMasterKey } from './modules/certificates/certificates.crypto.js';
import { ensureWritableDataDir } from './platform/data-dir.js';
import { readSimulatorState } from './modules/dgi/simulator/state.js';
import { joinFleet, type FleetMember } from './modules/fleet/fleet.service.js';
import type { Logger } from './platform/logger.js';
import { startRuntime, type Runtime } from './platform/runtime.js';

export type ProcessKind = 'api' | 'worker' | 'demo';
export type ProcessRuntime = Runtime & { fleet?: FleetMember };

/**
 * Refuses what only works inside one process when the API and the jobs run in separate processes
 * (issue 45): the in-process DGI simulator keeps its state in memory and in a file under DATA_DIR
 * that only one process may write, so the API and the worker would each meet a different DGI.
 */
export function assertSingleProcessFeatures(config: AppConfig, kind: ProcessKind): void {
  const separate = kind === 'worker' || (kind === 'api' && !config.worker.inProcess);
  if (separate && config.dgi.mode === 'simulator' && !config.dgi.simulatorUrl) {
    throw new Error(
      `DGI_MODE=simulator without DGI_SIMULATOR_URL starts a DGI simulator inside this process, which works only when the API runs the jobs itself (WORKER_IN_PROCESS=true, one process). ` +
        `With ${kind === 'worker' ? 'a separate worker (npm run worker)' : 'WORKER_IN_PROCESS=false'} start one simulator for all processes (npm run dgi:simulator -- --state <file>) and set DGI_SIMULATOR_URL in every API and worker process.`,
    );
  }
}

export async function startProcess(config: AppConfig, logger: Logger, kind: ProcessKind = 'api'): Promise<ProcessRuntime> {
  // DATA_DIR first, when anything will be written there (the embedded cluster, the generated JWT
  // secret, the mail outbox, the in-process simulator's state): one line naming the variable and
  // the real reason, before a deeper component fails on it (issue 44 point 4).
  const simulatorInProcess = config.dgi.mode === 'simulator' && !config.dgi.simulatorUrl;
  if (!config.db.url || !config.auth.jwtSecret || !config.mail.smtpUrl || simulatorInProcess) ensureWritableDataDir(config.dataDir);
  // The in-process DGI simulator starts on first use, deep inside a request or job: a damaged state
  // file is reported here, before anything starts, rather than as failing DGI jobs later.
  if (simulatorInProcess) readSimulatorState(config.dgi.simulatorStatePath);
  assertSingleProcessFeatures(config, kind);
  const runtime = await startRuntime(config, logger);
  if (kind === 'demo') return runtime;
  if (!config.mail.smtpUrl && (kind === 'worker' || !config.worker.inProcess)) {
    // Not refused (nothing is lost: every send is recorded in the database), but each process's mails end in its own DATA_DIR.
    logger.warn({ outbox: config.mail.outboxDir }, 'SMTP_URL unset: this process writes its mails to its own DATA_DIR/outbox; set SMTP_URL in every process of a fleet');
  }
  let fleet: FleetMember;
  try {
    fleet = await joinFleet({
      url: runtime.database.url, kind, jwtSecret: runtime.jwtSecret, logger,
      masterKey: resolveMasterKey({ masterKey: config.secrets.masterKey, isProduction: config.isProduction, dataDir: config.dataDir }),
      // Other processes now take this one for dead and hand its jobs out again: stop rather than run them twice.
      onLost: (err) => {
        logger.fatal({ err: err.message }, 'lost the fleet liveness connection to PostgreSQL; exiting');
        process.exit(70);
      },
    });
  } catch (err) {
    await runtime.close();
    throw err;
  }
  return {
    ...runtime,
    fleet,
    async close() {
      await fleet.leave();
      await runtime.close();
    },
  };
}
