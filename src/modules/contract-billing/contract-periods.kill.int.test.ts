/**
 * A kill -9 during the period close (issue 40 point 4). The service runs as `npm start` runs it
 * (src/main.ts, job worker in the process) on the test's database; contracts started months ago have
 * many periods due; the close is started and the process is killed with SIGKILL while the issue jobs
 * are issuing CFEs. graphile-worker keeps those jobs locked by the dead worker for 4 hours; a new
 * process must still issue every pending period, each exactly once, well within 2 minutes of its
 * start (the rows' 40 s lease runs out and the close cron's recovery sweep queues them again).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';
import { ok, usageCompany } from '../usage/usage.test-helpers.js';
import { periodAt } from './periods.js';

const root = path.resolve(import.meta.dirname, '../../..');
const MASTER_KEY = randomBytes(32).toString('hex');
const CONTRACTS = 40;

let t: TestApp;
let companyId: number;

/** The service as `npm start` runs it, on the test's database, its job worker in the process. */
function startService() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-kill-periods-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root, detached: false,
    env: { ...process.env, DATABASE_URL: t.config.db.url, DATA_DIR: dataDir, PORT: '0', WORKER_IN_PROCESS: 'true', LOG_LEVEL: 'warn', MASTER_KEY, ADMIN_PASSWORD: 'admin-password-1' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  return { child, exited, output: () => out, cleanUp: () => fs.rmSync(dataDir, { recursive: true, force: true }) };
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, ms: number, output?: () => string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const found = await check();
    if (found) return found;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}${output ? `\n--- service:\n${output().slice(-4000)}` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const statuses = async () => ((await t.db.execute(sql`select count(*)::int as n, count(*) filter (where status = 'pendiente')::int as pending,
    count(*) filter (where status = 'emitido')::int as issued from contract_periods where company_id = ${companyId}`)).rows[0] as { n: number; pending: number; issued: number });

before(async () => {
  t = await createTestApp({ MASTER_KEY });
  const admin = await t.adminToken();
  const co = await usageCompany(t, admin, [{ codigo: 'api_calls', nombre: 'Llamadas', unidad: 'llamada', agregacion: 'count' }]);
  companyId = co.companyId;
  const [company] = (await t.db.execute(sql`select id, rut from companies where id = ${companyId}`)).rows as Array<{ id: number; rut: string }>;
  await setUpIssuer(t.db, t.call, admin, company!);
  await t.db.execute(sql`update customers set direccion = 'Calle 1', ciudad = 'Montevideo' where id = ${co.customerId}`);
  // A minimum per period: every past period gets a CFE.
  const book = await ok(t.call(admin, 'POST', `/api/v1/price-books?idEmpresa=${companyId}`, {
    codigo: 'MIN', nombre: 'Mínimo', moneda: 'UYU', vigenteDesde: '2025-01-01', minimoPeriodo: { monto: '100', indicadorFacturacion: 3, nombreItem: 'Mínimo mensual' },
    precios: [{ metrica: 'api_calls', modelo: 'estandar', precioUnitario: '1', indicadorFacturacion: 3, nombreItem: 'Llamadas' }],
  }));
  // Started four calendar months back: four periods due for each contract.
  const inicio = periodAt(new Date(periodAt(new Date(), 1).start.getTime() - 100 * 86_400_000), 1).start;
  for (let i = 0; i < CONTRACTS; i++) {
    const c = await co.contract(`kill-${i}`, ['api_calls'], { inicio: inicio.toISOString() });
    await ok(t.call(admin, 'PUT', `/api/v1/contracts/${c.id}/terms`, { idVersionListaPrecios: book.id, tipoCfe: 111, codComercio: 'C1', codTerminal: 'T1' }), 200);
  }
});
after(async () => t?.close());

describe('happy path', () => {
  test('SIGKILL while periods are being issued, then a restart: every period issued exactly once within 2 minutes, the dead jobs still locked', { timeout: 420_000 }, async (ctx) => {
    const first = startService();
    try {
      await waitFor('the service to listen', async () => /API listening on/.test(first.output()), 90_000, first.output);
      await t.db.execute(sql`select graphile_worker.add_job('contract_periods_close', '{}'::json)`);
      await waitFor('the issue in the middle', async () => {
        const s = await statuses();
        return s.n > 0 && s.issued >= 5 && s.pending >= 20;
      }, 150_000, first.output);
      first.child.kill('SIGKILL');
      assert.equal(await first.exited, 'SIGKILL');
    } finally {
      first.child.kill('SIGKILL');
      first.cleanUp();
    }
    const atKill = await statuses();
    const locked = ((await t.db.execute(sql`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'contract_period_issue' and locked_at is not null`)).rows[0] as { n: number }).n;
    assert.ok(locked >= 1, 'the killed worker left its issue job locked');
    ctx.diagnostic(`killed with ${atKill.issued} of ${atKill.n} periods issued, ${atKill.pending} pendiente, ${locked} issue job(s) locked by the dead worker`);

    const second = startService();
    try {
      await waitFor('the service to listen again', async () => /API listening on/.test(second.output()), 90_000, second.output);
      const restarted = Date.now();
      await waitFor('every period issued', async () => (await statuses()).pending === 0, 180_000, second.output);
      const seconds = (Date.now() - restarted) / 1000;
      ctx.diagnostic(`every pending period issued ${seconds.toFixed(1)} s after the restart`);
      // The bound of the issue (2 minutes), far below graphile-worker's 4 h lock: not a speed figure.
      assert.ok(seconds < 120, `recovered in ${seconds} s`);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
      second.cleanUp();
    }
    const end = await statuses();
    assert.deepEqual([end.n, end.issued], [CONTRACTS * 4, CONTRACTS * 4], JSON.stringify(end));
    // Exactly once: one CFE per period key, and each period row names it.
    const cfes = (await t.db.execute(sql`select count(*)::int as n, count(distinct idempotency_key)::int as keys from issued_cfes
        where company_id = ${companyId} and idempotency_key like 'contrato-%-periodo-%'`)).rows[0] as { n: number; keys: number };
    assert.deepEqual([cfes.n, cfes.keys], [CONTRACTS * 4, CONTRACTS * 4]);
    const linked = ((await t.db.execute(sql`select count(distinct p.issued_cfe_id)::int as n from contract_periods p join issued_cfes c on c.id = p.issued_cfe_id
        and c.idempotency_key = 'contrato-' || p.contract_id || '-periodo-' || to_char(p.period_start, 'YYYY-MM-DD') where p.company_id = ${companyId}`)).rows[0] as { n: number }).n;
    assert.equal(linked, CONTRACTS * 4);
  });
});
