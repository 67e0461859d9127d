/**
 * The embedded PostgreSQL when the process is root and its folders sit under a closed home (issue
 * 27 point 1: a clone under /root, mode 700). Runs only as root (CI and containers); the folders are
 * temporary stand-ins for /root and /var/lib/cfe-uy-backend.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startEmbeddedPostgres } from './embedded.js';
import { EmbeddedPostgresError, placeForRoot } from './embedded-root.js';

const asRoot = process.getuid?.() === 0;

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

describe('embedded PostgreSQL as root under a closed home folder', { skip: !asRoot && 'runs only as root' }, () => {
  let home: string; // like /root: mode 700
  let open: string; // holds the base, like /var/lib
  let base: string;
  before(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-home-'));
    fs.chmodSync(home, 0o700);
    open = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-var-'));
    fs.chmodSync(open, 0o755);
    base = path.join(open, 'cfe-uy-backend');
  });
  after(() => {
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(open, { recursive: true, force: true });
  });

  test('a new cluster the postgres user cannot reach is created under the base, linked from DATA_DIR/pg, and runs as postgres', async () => {
    const dir = path.join(home, 'repo', 'data', 'pg');
    const server = await startEmbeddedPostgres({ dir, port: await freePort(), persistent: false, rootBase: base });
    const real = fs.realpathSync(dir);
    try {
      assert.ok(fs.lstatSync(dir).isSymbolicLink());
      assert.equal(path.dirname(real), base);
      assert.match(path.basename(real), /^pg-/);
      assert.equal(fs.statSync(base).mode & 0o777, 0o755);
      assert.equal(fs.statSync(real).uid, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })));
      const client = new pg.Client({ connectionString: `${server.baseUrl}/postgres` });
      await client.connect();
      try {
        const r = await client.query("select current_setting('data_directory') as dir");
        assert.equal(r.rows[0].dir, real);
      } finally {
        await client.end();
      }
    } finally {
      await server.stop();
    }
    assert.equal(fs.existsSync(real), false, 'a throw-away cluster is removed on stop');
    assert.equal(fs.lstatSync(dir, { throwIfNoEntry: false }), undefined, 'and so is its link');
  });

  test('binaries the postgres user cannot reach are copied once, readable, under the base', () => {
    const native = path.join(home, 'node_modules', 'native');
    fs.mkdirSync(path.join(native, 'bin'), { recursive: true });
    fs.mkdirSync(path.join(native, 'share'), { recursive: true });
    fs.writeFileSync(path.join(native, 'bin', 'postgres'), '#!/bin/sh\n', { mode: 0o700 });
    fs.writeFileSync(path.join(native, 'share', 'postgres.bki'), 'x', { mode: 0o600 });
    const dataDir = path.join(open, 'data', 'pg');
    const first = placeForRoot({ dataDir, nativeDir: native, version: '0.0.0-test', base });
    assert.equal(first.nativeDir, path.join(base, 'postgres-0.0.0-test'));
    assert.equal(first.dataDir, dataDir, 'a reachable DATA_DIR stays where it is');
    assert.equal(fs.statSync(path.join(first.nativeDir, 'bin', 'postgres')).mode & 0o555, 0o555);
    assert.equal(fs.statSync(path.join(first.nativeDir, 'share', 'postgres.bki')).mode & 0o444, 0o444);
    const copiedAt = fs.statSync(first.nativeDir).mtimeMs;
    assert.equal(placeForRoot({ dataDir, nativeDir: native, version: '0.0.0-test', base }).nativeDir, first.nativeDir);
    assert.equal(fs.statSync(first.nativeDir).mtimeMs, copiedAt, 'not copied again');
  });

  test('an existing cluster the postgres user cannot reach is refused with one sentence saying what to do', () => {
    const dataDir = path.join(home, 'old', 'pg');
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'PG_VERSION'), '18\n');
    assert.throws(() => placeForRoot({ dataDir, nativeDir: path.join(open, 'none'), version: 'x', base }), (err: Error) => {
      assert.ok(err instanceof EmbeddedPostgresError);
      assert.ok(err.message.includes(`cannot reach the existing data folder ${dataDir} (${home} is closed to other users)`), err.message);
      assert.match(err.message, /set DATA_DIR to a folder that user can reach .*DATABASE_URL/);
      assert.equal(err.message.split('. ').length, 1, 'one sentence');
      return true;
    });
  });
});
