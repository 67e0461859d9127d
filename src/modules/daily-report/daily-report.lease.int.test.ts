/**
 * Issue 45: a daily report whose sender was killed mid-send is taken over once the sender's lease
 * runs out, and a live sender, however slow DGI is, is never taken over. Real database, real
 * graphile-worker runner and fleet sweep, the simulator as DGI.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { uyToday } from '../../lib/dates.js';
import { startJobRunner } from '../../platform/jobs/runner.js';
import { createLogger } from '../../platform/logger.js';
import type { DgiReceptionClient } from '../dgi/dgi.client.js';
import { waitFor } from '../dgi-submission/dgi-submission.test-helpers.js';
import { sweepDeadProcesses } from '../fleet/fleet.service.js';
import { cfesSignedOn } from '../issued-cfe/issued-cfe.handoff.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';
import { createReceptionClients } from './daily-report.dgi.js';
import { sendDailyReportJob } from './daily-report.jobs.js';
import type { DailyReportDeps } from './daily-report.service.js';
import { dayBefore } from './daily-report.source.js';
import { createDailyReportModule } from './index.js';

let t: TestApp;
let company: { id: number; rut: string };
const yesterday = dayBefore(uyToday());

before(async () => {
  t = await createTestApp();
  const admin = await t.adminToken();
  company = await insertCompany(t);
  await setUpIssuer(t.db, t.call, admin, company);
});
after(async () => t.close());

/** The daily-report module of another process of the fleet, with its own send lease (and DGI client). */
function otherProcess(sendLeaseMs: number, receptionClient?: DailyReportDeps['receptionClient']) {
  const s = t.modules.services;
  return createDailyReportModule(
    { db: t.db, config: t.config, logger: createLogger(t.config), companies: s.companies, cae: s.cae, certificates: s.certificates, lookups: s.lookups, cfesSignedOn },
    { settings: { uiValue: t.config.emission.uiValue, sendLeaseMs }, ...(receptionClient ? { receptionClient } : {}) },
  );
}

async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  return (await t.db.execute(query)).rows as T[];
}
/** Timestamps as epoch milliseconds (fractional: the database keeps microseconds). */
const ms = (col: string) => sql.raw(`extract(epoch from ${col}) * 1000`);
type Report = { estado: string; intentos: number; lease_until: number | null; ack_estado: string | null };
const report = async (id: number) => (await rows<Report>(sql`select estado, intentos, ${ms('lease_until')}::float8 as lease_until, ack_estado from daily_reports where id = ${id}`))[0]!;
type Job = { id: string; run_at: number; attempts: number };
const jobsOf = (id: number) => rows<Job>(sql`select id, ${ms('run_at')}::float8 as run_at, attempts from graphile_worker._private_jobs where key = ${`daily-report-${id}`}`);
/** The job's run_at is the lease (read back in whole milliseconds) + 1 s. */
const justAfter = (runAt: number, leaseUntil: number) => runAt - leaseUntil > 998 && runAt - leaseUntil <= 1000;

