/**
 * Start-up bench (issue 44 point 6): the service from TypeScript through tsx (src/main.ts) against the
 * production build (dist/main.js, scripts/build.mjs), side by side in one run: time from spawn to the
 * first 200 on /healthz on an existing data directory (no initdb), the process's RSS once idle, and
 * the RSS of its other children (tsx's esbuild service processes; the embedded PostgreSQL excluded).
 * Raw baseline of the same run: `node -e 0` (the bare runtime's start-up) on this machine.
 * `npx tsx bench/startup.ts [--runs 3]`.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENTRIES = {
  'tsx (src/main.ts)': ['--import', 'tsx', '--v8-pool-size=1', '--import', './src/platform/loader/register.mjs', 'src/main.ts'],
  'build (dist/main.js)': ['--enable-source-maps', '--v8-pool-size=1', 'dist/main.js'],
};

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
const children = (pid: number) => execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map((l) => l.trim().split(/\s+/)).map(([p, c]) => ({ pid: Number(p), comm: c! }));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function startOnce(args: string[], env: NodeJS.ProcessEnv, port: number) {
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: 'ignore' });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited (${child.exitCode})`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const upMs = Number(process.hrtime.bigint() - t0) / 1e6;
  await new Promise((r) => setTimeout(r, 5000)); // idle
  const rss = rssKb(child.pid!) / 1024;
  const others = children(child.pid!).filter((c) => !c.comm.startsWith('postgres') && c.comm !== 'sh');
  const othersRss = others.reduce((a, c) => a + rssKb(c.pid) / 1024, 0);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return { upMs, rss, othersRss, others: others.map((c) => c.comm) };
}

export async function runStartupBench(runs = 3) {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-startup-'));
  fs.chmodSync(dataDir, 0o755);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ADMIN_PASSWORD: 'bench-startup-1' };
  for (const k of ['DATABASE_URL', 'NODE_ENV', 'WORKER_IN_PROCESS', 'npm_lifecycle_event']) delete env[k];
  try {
    await startOnce(ENTRIES['build (dist/main.js)'], env, port); // initdb, migrations, first admin: not measured
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 5; i++) execFileSync(process.execPath, ['-e', '0']);
    const bareMs = Number(process.hrtime.bigint() - t0) / 1e6 / 5;
    console.log(`startup: baseline \`node -e 0\` ${bareMs.toFixed(0)} ms; median of ${runs} starts each, alternating`);
    const results: Record<string, Array<Awaited<ReturnType<typeof startOnce>>>> = {};
    for (let i = 0; i < runs; i++) {
      for (const [name, args] of Object.entries(ENTRIES)) (results[name] ??= []).push(await startOnce(args, env, port));
    }
    for (const [name, rs] of Object.entries(results)) {
      const up = median(rs.map((r) => r.upMs));
      console.log(`startup: ${name.padEnd(22)} up in ${up.toFixed(0)} ms (${(up / bareMs).toFixed(1)}× node -e 0), idle RSS ${median(rs.map((r) => r.rss)).toFixed(0)} MB + other children ${median(rs.map((r) => r.othersRss)).toFixed(0)} MB (${rs[0]!.others.join(', ') || 'none'})`);
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--runs');
  runStartupBench(i > 0 ? Number(process.argv[i + 1]) : 3).then(() => process.exit(0), (err) => {
    console.error(err);
    process.exit(1);
  });
}
