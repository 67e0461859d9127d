/** The real entry point as a process: startup banner, bad config, graceful shutdown on SIGTERM. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cloneTemplate } from '../support/app.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = async (re: RegExp, ms = 30_000) => {
    const t0 = Date.now();
    while (Date.now() - t0 < ms) {
      const m = re.exec(out);
      if (m) return m;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timeout waiting for ${re} in:\n${out}`);
  };
  return { child, exited, waitFor, output: () => out };
}

describe('happy path', () => {
  it('starts on an external database, prints its address and the first admin, and shuts down gracefully', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-proc-'));
    const p = start({ DATABASE_URL: await cloneTemplate(), PORT: '0', DATA_DIR: dataDir, ADMIN_USER: 'root@proc.uy', ADMIN_PASSWORD: 'proc-password-1', WORKER_IN_PROCESS: 'true' });
    try {
      const [, address] = await p.waitFor(/API listening on (http:\/\/[\d.]+:\d+)/);
      assert.match(p.output(), /First administrator created: root@proc\.uy/);
      const health = await fetch(`${address}/healthz`);
      assert.equal(health.status, 200);
      const login = await fetch(`${address}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ usuario: 'root@proc.uy', clave: 'proc-password-1' }) });
      assert.equal(login.status, 200);
      p.child.kill('SIGTERM');
      assert.equal(await p.exited, 0, p.output());
    } finally {
      p.child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('errors', () => {
  it('refuses to start with a clear message on bad configuration', async () => {
    const p = start({ PORT: 'not-a-port' });
    assert.equal(await p.exited, 1);
    assert.match(p.output(), /Invalid configuration:\n\s+PORT:/);
  });

  it("stops before the database with the file's path when the DGI simulator's state file is damaged", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-proc-'));
    const statePath = path.join(dataDir, 'dgi-simulator', 'state.jsonl');
    fs.mkdirSync(path.dirname(statePath), { recursive: true });
    fs.writeFileSync(statePath, 'not json\n');
    try {
      // An unreachable database: had the check not run first, the failure would be a connection error.
      const p = start({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', PORT: '0', DATA_DIR: dataDir });
      assert.notEqual(await p.exited, 0);
      assert.ok(p.output().includes(statePath), p.output());
      assert.doesNotMatch(p.output(), /ECONNREFUSED/);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
