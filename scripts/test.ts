/**
 * `npm test`: the whole suite. Starts a throw-away embedded PostgreSQL (or uses the server of
 * DATABASE_URL), migrates a template database once, and runs node's test runner over every
 * `*.test.ts`; each integration test file clones the template into its own database
 * (test/support/app.ts). Everything created here is dropped at the end.
 * `npm run test:unit` runs only the files that are not `*.int.test.ts` and needs no database.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { connectDatabase } from '../src/platform/db/client.js';
import { EmbeddedPostgresError, startEmbeddedPostgres, type EmbeddedServer } from '../src/platform/db/embedded.js';
import { migrateDatabase } from '../src/platform/db/migrate.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const explicit = args.filter((a) => !a.startsWith('--'));

function findTests(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) findTests(p, out);
    else if (entry.name.endsWith('.test.ts')) out.push(path.relative(root, p));
  }
  return out;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function adminQuery(baseUrl: string, adminDb: string, text: string) {
  const client = new pg.Client({ connectionString: `${baseUrl}/${adminDb}` });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * Independent checkers and servers some tests run (xmllint, xmlsec1, poppler, Dovecot, Chromium for pages): Debian packages. As root with
 * apt-get (a container, CI, a fresh server) the missing ones are installed; otherwise one sentence says what to install.
 */
const TOOLS: Array<[check: string, pkg: string]> = [
  ['xmllint', 'libxml2-utils'], ['xmlsec1', 'xmlsec1'], ['pdftotext', 'poppler-utils'], ['pdftoppm', 'poppler-utils'], ['/usr/sbin/dovecot', 'dovecot-imapd'], ['/usr/bin/chromium', 'chromium'],
];
function ensureTools(): void {
  const has = (t: string) => (t.startsWith('/') ? fs.existsSync(t) : spawnSync('sh', ['-c', `command -v ${t}`]).status === 0);
  const missing = [...new Set(TOOLS.filter(([t]) => !has(t)).map(([, pkg]) => pkg))];
  if (!missing.length) return;
  const canInstall = process.getuid?.() === 0 && has('apt-get');
  if (!canInstall) {
    console.error(`tests: missing Debian packages ${missing.join(', ')}: install them (apt-get install ${missing.join(' ')}) and run again.`);
    process.exit(1);
  }
  console.log(`tests: installing ${missing.join(', ')} (apt-get)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = (args: string[]) => spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env }).status === 0;
  if (!run(['install', '-y', '-qq', ...missing]) && !(run(['update', '-qq']) && run(['install', '-y', '-qq', ...missing]))) {
    console.error(`tests: apt-get could not install ${missing.join(', ')}; install them and run again.`);
    process.exit(1);
  }
}

async function main() {
  if (!args.includes('--unit')) ensureTools();
  let files = explicit.length ? explicit : [...findTests(path.join(root, 'src')), ...findTests(path.join(root, 'test'))].sort();
  if (unitOnly) files = files.filter((f) => !f.endsWith('.int.test.ts'));
  const needsDb = files.some((f) => f.endsWith('.int.test.ts'));

  let embedded: EmbeddedServer | undefined;
  let baseUrl = '';
  let adminDb = 'postgres';
  let prefix = `cfe_test_${process.pid}`;
  let tmpDir: string | undefined;
  const env: NodeJS.ProcessEnv = { ...process.env };

  if (needsDb) {
    const external = process.env.DATABASE_URL;
    if (external) {
      const u = new URL(external);
      adminDb = u.pathname.replace(/^\//, '') || 'postgres';
      prefix = `${adminDb}_t${process.pid}`.slice(0, 40);
      u.pathname = '';
      baseUrl = u.toString().replace(/\/$/, '');
      console.log(`tests: using external PostgreSQL ${u.host} (databases prefixed ${prefix})`);
    } else {
      tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-test-pg-'));
      fs.chmodSync(tmpDir, 0o755);
      const port = await freePort();
      embedded = await startEmbeddedPostgres({ dir: path.join(tmpDir, 'data'), port, persistent: false });
      const stopOnSignal = () => void embedded?.stop().finally(() => process.exit(130));
      process.once('SIGINT', stopOnSignal);
      process.once('SIGTERM', stopOnSignal);
      baseUrl = embedded.baseUrl;
      console.log(`tests: embedded PostgreSQL on port ${port}`);
    }
    const template = `${prefix}_tmpl`;
    await adminQuery(baseUrl, adminDb, `create database "${template}"`);
    const database = connectDatabase(`${baseUrl}/${template}`, { max: 4 });
    await migrateDatabase(database);
    await database.close();
    Object.assign(env, { TEST_PG_BASE_URL: baseUrl, TEST_PG_ADMIN_DB: adminDb, TEST_TEMPLATE_DB: template, TEST_DB_PREFIX: prefix });
  }
  delete env.DATABASE_URL;

  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files], { cwd: root, env, stdio: 'inherit' });
    child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
  });

  if (needsDb) {
    try {
      const r = await adminQuery(baseUrl, adminDb, `select datname from pg_database where datname like '${prefix}%'`);
      for (const row of r.rows) await adminQuery(baseUrl, adminDb, `drop database if exists "${row.datname}" with (force)`);
    } catch (err) {
      console.error('tests: cleanup failed', err);
    }
    await embedded?.stop();
    if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
  }
  process.exit(code);
}

main().catch((err) => {
  // A database that cannot start is one sentence saying what to do (embedded-root.ts), not a stack.
  console.error(err instanceof EmbeddedPostgresError ? `tests: ${err.message}` : err);
  process.exit(1);
});
