/** API process: config → database (embedded by default) → app → listen; closes gracefully. */
import { buildApp } from './app.js';
import { loadConfigOrExit } from './config.js';
import { startJobRunner, type JobRunner } from './platform/jobs/runner.js';
import { createLogger } from './platform/logger.js';
import { startProcess } from './bootstrap.js';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config);
  const runtime = await startProcess(config, logger);
  const { app, modules } = await buildApp({ config, logger, ...runtime });

  const admin = await modules.services.users.ensureFirstAdmin(config.auth.adminUser, config.auth.adminPassword);
  if (admin.created) {
    const pw = admin.generatedPassword ? `password (shown only once): ${admin.generatedPassword}` : 'password from ADMIN_PASSWORD';
    console.log(`\nFirst administrator created: ${admin.email} / ${pw}\n`);
  }

  let runner: JobRunner | undefined;
  if (config.worker.inProcess) {
    runner = await startJobRunner({ pool: runtime.database.pool, jobs: modules.jobs, cron: modules.cron, concurrency: config.worker.concurrency, logger });
    await runtime.fleet?.attachJobPool(runner.poolId, runtime.database.pool);
    await modules.services.webhookEngine.start();
    await modules.services.dgiSubmissionWaker.start();
  }

  const address = await app.listen({ port: config.http.port, host: config.http.host });
  console.log(`API listening on ${address} (OpenAPI: ${address}/openapi.json, docs: ${address}/docs)`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.http.shutdownTimeoutMs);
    timer.unref();
    try {
      await app.close();
      await runner?.stop();
      if (config.worker.inProcess) await modules.services.webhookEngine.stop();
      await modules.services.dgiSubmissionWaker.stop();
      await runtime.close();
      logger.info('shutdown complete');
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  console.error('Startup failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