describe('happy path', () => {
  test('a report left enviando by a killed worker: its job, handed back by the fleet sweep, finds the lease held, queues itself for just after it instead of completing, and then sends the report', async () => {
    const { id } = await t.modules.services.dailyReport.generate(company.id, yesterday, 'manual');
    // What the killed worker left behind: its job locked by its pool, the report claimed with a lease nobody renews.
    const [dead] = await rows<{ id: string }>(sql`update graphile_worker._private_jobs set locked_at = now(), locked_by = 'killed-worker', attempts = 1 where key = ${`daily-report-${id}`} returning id`);
    assert.ok(dead, 'generate queued the send job');
    await t.db.execute(sql`update daily_reports set estado = 'enviando', enviado_en = now(), intentos = intentos + 1, lease_until = clock_timestamp() + interval '1 hour' where id = ${id}`);
    await t.db.execute(sql`insert into service_processes (lock_key, kind, host, pid, job_pool_id, jwt_fingerprint, master_key_fingerprint) values (2000000001, 'worker', 'gone', 1, 'killed-worker', 'x', 'x')`);
    const held = await report(id);

    const worker = otherProcess(60_000);
    const runner = await startJobRunner({ pool: t.database.pool, jobs: worker.jobs.filter((j) => j.job.name === sendDailyReportJob.name), concurrency: 1, logger: createLogger(t.config) });
    try {
      assert.deepEqual((await sweepDeadProcesses(t.database.pool)).map((p) => p.jobPoolId), ['killed-worker']);

      // The job runs again on the live worker, finds the report held: it leaves a new job due just after the lease.
      const [next] = await waitFor('the dead worker\'s job ended and another one queued', async () => {
        const jobs = await jobsOf(id);
        const gone = !(await rows(sql`select 1 from graphile_worker._private_jobs where id = ${dead.id}`)).length;
        return gone && jobs.length === 1 && jobs[0]!.id !== dead.id && jobs;
      });
      assert.ok(justAfter(next!.run_at, held.lease_until!), `queued ${next!.run_at - held.lease_until!} ms after the lease`);
      assert.equal(next!.attempts, 0);
      assert.deepEqual(await report(id), held, 'nothing sent while the lease holds');

      // The killed sender renews nothing: its lease runs out (an hour here), and the queued job comes due.
      await t.db.execute(sql`update daily_reports set lease_until = clock_timestamp() - interval '1 millisecond' where id = ${id}`);
      await t.db.execute(sql`update graphile_worker._private_jobs set run_at = now() where id = ${next!.id}`);
      const sent = await waitFor('the report taken over and sent', async () => {
        const r = await report(id);
        return r.estado !== 'enviando' && r;
      });
      assert.deepEqual([sent.estado, sent.ack_estado, sent.intentos, sent.lease_until], ['aceptado', 'AR', held.intentos + 1, null]);
      await waitFor('the job finished', async () => !(await jobsOf(id)).length);
    } finally {
      await runner.stop();
    }
  });

  test('a live sender keeps its report while DGI is slow: its heartbeat moves the lease on, another sender finds it held, and its claim queued the takeover job', async () => {
    const { id } = await t.modules.services.dailyReport.generate(company.id, dayBefore(yesterday), 'manual');
    const real = createReceptionClients(t.config.dgi, t.modules.services.lookups);
    let atDgi!: () => void;
    const reached = new Promise<void>((r) => (atDgi = r));
    let answer!: () => void;
    const dgiAnswers = new Promise<void>((r) => (answer = r));
    const slow = otherProcess(2000, async (companyId, ctx): Promise<DgiReceptionClient> => {
      const client = await real(companyId, ctx);
      return {
        sendEnvelope: (xml) => client.sendEnvelope(xml),
        queryEnvelopeStatus: (idReceptor, token) => client.queryEnvelopeStatus(idReceptor, token),
        async sendDailyReport(xml) {
          atDgi();
          await dgiAnswers;
          return client.sendDailyReport(xml);
        },
      };
    });

    const sending = slow.service.send(id); // the inline send (regenerar, reenviar)
    let claimed: Report;
    try {
      await Promise.race([reached, sending.then((r) => assert.fail(`the send ended without reaching DGI: ${r?.estado}`))]);
      claimed = await report(id);
      assert.equal(claimed.estado, 'enviando');
      // Its claim queued the job for just after the lease: were this process killed now, a worker would take over.
      const [queued] = await jobsOf(id);
      assert.ok(justAfter(queued!.run_at, claimed.lease_until!), `takeover job ${queued!.run_at - claimed.lease_until!} ms after the lease`);

      // Past the first lease (database time) only the heartbeat keeps the report.
      const leaseOver = sql`select ${ms('clock_timestamp()')} > ${claimed.lease_until! + 500} as past`;
      await waitFor('the first lease past', async () => (await rows<{ past: boolean }>(leaseOver))[0]!.past);
      const seen = await otherProcess(2000).service.sendQueued(id);
      assert.equal(seen!.estado, 'enviando');
      assert.equal(seen!.intentos, claimed.intentos, 'not claimed again');
      assert.ok(seen!.leaseUntil!.getTime() > claimed.lease_until!, 'the lease was renewed');
      // The job that found it held comes back just after the renewed lease.
      const [again] = await jobsOf(id);
      assert.equal(again!.run_at, seen!.leaseUntil!.getTime() + 1000, 'the job again just after the renewed lease');
    } finally {
      answer();
    }
    const done = await sending;
    assert.deepEqual([done?.estado, done?.ackEstado, done?.intentos, done?.leaseUntil], ['aceptado', 'AR', claimed.intentos, null]);
  });
});
