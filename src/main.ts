/** API process: config → database (embedded by default) → app → listen; closes gracefully. */
import { buildApp } from './app.js';
import { loadConfigOrExit } from './config.js';
import { startJobRunner, type JobRunner } from './platform/jobs/runner.js';
import { createLogger } from './platform/logger.js';
import { startProcess } from './bootstrap.js';
import { watchParent } from './platform/lifecycle.js';

async function main() {
  const config = loadConfigOrExit();
  const logger = createLogger(config);
  const runtime = await startProcess(config, logger);
  const { app, modules } = await buildApp({ config, logger, ...runtime });

  const admin = await modules.services.users.ensureFirstAdmin(config.auth.adminUser, config.auth.adminPassword);
  if (admin.created) {
    const pw = admin.generatedPassword ? `password (shown only once): ${admin.generatedPassword}` : 'password from ADMIN_PASSWORD';
    console.log(`\nFirst administrator created: ${admin.email} / ${pw}\n`);
  } else if (config.auth.adminPassword) {
    logger.warn({ adminUser: config.auth.adminUser }, 'ADMIN_PASSWORD ignored: the database already has users, and it only sets the first administrator on an empty database; change passwords through POST /api/auth/recuperarClave, or start on a fresh data directory (README "Starting from a fresh data directory")');
  }

  let runner: JobRunner | undefined;
  if (config.worker.inProcess) {
    runner = await startJobRunner({ pool: runtime.database.pool, jobs: modules.jobs, cron: modules.cron, concurrency: config.worker.concurrency, logger });
    await runtime.fleet?.attachJobPool(runner.poolId, runtime.database.pool);
    await modules.services.webhookEngine.start();
    await modules.services.dgiSubmissionWaker.start();
    // A fresh install syncs DGI's registry of electronic issuers now, not at the next :17 (issue 42 point 7).
    await modules.services.receivedCfeMailboxWatcher.start();
    if (await modules.services.issuerRegistry.queueInitialSync()) logger.info('registry of electronic issuers never synced: sync queued at startup');
  }

  // Every process that ingests takes over a dead process's pending rule evaluations (evaluation-queue.ts).
  modules.services.contractRulesQueue.start();
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
      await modules.services.contractRulesQueue.stop();
      await runner?.stop();
      if (config.worker.inProcess) await modules.services.webhookEngine.stop();
      await modules.services.receivedCfeMailboxWatcher.stop();
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
  if (config.underNpm) watchParent(() => void shutdown('npm exited'));
}

main().catch((err) => {
  console.error('Startup failed:', err instanceof Error ? err.message : err);
  process.exit(1);
});
