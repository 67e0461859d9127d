/**
 * `npm start` driven from outside the way an operator, the OOM killer and process managers do
 * (issue 44 points 1-4): kill -9 of node alone, kill -9 of its watchdog too, SIGTERM to npm's pid,
 * Ctrl-C to the terminal's process group, npm killed, a second start, unusable data folders.
 * Real processes on the embedded PostgreSQL; deadlines are generous waits, never assertions on speed.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const PASSWORD = 'lifecycle-pass-1';

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

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until<T>(what: string, fn: () => T | undefined | false, ms = 60_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error(`timeout waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `npm start` in its own process group, as a terminal's foreground job is. */
function npmStart(env: Record<string, string>) {
  const inherited = { ...process.env };
  delete inherited.DATABASE_URL; // the embedded PostgreSQL is what is under test
  const child = spawn('npm', ['start'], { cwd: root, detached: true, env: { ...inherited, LOG_LEVEL: 'info', ADMIN_PASSWORD: PASSWORD, ...env } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    output: () => out,
    waitFor: (re: RegExp, ms = 90_000) => until<RegExpExecArray>(`${re} in:\n${out}`, () => re.exec(out) ?? undefined, ms),
    /** The node process npm runs (npm's only child: the start script execs node). */
    node: () => Number(execFileSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' }).trim().split('\n')[0]),
  };
}

describe('npm start as a service', () => {
  let dataDir: string;
  let env: Record<string, string>;
  const started: Array<ReturnType<typeof npmStart>> = [];
  const start = (extra: Record<string, string> = {}) => {
    const p = npmStart({ ...env, ...extra });
    started.push(p);
    return p;
  };
  const postmaster = () => {
    const text = fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), { encoding: 'utf8', flag: 'r' });
    return Number(text.split('\n')[0]);
  };
  const postmasterGone = () => !fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'));
  async function healthy(p: ReturnType<typeof npmStart>) {
    const [, address] = await p.waitFor(/API listening on (http:\/\/[\d.]+:\d+)/);
    assert.equal((await fetch(`${address}/healthz`)).status, 200);
    const login = await fetch(`${address}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ usuario: 'admin@lifecycle.uy', clave: PASSWORD }) });
    assert.equal(login.status, 200, 'the administrator created at the first start is still there');
    return address!;
  }

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-lifecycle-'));
    fs.chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as the user postgres, who must enter it
    env = { PORT: '0', DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), ADMIN_USER: 'admin@lifecycle.uy', SHUTDOWN_TIMEOUT_MS: '10000' };
  });
  after(async () => {
    for (const p of started) if (p.child.exitCode === null && p.child.signalCode === null) process.kill(-p.child.pid!, 'SIGKILL');
    if (fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid')) && alive(postmaster())) process.kill(postmaster(), 'SIGQUIT');
    await until('postgres to stop', postmasterGone, 30_000).catch(() => {});
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('after kill -9 of node alone, the watchdog stops PostgreSQL and the next start is healthy with the data kept', async () => {
    const first = start();
    const address = await healthy(first);
    // Written just before the kill: a committed row must be there after the restart.
    const login = await (await fetch(`${address}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ usuario: 'admin@lifecycle.uy', clave: PASSWORD }) })).json();
    const created = await fetch(`${address}/api/v1/usuario/crear`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${login.accessToken}` }, body: JSON.stringify({ usuario: 'kept@lifecycle.uy', clave: 'kept-password-1', nombre: 'Kept' }) });
    assert.equal(created.status, 201, await created.text());
    const pm = postmaster();
    process.kill(first.node(), 'SIGKILL');
    await until('the orphaned PostgreSQL to be stopped by its watchdog', () => !alive(pm));
    const again = start();
    const address2 = await healthy(again);
    const kept = await fetch(`${address2}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ usuario: 'kept@lifecycle.uy', clave: 'kept-password-1' }) });
    assert.equal(kept.status, 200, 'the user created just before kill -9 is there');
    assert.match(again.output(), /ADMIN_PASSWORD ignored: the database already has users/);
    process.kill(again.child.pid!, 'SIGTERM');
    await again.exited;
  });

  it('after kill -9 of node and its watchdog, the next start stops its own orphaned PostgreSQL and goes on', async () => {
    const first = start();
    await healthy(first);
    const node = first.node();
    const pm = postmaster();
    const watchdog = Number(execFileSync('pgrep', ['-f', `cfe-pg-watchdog ${node} `], { encoding: 'utf8' }).trim());
    process.kill(watchdog, 'SIGKILL');
    process.kill(node, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok(alive(pm), 'PostgreSQL outlived both (the case the start must handle)');
    const again = start();
    await healthy(again);
    assert.match(again.output(), new RegExp(`"pid":${pm}.*left running by a service that died`));
    process.kill(again.child.pid!, 'SIGTERM');
    await again.exited;
  });

  it('SIGTERM to npm pid alone stops node and PostgreSQL', async () => {
    const p = start();
    await healthy(p);
    const node = p.node();
    const pm = postmaster();
    process.kill(p.child.pid!, 'SIGTERM');
    await p.exited;
    await until('node and PostgreSQL to stop', () => !alive(node) && !alive(pm), 20_000);
    assert.match(p.output(), /shutdown complete/);
  });

  it('Ctrl-C (SIGINT to the whole process group) stops everything with a few lines and no stack trace', async () => {
    const p = start();
    await healthy(p);
    const pm = postmaster();
    const before = p.output().length;
    process.kill(-p.child.pid!, 'SIGINT');
    await p.exited;
    await until('PostgreSQL to stop', () => !alive(pm), 20_000);
    const tail = p.output().slice(before).trim().split('\n');
    assert.ok(tail.length <= 4, tail.join('\n'));
    assert.doesNotMatch(tail.join('\n'), /ECONNRESET|Error|\n\s+at /);
    assert.match(tail.join('\n'), /shutdown complete/);
  });

  it('npm killed (SIGKILL): the service notices its parent is gone and stops', async () => {
    const p = start();
    await healthy(p);
    const node = p.node();
    const pm = postmaster();
    process.kill(p.child.pid!, 'SIGKILL');
    await until('node and PostgreSQL to stop', () => !alive(node) && !alive(pm), 30_000);
  });

  it('a second start on the same data directory names the running instance and the folder', async () => {
    const first = start();
    await healthy(first);
    const second = start({ EMBEDDED_PG_PORT: String(await freePort()) });
    assert.equal(await second.exited, 1);
    const out = second.output();
    assert.match(out, new RegExp(`in use by another running instance of the service \\(pid ${first.node()}`));
    assert.ok(out.includes(dataDir), out);
    assert.doesNotMatch(out, /Is the port in use|\n\s+at /);
    process.kill(first.child.pid!, 'SIGTERM');
    await first.exited;
  });
});

describe('unusable data directories', () => {
  it('a DATA_DIR under a file names the variable and the reason', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-lifecycle-')), 'a-file');
    fs.writeFileSync(file, '');
    const p = npmStart({ PORT: '0', DATA_DIR: path.join(file, 'data') });
    assert.equal(await p.exited, 1);
    assert.match(p.output(), /DATA_DIR .*a-file\/data cannot be used: a part of the path is a file, not a folder \(ENOTDIR/);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  const mountable = process.getuid?.() === 0 && process.platform === 'linux';
  it('a DATA_DIR on a read-only file system says so', { skip: !mountable && 'needs root to mount a read-only tmpfs' }, async (t) => {
    const mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-ro-'));
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'none', mnt]).status !== 0) {
      fs.rmdirSync(mnt);
      return t.skip('mount refused here');
    }
    try {
      const p = npmStart({ PORT: '0', DATA_DIR: path.join(mnt, 'data') });
      assert.equal(await p.exited, 1);
      assert.match(p.output(), /DATA_DIR .*\/data cannot be used: the file system is read-only \(EROFS/);
    } finally {
      spawnSync('umount', [mnt]);
      fs.rmdirSync(mnt);
    }
  });
});
