/** Worker process (`npm run worker`): the same modules, running queued jobs and cron; no HTTP. */
import { loadConfigOrExit } from './config.js';
import { createModules } from './modules/index.js';
import { startJobRunner } from './platform/jobs/runner.js';
import { createLogger } from './platform/logger.js';
import { startProcess } from './bootstrap.js';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config);
  const runtime = await startProcess(config, logger, 'worker');
  const modules = createModules({ config, logger, ...runtime });
  const runner = await startJobRunner({ pool: runtime.database.pool, jobs: modules.jobs, cron: modules.cron, concurrency: config.worker.concurrency, logger });
  await runtime.fleet?.attachJobPool(runner.poolId, runtime.database.pool);
  await modules.services.webhookEngine.start();
  await modules.services.dgiSubmissionWaker.start();
  console.log('Worker running.');
  const shutdown = async () => {
    await runner.stop();
    await modules.services.webhookEngine.stop();
    await modules.services.dgiSubmissionWaker.stop();
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

main().catch((err) => {
  console.error('Worker failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
