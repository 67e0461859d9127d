/**
 * The recurring scheduler in the real service process (src/main.ts with its job runner, the real
 * clock) on a database that outlives it (issue 41): a pause whose `hasta` passes while the service
 * is down, and a kill -9 of the service process in the middle of a catch-up. Slow (real minutes).
 * Times are logged, never asserted; what is asserted is the ledger: every run issued, one CFE each.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { and, eq, like, sql } from 'drizzle-orm';
import { cloneTemplate } from '../../../test/support/app.js';
import { validRut } from '../../../test/support/factories.js';
import { connectDatabase, type Database } from '../../platform/db/client.js';
import { branches, companies, emissionPoints } from '../companies/companies.tables.js';
import { issuedCfes } from '../issued-cfe/issued-cfe.tables.js';
import { addDaysTo } from './recurring.schedule.js';
import { recurringRuns } from './recurring.tables.js';
import { planBody } from './recurring.test-helpers.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const ADMIN = { usuario: 'root@recurrente.uy', clave: 'recurrente-password-1' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let url: string;
let dataDir: string;
let database: Database;
let service: ReturnType<typeof startService> | undefined;
let address: string;
let token: string;
let company: { id: number; rut: string };

/** The service as production runs it (API + job runner in one process), on the shared database and data directory. */
function startService() {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: process.env.TEST_SERVICE_LOG_LEVEL ?? 'warn', DATABASE_URL: url, PORT: '0', DATA_DIR: dataDir, ADMIN_USER: ADMIN.usuario, ADMIN_PASSWORD: ADMIN.clave, WORKER_IN_PROCESS: 'true' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    child, exited, output: () => out,
    async listening() {
      for (const t0 = Date.now(); Date.now() - t0 < 60_000; await sleep(50)) {
        const m = /API listening on (http:\/\/[\d.]+:\d+)/.exec(out);
        if (m) return m[1];
      }
      throw new Error(`service did not start:\n${out}`);
    },
  };
}

async function start() {
  service = startService();
  address = await service.listening();
}

/** kill -9 of the one service process: no shutdown code runs, its leases and locks stay as they were. */
async function crash() {
  service!.child.kill('SIGKILL');
  await service!.exited;
  service = undefined;
}

