/**
 * Recurring plans bench (issue 32 point 6): 10,000 active monthly plans of several companies, all
 * due at the same minute; one scheduler pass (what the `recurring_tick` job runs) is timed until every
 * run is issued, then the database is checked for exactly one CFE per plan. Target: under 30 s.
 * Prints wall time, plans/s, the process CPU time per plan (process.cpuUsage) and the machine's busy
 * share (a shared machine makes wall time noisy). Setup (not timed): one plan per company created and
 * validated through the API, then copied with SQL up to the total.
 * `npm run bench -- --recurring`, or standalone `npx tsx --v8-pool-size=1 bench/recurring.ts`.
 * Env: BENCH_RECURRING_PLANS (10000), BENCH_RECURRING_COMPANIES (5), BENCH_RECURRING_WORKERS (1:
 * N schedulers race on the same due runs, as N worker processes would), BENCH_RECURRING_BASELINE (1: afterwards the
 * same CFEs are issued again straight through emission, new keys, as a back-to-back reference; 0 = skip).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { completeRut, isValidRut } from '../src/lib/rut.js';
import { companies } from '../src/modules/companies/companies.tables.js';
import { setUpIssuer } from '../src/modules/issued-cfe/issued-cfe.test-setup.js';
import { planBody } from '../src/modules/recurring/recurring.test-helpers.js';
import { connectDatabase } from '../src/platform/db/client.js';
import { createLogger } from '../src/platform/logger.js';
import { createMailer } from '../src/platform/mailer.js';
import { machineReport, machineSnapshot } from './cpu.js';
import { openBenchDatabase } from './support.js';

const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789';
const ADMIN = { usuario: 'bench@bench.uy', clave: 'bench-password-1' };

export async function runRecurringBench(opts: { plans?: number; companies?: number; workers?: number } = {}) {
  const total = opts.plans ?? Number(process.env.BENCH_RECURRING_PLANS ?? 10_000);
  const companyCount = opts.companies ?? Number(process.env.BENCH_RECURRING_COMPANIES ?? 5);
  const workers = Math.max(1, opts.workers ?? Number(process.env.BENCH_RECURRING_WORKERS ?? 1));
  // The clock: plans start on the 1st of next month, due at 06:00 in Montevideo; the pass runs at 06:00:30.
  const d = new Date(Date.now() - 3 * 3600_000);
  const first = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
  let clock = new Date();
  const dbh = await openBenchDatabase('bench_recurring');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-recurring-data-'));
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: dbh.url, DATA_DIR: dataDir, JWT_SECRET, LOG_LEVEL: 'silent', DB_POOL_MAX: '20', AUTH_RATE_LIMIT_PER_MINUTE: '100000' });
  const logger = createLogger(config);
  const database = connectDatabase(dbh.url, { max: config.db.poolMax });
  const mailer = createMailer(config.mail, logger);
  const { app, modules } = await buildApp({ config, logger, database, mailer, jwtSecret: JWT_SECRET, now: () => clock });
  const db = database.db;
  try {
    await modules.services.users.ensureFirstAdmin(ADMIN.usuario, ADMIN.clave);
    const token = (await app.inject({ method: 'POST', url: '/api/auth/login', payload: ADMIN })).json().accessToken as string;
    const call = async (tk: string, method: string, url: string, body?: unknown) => {
      const r = await app.inject({ method: method as 'POST', url, payload: body as object, headers: { authorization: `Bearer ${tk}` } });
      return { status: r.statusCode, body: r.json() };
    };
    const ids: number[] = [];
    for (let i = 0; i < companyCount; i++) {
      let rut = '';
      for (let k = 0; !isValidRut(rut); k++) rut = completeRut(String(21223456000 + i * 7919 + k)) ?? '';
      const [company] = await db.insert(companies).values({ rut, razonSocial: `Bench Recurrente ${i + 1} S.A.` }).returning();
      await setUpIssuer(db, call, token, company, { size: 1_000_000 });
      ids.push(company.id);
      const created = await call(token, 'POST', '/api/v1/facturacionrecurrente/crear', planBody(company.id, { fechaInicio: first, anclaje: { diaDelMes: 1 } }));
      if (created.status !== 201) throw new Error(`crear: ${created.status} ${JSON.stringify(created.body)}`);
      const active = await call(token, 'POST', `/api/v1/facturacionrecurrente/activar/${created.body.id}`);
      if (active.status !== 200) throw new Error(`activar: ${active.status} ${JSON.stringify(active.body)}`);
      const copies = Math.floor(total / companyCount) + (i < total % companyCount ? 1 : 0) - 1;
      await db.execute(sql`
        insert into recurring_plans (company_id, estado, version, definicion, customer_id, documento_receptor, next_index, next_run_at)
        select company_id, estado, version, definicion, customer_id, documento_receptor, next_index, next_run_at
        from recurring_plans, generate_series(1, ${copies}) where id = ${created.body.id}`);
    }
    await db.execute(sql`insert into recurring_plan_versions (plan_id, company_id, version, definicion) select id, company_id, version, definicion from recurring_plans p where not exists (select 1 from recurring_plan_versions v where v.plan_id = p.id)`);
    await db.execute(sql`vacuum analyze recurring_plans`);
    const [{ due }] = (await db.execute<{ due: string }>(sql`select count(*) as due, min(next_run_at) as at from recurring_plans where estado = 'activo'`)).rows;
    clock = new Date(new Date(`${first}T09:00:30Z`).getTime());
    console.log(`${due} plans of ${companyCount} companies due at ${clock.toISOString()}; ${workers} scheduler(s)`);

    const cpu0 = process.cpuUsage();
    const m0 = machineSnapshot();
    const t0 = performance.now();
    const sched = modules.services.recurringScheduler;
    await Promise.all(Array.from({ length: workers }, () => sched.tick(clock)));
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const machine = machineReport(m0, machineSnapshot());

    const [check] = (await db.execute<{ runs: string; issued: string; cfes: string; keys: string; plans_with_one: string }>(sql`
      select (select count(*) from recurring_runs) as runs,
             (select count(*) from recurring_runs where resultado = 'emitido') as issued,
             (select count(*) from issued_cfes where idempotency_key like 'recurrente-%') as cfes,
             (select count(distinct idempotency_key) from issued_cfes where idempotency_key like 'recurrente-%') as keys,
             (select count(*) from (select p.id from recurring_plans p join recurring_runs r on r.plan_id = p.id join issued_cfes c on c.id = r.cfe_id group by p.id having count(*) = 1) x) as plans_with_one`)).rows;
    // Back-to-back reference on the same machine and database: the same CFEs issued straight through
    // emission (64 in flight, new keys), without the scheduler. The difference is the scheduler's cost.
    let baselineSeconds: number | undefined;
    if (process.env.BENCH_RECURRING_BASELINE !== '0') {
      const requests = (await db.execute<{ request: unknown; key: string }>(sql`select request, idempotency_key as key from recurring_runs order by id`)).rows;
      const b0 = performance.now();
      let i = 0;
      const lane = async () => {
        while (i < requests.length) {
          const r = requests[i++];
          await modules.services.issuedCfe.emit(r.request as never, `${r.key}-baseline`);
        }
      };
      await Promise.all(Array.from({ length: 64 }, lane));
      baselineSeconds = Number(((performance.now() - b0) / 1000).toFixed(2));
    }
    const figures = {
      plans: Number(due), companies: companyCount, workers, seconds: Number(seconds.toFixed(2)), plansPerSecond: Math.round(Number(due) / seconds),
      cpuMsPerPlan: Number(((cpu.user + cpu.system) / 1000 / Number(due)).toFixed(3)), machineBusyPct: machine.busy,
      runs: Number(check.runs), issued: Number(check.issued), cfes: Number(check.cfes), distinctKeys: Number(check.keys), plansWithExactlyOneCfe: Number(check.plans_with_one),
      onePerPlan: Number(check.cfes) === Number(due) && Number(check.keys) === Number(due) && Number(check.plans_with_one) === Number(due),
      under30s: seconds < 30,
      emissionOnlySeconds: baselineSeconds,
    };
    console.log(JSON.stringify(figures, null, 2));
    return figures;
  } finally {
    await app.close();
    mailer.close();
    await database.close();
    await dbh.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runRecurringBench();
  process.exit(0);
}
