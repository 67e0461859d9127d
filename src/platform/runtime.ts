/**
 * Process bootstrap shared by the API, the worker and the tests: the database (external or the
 * embedded PostgreSQL), migrations, the JWT secret and the mailer. Processes start through
 * src/bootstrap.ts, which runs the modules' own checks first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AppConfig } from '../config.js';
import { DataDirError, ensureWritableDataDir, explainFsError } from './data-dir.js';
import { connectDatabase, type Database } from './db/client.js';
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedServer } from './db/embedded.js';
import { migrateDatabase } from './db/migrate.js';
import type { Logger } from './logger.js';
import { createMailer, type Mailer } from './mailer.js';

export const EMBEDDED_DB_NAME = 'cfe';

export interface Runtime {
  database: Database;
  mailer: Mailer;
  jwtSecret: string;
  embedded?: EmbeddedServer;
  close(): Promise<void>;
}

export async function startRuntime(config: AppConfig, logger: Logger): Promise<Runtime> {
  let embedded: EmbeddedServer | undefined;
  let url = config.db.url;
  if (!url) {
    const dir = path.join(config.dataDir, 'pg');
    logger.info({ dir, port: config.db.embeddedPort }, 'starting embedded PostgreSQL');
    embedded = await startEmbeddedPostgres({ dir, port: config.db.embeddedPort, settings: config.db.embeddedSettings, logger });
    await ensureDatabase(embedded.baseUrl, EMBEDDED_DB_NAME);
    url = `${embedded.baseUrl}/${EMBEDDED_DB_NAME}`;
  }
  const database = connectDatabase(url, { max: config.db.poolMax });
  try {
    await migrateDatabase(database);
  } catch (err) {
    await database.close();
    await embedded?.stop();
    throw err;
  }
  const mailer = createMailer(config.mail, logger);
  return {
    database,
    mailer,
    jwtSecret: config.auth.jwtSecret ?? localJwtSecret(config.dataDir),
    embedded,
    async close() {
      mailer.close();
      await database.close();
      await embedded?.stop();
    },
  };
}

/** Outside production a secret is generated once and kept in DATA_DIR so tokens survive restarts. */
function localJwtSecret(dataDir: string): string {
  const file = path.join(dataDir, 'jwt-secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    ensureWritableDataDir(dataDir);
    const secret = randomBytes(48).toString('base64url');
    try {
      fs.writeFileSync(file, secret, { mode: 0o600 });
    } catch (err) {
      throw new DataDirError(`DATA_DIR ${dataDir} cannot keep the generated JWT secret: ${explainFsError(err)}. Set JWT_SECRET, or DATA_DIR to a writable folder.`);
    }
    return secret;
  }
}