async function call(tk: string, method: string, p: string, body?: unknown) {
  const r = await fetch(`${address}${p}`, { method, headers: { authorization: `Bearer ${tk}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  return { status: r.status, body: await r.json() as any };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  for (const t0 = Date.now(); Date.now() - t0 < ms; await sleep(250)) {
    const v = await probe();
    if (v !== undefined) return v;
  }
  const jobs = (await database.db.execute(sql`select j.key, j.run_at, j.locked_at, j.attempts, j.max_attempts, j.last_error, now() as db_now from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'recurring_tick'`)).rows;
  const leases = (await database.db.execute(sql`select resultado, count(*) as n, min(lease_until) as min_lease, max(lease_until) as max_lease from recurring_runs group by resultado`)).rows;
  throw new Error(`timed out waiting for ${what}\njobs ${JSON.stringify(jobs)}\nruns ${JSON.stringify(leases)}\n${service?.output() ?? ''}`);
}

const ledger = (planIds: number[]) => database.db.select().from(recurringRuns).where(sql`${recurringRuns.planId} = any(${`{${planIds.join(',')}}`}::int[])`).orderBy(recurringRuns.id);
const cfesOfPlan = (planId: number) => database.db.select({ id: issuedCfes.id, key: issuedCfes.idempotencyKey }).from(issuedCfes)
  .where(and(eq(issuedCfes.companyId, company.id), like(issuedCfes.idempotencyKey, `recurrente-${planId}-%`)));

/** Local date and HH:MM of an instant in Montevideo (the plans' default zone). */
function montevideo(at: Date) {
  const p = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone: 'America/Montevideo', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' }).formatToParts(at).map((x) => [x.type, x.value]));
  return { date: `${p.year}-${p.month}-${p.day}`, hhmm: `${p.hour}:${p.minute}` };
}

async function createActive(body: Record<string, unknown>) {
  const c = await call(token, 'POST', '/api/v1/facturacionrecurrente/crear', body);
  assert.equal(c.status, 201, JSON.stringify(c.body));
  const a = await call(token, 'POST', `/api/v1/facturacionrecurrente/activar/${c.body.id}`);
  assert.equal(a.status, 200, JSON.stringify(a.body));
  return c.body.id as number;
}

before(async () => {
  url = await cloneTemplate();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-recurring-proc-'));
  database = connectDatabase(url, { max: 3 });
  await start();
  const login = await fetch(`${address}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
  token = (await login.json() as { accessToken: string }).accessToken;
  [company] = await database.db.insert(companies).values({ rut: validRut(), razonSocial: 'Recurrente Proceso S.A.' }).returning();
  await setUpSandboxIssuer();
});

/** As an integrator sets up the sandbox: branch C1 + terminal T1, then the simulated DGI's certificate and CAE through the API (its CFEs are accepted by that DGI). */
async function setUpSandboxIssuer() {
  const [branch] = await database.db.insert(branches).values({ companyId: company.id, codComercio: 'C1', nombre: 'Casa Central', direccion: 'Av. 18 de Julio 1234', ciudad: 'Montevideo', departamento: 'Montevideo', codigoCasaDgi: 2 }).returning();
  await database.db.insert(emissionPoints).values({ companyId: company.id, branchId: branch.id, codTerminal: 'T1' });
  const cert = await call(token, 'POST', '/api/v1/sandbox/dgi/certificado', { idEmpresa: company.id });
  assert.equal(cert.status, 201, JSON.stringify(cert.body));
  const imported = await call(token, 'POST', '/api/v1/empresa/importarCertificado', { idEmpresa: company.id, clave: cert.body.clave, archivo: cert.body.archivo, activar: true });
  assert.equal(imported.status, 201, JSON.stringify(imported.body));
  const cae = await call(token, 'POST', '/api/v1/sandbox/dgi/cae', { idEmpresa: company.id, tipoCfe: 101, serie: 'A', desde: 1, hasta: 100_000 });
  assert.equal(cae.status, 201, JSON.stringify(cae.body));
  const caeImported = await call(token, 'POST', '/api/v1/cae/importar', { idEmpresa: company.id, xml: cae.body.xml });
  assert.equal(caeImported.status, 201, JSON.stringify(caeImported.body));
}

after(async () => {
  if (service) await crash();
  await database?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('a pause whose hasta passes while the service is down', () => {
  test('paused until 20 s before the run, service killed before hasta and back after the run time: the run is issued, nothing omitted', async () => {
    // The run: the first whole minute at least 45 s ahead (plans run at HH:MM local time).
    const runAt = new Date(Math.ceil((Date.now() + 45_000) / 60_000) * 60_000);
    const hasta = new Date(runAt.getTime() - 20_000);
    const local = montevideo(runAt);
    const id = await createActive(planBody(company.id, { frecuencia: { unidad: 'dia' }, anclaje: {}, fechaInicio: local.date, horaEmision: local.hhmm, fin: { tipo: 'ciclos', ciclos: 1 } }));
    const paused = await call(token, 'POST', `/api/v1/facturacionrecurrente/pausar/${id}`, { hasta: hasta.toISOString() });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    assert.equal(paused.body.proximaEjecucion, runAt.toISOString());
    await crash(); // down over hasta and over the run time
    await sleep(runAt.getTime() + 2_000 - Date.now());
    const restarted = Date.now();
    await start();
    const [run] = await until('the run after the pause', async () => {
      const rows = await ledger([id]);
      return rows.length && rows[0].resultado !== 'pendiente' ? rows : undefined;
    }, 150_000);
    console.log(`pause across downtime: run ${run.resultado} ${((Date.now() - restarted) / 1000).toFixed(1)} s after the restart`);
    assert.deepEqual([run.resultado, run.origen, run.motivo], ['emitido', 'programada', null], JSON.stringify(run));
    assert.equal((await cfesOfPlan(id)).length, 1);
    const plan = await call(token, 'GET', `/api/v1/facturacionrecurrente/${id}`);
    assert.equal(plan.body.estado, 'finalizado');
  });
});

describe('kill -9 of the service process mid catch-up', () => {
  test('two plans 450 periods behind: killed while issuing; after the restart every run is issued with exactly one CFE, and the history never shows pendiente for a run whose CFE exists', async () => {
    const today = montevideo(new Date()).date;
    const body = (n: number) => planBody(company.id, { nombre: `Atrasado ${n}`, frecuencia: { unidad: 'dia' }, anclaje: {}, fechaInicio: addDaysTo(today, -449), horaEmision: '00:00' });
    const activated = Date.now();
    const ids = [await createActive(body(1)), await createActive(body(2))];
    // The activation queued a pass: the catch-up starts without waiting for the minute tick.
    await until('the first run issued', async () => ((await ledger(ids)).some((r) => r.resultado === 'emitido') ? true : undefined), 120_000);
    console.log(`activation: first run issued ${((Date.now() - activated) / 1000).toFixed(1)} s after activation`);
    // Killed once both plans are claimed (the second plan's activation queues a pass of its own, which may start after
    // the first pass has issued 60 runs: a kill before it left the second plan unclaimed, on a slower database once).
    const issuedAtKill = await until('the catch-up under way, both plans claimed', async () => {
      const rows = await ledger(ids);
      const n = rows.filter((r) => r.resultado === 'emitido').length;
      return n >= 60 && rows.length === 900 ? n : undefined;
    }, 120_000);
    console.log(`catch-up: first 60 runs issued ${((Date.now() - activated) / 1000).toFixed(1)} s after activation`);
    await crash();
    const killed = Date.now();
    const atKill = await ledger(ids);
    const cfesAtKill = (await cfesOfPlan(ids[0])).length + (await cfesOfPlan(ids[1])).length;
    const open = atKill.filter((r) => r.resultado === 'pendiente').length;
    console.log(`killed with ${issuedAtKill}+ runs recorded emitido, ${open} pendiente of ${atKill.length}, ${cfesAtKill} CFEs`);
    assert.equal(atKill.length, 900, 'both plans fully claimed');
    assert.ok(open > 0, 'killed before the catch-up ended (make the plans longer if this fails)');

    // While nothing runs: the history shows every run whose CFE exists as emitido with it.
    await start();
    const history = [];
    for (let start = 0; start < 900; start += 500) {
      for (const id of ids) history.push(...(await call(token, 'GET', `/api/v1/facturacionrecurrente/reporte-historial?idEmpresa=${company.id}&idPlan=${id}&start=${start}&length=500`)).body.data);
    }
    const shownPending = history.filter((r) => r.resultado === 'pendiente').map((r) => `recurrente-${r.idPlan}-${r.periodoDesde}`);
    const withCfe = new Set([...(await cfesOfPlan(ids[0])), ...(await cfesOfPlan(ids[1]))].map((c) => c.key));
    assert.deepEqual(shownPending.filter((k) => withCfe.has(k)), [], 'no pendiente run whose CFE exists');

    const recordedAtRestart = (await ledger(ids)).filter((r) => r.resultado === 'emitido').length;
    await until('the retake', async () => ((await ledger(ids)).filter((r) => r.resultado === 'emitido').length > recordedAtRestart ? true : undefined), 180_000);
    console.log(`recovery: the dead process's runs retaken ${((Date.now() - killed) / 1000).toFixed(1)} s after the kill (lease 20 s)`);
    const runs = await until('every run issued', async () => {
      const rows = await ledger(ids);
      return rows.every((r) => r.resultado !== 'pendiente' && r.resultado !== 'fallido') ? rows : undefined;
    }, 180_000);
    console.log(`recovery: all 900 runs issued ${((Date.now() - killed) / 1000).toFixed(1)} s after the kill`);
    assert.deepEqual(runs.filter((r) => r.resultado !== 'emitido').map((r) => [r.periodoDesde, r.resultado, r.codigo, r.motivo]), []);
    for (const id of ids) {
      const cfes = await cfesOfPlan(id);
      assert.equal(cfes.length, 450, `plan ${id}: one CFE per period`);
      assert.equal(new Set(cfes.map((c) => c.key)).size, 450);
      assert.deepEqual(new Set(runs.filter((r) => r.planId === id).map((r) => r.cfeId)), new Set(cfes.map((c) => c.id)));
    }
    assert.ok(runs.every((r) => r.leaseUntil === null));
  });
});
