/** Shared by the bench scenarios: a throw-away migrated database (embedded PostgreSQL, or a fresh database on DATABASE_URL's server). */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { connectDatabase } from '../src/platform/db/client.js';
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
