/**
 * Builds the real app on a fresh database cloned from the migrated template (see scripts/test.ts),
 * exactly as production does, with helpers to log in and call it through `inject`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { connectDatabase } from '../../src/platform/db/client.js';
import { createLogger } from '../../src/platform/logger.js';
import { createMailer } from '../../src/platform/mailer.js';

export const ADMIN = { usuario: 'admin@test.uy', clave: 'admin-password-1' };
const JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789';

export async function cloneTemplate(): Promise<string> {
  const base = process.env.TEST_PG_BASE_URL;
  const template = process.env.TEST_TEMPLATE_DB;
  if (!base || !template) throw new Error('Integration tests need the database prepared by `npm test` (scripts/test.ts).');
  const name = `${process.env.TEST_DB_PREFIX}_${randomBytes(5).toString('hex')}`;
  const client = new pg.Client({ connectionString: `${base}/${process.env.TEST_PG_ADMIN_DB ?? 'postgres'}` });
  await client.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`create database "${name}" template "${template}"`);
        break;
      } catch (err) {
        // Concurrent clones of one template can collide ("source database is being accessed").
        if ((err as { code?: string }).code !== '55006' || attempt > 20) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await client.end();
  }
  return `${base}/${name}`;
}

/** `logStream`: capture the app's log (with LOG_LEVEL in env) instead of discarding it. `now`: the clock of time-driven modules. */
export async function createTestApp(env: Record<string, string> = {}, opts: { logStream?: Parameters<typeof createLogger>[1]; now?: () => Date } = {}) {
  const url = await cloneTemplate();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-test-data-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: url,
    DATA_DIR: dataDir,
    JWT_SECRET,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    AUTH_RATE_LIMIT_PER_MINUTE: '100000',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    DB_POOL_MAX: '10',
    // The suite runs files in parallel on few cores: a simulated DGI at a lower priority than every other
    // test process would answer late. Its nice value is tested in dgi.simulator-thread.test.ts.
    DGI_SIMULATOR_NICE: '0',
    ...env,
  });
  const logger = createLogger(config, opts.logStream);
  const database = connectDatabase(url, { max: config.db.poolMax });
  const mailer = createMailer(config.mail, logger);
  const { app, modules } = await buildApp({ config, logger, database, mailer, jwtSecret: JWT_SECRET, now: opts.now });
  await modules.services.users.ensureFirstAdmin(ADMIN.usuario, ADMIN.clave);

  async function login(usuario: string, clave: string): Promise<string> {
    const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { usuario, clave } });
    if (res.statusCode !== 200) throw new Error(`login ${usuario} failed: ${res.statusCode} ${res.body}`);
    return res.json().accessToken;
  }

  /** inject with a bearer token; returns status and parsed JSON. */
  async function call(token: string | undefined, method: string, url: string, payload?: unknown) {
    const res = await app.inject({
      method: method as 'GET',
      url,
      payload: payload as object | undefined,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    let body: any;
    try {
      body = res.body ? res.json() : undefined;
    } catch {
      body = res.body;
    }
    return { status: res.statusCode, body, headers: res.headers };
  }

  return {
    app,
    modules,
    database,
    db: database.db,
    config,
    login,
    call,
    adminToken: () => login(ADMIN.usuario, ADMIN.clave),
    async close() {
      await app.close();
      mailer.close();
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof createTestApp>>;
