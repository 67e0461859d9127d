/** Shared by the bench scenarios: a throw-away migrated database (embedded PostgreSQL, or a fresh database on DATABASE_URL's server). */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sql, type SQL } from 'drizzle-orm';
import { connectDatabase, type Db } from '../src/platform/db/client.js';
import { startEmbeddedPostgres, type EmbeddedServer } from '../src/platform/db/embedded.js';
import { migrateDatabase } from '../src/platform/db/migrate.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function openBenchDatabase(prefix: string): Promise<{ url: string; stop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}`;
  let embedded: EmbeddedServer | undefined;
  let tmp: string | undefined;
  let base: string;
  if (process.env.DATABASE_URL) {
    const u = new URL(process.env.DATABASE_URL);
    u.pathname = '';
    base = u.toString().replace(/\/$/, '');
  } else {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
    fs.chmodSync(tmp, 0o755);
    embedded = await startEmbeddedPostgres({ dir: path.join(tmp, 'data'), port: await freePort(), persistent: false });
    base = embedded.baseUrl;
  }
  const admin = async (q: string) => {
    const c = new pg.Client({ connectionString: `${base}/postgres` });
    await c.connect();
    await c.query(q).finally(() => c.end());
  };
  await admin(`create database "${name}"`);
  const migrator = connectDatabase(`${base}/${name}`, { max: 2 });
  await migrateDatabase(migrator);
  await migrator.close();
  return {
    url: `${base}/${name}`,
    async stop() {
      await admin(`drop database if exists "${name}" with (force)`);
      await embedded?.stop();
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The plan PostgreSQL would use for `q` (EXPLAIN, or EXPLAIN (analyze) when `q` starts with it). */
export async function explain(db: Db, q: SQL): Promise<string> {
  const res = await db.execute(sql`explain ${q}`);
  return (res.rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']).join('\n');
}

/** Whether a search's page and count both read an index (no sequential scan for the count). */
export const plansUseIndex = (pagePlan: string, countPlan: string) => /Index|Bitmap/.test(pagePlan) && /Index|Bitmap/.test(countPlan) && !/Seq Scan/.test(countPlan);

/** Runs `fn` `runs` times; its last answer and the median time in ms (the first run warms the plan cache). */
export async function timeMedian<T>(fn: () => Promise<T>, runs = 3): Promise<{ result: T; medianMs: number }> {
  const times: number[] = [];
  let result!: T;
  for (let i = 0; i < runs; i++) {
    const s = process.hrtime.bigint();
    result = await fn();
    times.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  return { result, medianMs: Number(median(times).toFixed(1)) };
}
