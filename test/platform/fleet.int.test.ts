/**
 * Issue 45: 3 API processes (WORKER_IN_PROCESS=false) + 2 workers + the DGI simulator as its own
 * process, on the test database. Modest load spread across the API processes; mid-load 40 usage
 * contracts' last three periods become due and the close is queued on both workers; once it is
 * issuing their CFEs, SIGKILL of one API process and one worker; the invariants (each contract
 * period issued once among them) are read back from the database and the API. The deadlines below
 * only stop a hung run (no timing assertion but the 30 s takeover of issue 45).
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { cloneTemplate } from '../support/app.js';
import { startFleet, type Fleet } from '../../scripts/fleet/topology.js';
import { closeUnderWay, startClose } from '../../scripts/fleet/periods.js';
import { audit, drive, queueJobs, revocationAcrossProcesses, usageDefinitionsAcrossProcesses, settle, setUp, waitUntil, type Setup } from '../../scripts/fleet/scenario.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

let fleet: Fleet;
let s: Setup;
before(async () => {
  const ports = [await freePort(), await freePort(), await freePort()];
  fleet = await startFleet({ databaseUrl: await cloneTemplate(), ports, simulatorPort: await freePort(), workers: 2, env: { DGI_ENVELOPE_MAX_CFE: '10' } });
  s = await setUp(fleet, 3);
});
after(async () => {
  await s?.receiver.close();
  await s?.database.close();
  await fleet?.stop();
});

describe('happy path', () => {
  test('N processes on one database: every invariant holds after SIGKILL of one API process and one worker mid-load', async () => {
    const victimApi = fleet.apis[1]!;
    const victimWorker = fleet.workers[0]!;
    const [dead] = (await s.database.db.execute<{ job_pool_id: string }>(sql`select job_pool_id from service_processes where pid = ${victimWorker.child.pid!}`)).rows;
    assert.ok(dead?.job_pool_id, 'the worker registered its job pool');
    let killedAt = 0;
    let reached!: () => void;
    const at15 = new Promise<void>((r) => (reached = r));
    const killing = (async () => {
      await at15;
      // The contract periods made due and their close queued on both workers; once it issues CFEs,
      // the once-a-day jobs and the recurring tick queued several times at once, then the kills.
      await startClose(s.database.db, s.call, s.token, s.periods);
      await closeUnderWay(s.database.db, s.periods, dead.job_pool_id);
      await queueJobs(s, 'recurring_tick', 3);
      await queueJobs(s, 'dailyReport_daily', 3);
      await queueJobs(s, 'issuerRegistry_sync', 3);
      killedAt = Date.now();
      victimApi.child.kill('SIGKILL');
      victimWorker.child.kill('SIGKILL');
    })();
    killing.catch(() => undefined); // awaited below; a failure before any receipt waits on it is not unhandled
    // Receipts from the 40th on wait for the kills: the load goes on after them.
    const load = await drive(fleet, s, { receipts: 90, concurrency: 6, tag: 'fleet-test', onProgress: (done) => { if (done === 15) reached(); }, hold: { from: 40, until: killing } });
    await killing;
    assert.equal(load.receipts, 90);
    // What the dead worker held goes back to the queue: its registry row is swept and no job stays locked by it.
    await waitUntil('the dead worker swept and its jobs unlocked', async () => {
      const r = await s.database.db.execute<{ rows: number; locked: number }>(sql`
        select (select count(*) from service_processes where pid = ${victimWorker.child.pid!})::int as rows,
               (select count(*) from graphile_worker._private_jobs where locked_by = ${dead.job_pool_id})::int as locked`);
      return r.rows[0]!.rows === 0 && r.rows[0]!.locked === 0;
    }, 30_000 - (Date.now() - killedAt));
    await settle(s);
    const results = await audit(fleet, s, { ...load, killedAt });
    results.push(await revocationAcrossProcesses(fleet, s), await usageDefinitionsAcrossProcesses(fleet, s));
    for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name}: ${r.detail}`);
    assert.deepEqual(results.filter((r) => !r.ok), []);
  });
});

describe('errors', () => {
  test('a worker refuses the in-process DGI simulator, and a process with another JWT secret is refused', async () => {
    const { spawnSync } = await import('node:child_process');
    const run = (env: Record<string, string | undefined>) => {
      const all: Record<string, string | undefined> = { ...process.env, ...fleet.env, DATA_DIR: `${fleet.dir}/refused`, ...env };
      for (const k of Object.keys(all)) if (all[k] === undefined) delete all[k];
      return spawnSync(process.execPath, ['--import', 'tsx', 'src/worker.ts'], { env: all as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 60_000 });
    };
    const sim = run({ DGI_SIMULATOR_URL: undefined });
    assert.notEqual(sim.status, 0);
    assert.match(sim.stdout + sim.stderr, /DGI_SIMULATOR_URL in every API and worker process/);
    const jwt = run({ JWT_SECRET: 'another-secret-another-secret-another-secret-0000' });
    assert.notEqual(jwt.status, 0);
    assert.match(jwt.stdout + jwt.stderr, /uses a different JWT_SECRET/);
  });
});
