/**
 * The OpenAPI document the service serves at /openapi.json, built without a running service: it
 * comes from the route schemas alone, so the app is built against a database it never connects to
 * (no PostgreSQL is started) and a throw-away DATA_DIR (building the app creates a local master key
 * there). Used by `npm run openapi:export` and `npm run client:generate`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { connectDatabase } from '../src/platform/db/client.js';
import { createLogger } from '../src/platform/logger.js';
import { createMailer } from '../src/platform/mailer.js';

export async function openApiDocument(): Promise<{ paths: Record<string, unknown> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-export-'));
  const jwtSecret = 'openapi-export-only-never-signs-a-token-000000';
  try {
    const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: 'postgres://openapi-export@127.0.0.1:1/never-connected', DATA_DIR: dataDir, JWT_SECRET: jwtSecret, LOG_LEVEL: 'silent' });
    const logger = createLogger(config);
    const database = connectDatabase(config.db.url!, { max: 1 });
    const { app } = await buildApp({ config, logger, database, mailer: createMailer(config.mail, logger), jwtSecret });
    await app.ready();
    const doc = app.swagger() as { paths: Record<string, unknown> };
    await app.close();
    await database.close();
    return doc;
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
