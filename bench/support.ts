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

/**
 * The e-Ticket both emission benches issue (bench/emission.ts, bench/lifecycle.ts): three lines, two
 * IVA rates, dated today in Uruguay (UTC-3), as the JSON body of POST /api/v1/comprobante/emitir.
 */
export function eTicketBody(companyId: number): string {
  const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);
  return JSON.stringify({
    idEmpresa: companyId, codComercio: 'C1', codTerminal: 'T1',
    cfe: {
      idDoc: { tipoCfe: 101, fechaEmision: today },
      detalles: [
        { indicadorFacturacion: 3, nombreItem: 'Yerba 1 kg', cantidad: 2, precioUnitario: '189.90' },
        { indicadorFacturacion: 2, nombreItem: 'Arroz 1 kg', cantidad: 1, precioUnitario: '64.50' },
        { indicadorFacturacion: 3, nombreItem: 'Aceite 900 ml', cantidad: 3, precioUnitario: '112.00' },
      ],
    },
  });
}
