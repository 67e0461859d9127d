/** Worker process (`npm run worker`): the same modules, running queued jobs and cron; no HTTP. */
import { loadConfigOrExit } from './config.js';
import { createModules } from './modules/index.js';
import { startJobRunner } from './platform/jobs/runner.js';
import { createLogger } from './platform/logger.js';
import { startProcess } from './bootstrap.js';
import { watchParent } from './platform/lifecycle.js';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config);
  const runtime = await startProcess(config, logger, 'worker');
  const modules = createModules({ config, logger, ...runtime });
  const runner = await startJobRunner({ pool: runtime.database.pool, jobs: modules.jobs, cron: modules.cron, concurrency: config.worker.concurrency, logger });
  await runtime.fleet?.attachJobPool(runner.poolId, runtime.database.pool);
  await modules.services.webhookEngine.start();
  await modules.services.dgiSubmissionWaker.start();
  // Every process that runs jobs also takes over a dead process's pending rule evaluations (evaluation-queue.ts).
  modules.services.contractRulesQueue.start();
  await modules.services.receivedCfeMailboxWatcher.start();
  // A fresh install syncs DGI's registry of electronic issuers now, not at the next :17 (issue 42 point 7).
  if (await modules.services.issuerRegistry.queueInitialSync()) logger.info('registry of electronic issuers never synced: sync queued at startup');
  console.log('Worker running.');
  const shutdown = async () => {
    await runner.stop();
    await modules.services.contractRulesQueue.stop();
    await modules.services.webhookEngine.stop();
    await modules.services.dgiSubmissionWaker.stop();
    await modules.services.receivedCfeMailboxWatcher.stop();
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
  if (config.underNpm) watchParent(() => void shutdown());
}

main().catch((err) => {
  console.error('Worker failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
