/**
 * `npm run dgi:testing -- --empresa <id> [--cantidad 50] [--dry-run]`: DGI's "Prueba de Testing"
 * (BRIEF 13) for a company that has its certificate and CAE ranges (issue 47; src/modules/dgi-testing).
 * Issues ≥ 50 of each of 101, 102, 103, 111, 112, 113, follows each to DGI's verdict, sends that
 * day's daily report and follows it to DGI's answer, prints progress lines and the report, and
 * stores the report (table dgi_testing_runs, and DATA_DIR/dgi-testing/run-<id>.json).
 * Against the simulated DGI by default; with DGI_MODE=real against DGI's Testing environment, where
 * --dry-run only checks certificate, CAE ranges, addresses and the RUT (with DGI) and sends nothing.
 * Same configuration as `npm start` (DATA_DIR, DATABASE_URL, DGI_*). With the embedded database and
 * the in-process simulator, stop the service first (they live under DATA_DIR); otherwise point
 * DATABASE_URL and DGI_SIMULATOR_URL at the ones the service uses.
 * Exit code: 0 requirements met (or dry run passed), 2 set run but requirements not met, 1 not ready or failed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfigOrExit } from '../src/config.js';
import { createLogger } from '../src/platform/logger.js';
import { startProcess } from '../src/bootstrap.js';
import { startJobRunner } from '../src/platform/jobs/runner.js';
import type { TestingReport } from '../src/modules/dgi-testing/dgi-testing.report.js';

const { values } = parseArgs({
  options: {
    empresa: { type: 'string' },
    cantidad: { type: 'string', default: '50' },
    'dry-run': { type: 'boolean', default: false },
  },
});
const companyId = Number(values.empresa);
const cantidad = Number(values.cantidad);
if (!Number.isInteger(companyId) || companyId <= 0 || !Number.isInteger(cantidad) || cantidad <= 0) {
  console.error('uso: npm run dgi:testing -- --empresa <id> [--cantidad 50] [--dry-run]');
  process.exit(1);
}

const config = loadConfigOrExit();
const logger = createLogger(config);
const runtime = await startProcess(config, logger);
const { app, modules } = await buildApp({ config, logger, ...runtime });
// The submission worker and its wake-up, as `npm start` runs them in-process.
const runner = await startJobRunner({ pool: runtime.database.pool, jobs: modules.jobs, cron: modules.cron, concurrency: config.worker.concurrency, logger });
await modules.services.dgiSubmissionWaker.start();

let code = 1;
try {
  console.log(`Prueba de Testing DGI: empresa ${companyId}, ${cantidad} por tipo, destino ${config.dgi.mode === 'real' ? 'DGI Testing' : 'simulador'}${values['dry-run'] ? ' (solo verificación previa)' : ''}`);
  if (cantidad < 50) console.log(`Atención: DGI exige al menos 50 "Recibido" por tipo; con ${cantidad} la prueba no cumple el requisito.`);
  const stamp = () => new Date().toISOString().slice(11, 19);
  const run = await modules.services.dgiTesting.run(companyId, { cantidad, dryRun: values['dry-run'], onProgress: (line) => console.log(line.includes('\n') ? `\n${line}` : `[${stamp()}] ${line}`) });
  const dir = path.join(config.dataDir, 'dgi-testing');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `run-${run.id}.json`);
  fs.writeFileSync(file, JSON.stringify(run, null, 2));
  console.log(`\nReporte guardado: dgi_testing_runs id ${run.id}, ${file}`);
  const report = run.reporte as Partial<TestingReport> | null;
  if (run.estado === 'completado') code = values['dry-run'] || report?.requisitosCumplidos ? 0 : 2;
} catch (err) {
  console.error(`dgi:testing falló: ${(err as Error).message}`);
} finally {
  await modules.services.dgiSubmissionWaker.stop();
  await runner.stop();
  await app.close();
  await runtime.close();
}
process.exit(code);
