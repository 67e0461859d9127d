/**
 * CPU accounting for the benches (Linux /proc; elsewhere every figure is 0): CPU time of this
 * process's threads by name and of all `postgres` processes, so a bench can print where the two
 * cores went (API event loop, worker threads, load generator, PostgreSQL).
 */
import fs from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux
const THREAD = 'thread ';

function ticks(statPath: string): { comm: string; ms: number } | undefined {
  try {
    const s = fs.readFileSync(statPath, 'latin1');
    const close = s.lastIndexOf(')');
    const comm = s.slice(s.indexOf('(') + 1, close);
    const f = s.slice(close + 2).split(' ');
    return { comm, ms: (Number(f[11]) + Number(f[12])) * TICK_MS };
  } catch {
    return undefined;
  }
}

/** ms of CPU per thread name of this process (but the `skip` thread ids), and of every postgres process on the machine. */
export function cpuSnapshot(skip: number[] = []): Map<string, number> {
  const out = new Map<string, number>();
  const add = (k: string, ms: number) => out.set(k, (out.get(k) ?? 0) + ms);
  let tasks: string[] = [];
  try { tasks = fs.readdirSync('/proc/self/task'); } catch { return out; }
  for (const t of tasks) {
    if (skip.includes(Number(t))) continue;
    const r = ticks(`/proc/self/task/${t}/stat`);
    if (r) add(t === String(process.pid) ? 'node main thread' : `${THREAD}${t}`, r.ms);
  }
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    const r = ticks(`/proc/${p}/stat`);
    if (r && (r.comm === 'postgres' || r.comm.startsWith('postgres:'))) add('postgres (all processes)', r.ms);
  }
  return out;
}

/** Per-key CPU between two snapshots, as ms per unit of work and % of one core over `wallMs`. */
export function cpuReport(before: Map<string, number>, after: Map<string, number>, wallMs: number, units: number): Array<{ name: string; pctOfCore: number; msPerUnit: number }> {
  const rows: Array<{ name: string; pctOfCore: number; msPerUnit: number }> = [];
  const row = (name: string, d: number) => rows.push({ name, pctOfCore: Math.round((d / wallMs) * 100), msPerUnit: Math.round((d / Math.max(units, 1)) * 1000) / 1000 });
  // Node threads carry no useful names: the busiest one besides the main thread is the (single) seal worker.
  const others: number[] = [];
  for (const [name, ms] of after) {
    const d = ms - (before.get(name) ?? 0);
    if (d <= 0) continue;
    if (name.startsWith(THREAD)) others.push(d);
    else row(name, d);
  }
  others.sort((a, b) => b - a);
  if (others.length) row('busiest other node thread (the seal worker)', others[0]);
  if (others.length > 1) row('other node threads (GC, compiler, libuv, other workers)', others.slice(1).reduce((a, b) => a + b, 0));
  return rows.sort((a, b) => b.pctOfCore - a.pctOfCore);
}

/** Machine-wide CPU time from /proc/stat's `cpu` line (ms, all cores): busy, idle (with iowait) and steal. */
export function machineSnapshot(): { busy: number; idle: number; steal: number } {
  try {
    const line = fs.readFileSync('/proc/stat', 'latin1').split('\n')[0];
    // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest time is inside user)
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1, 9).map((x) => Number(x) * TICK_MS);
    return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal };
  } catch {
    return { busy: 0, idle: 0, steal: 0 };
  }
}

/**
 * Where the machine's cores went between two snapshots, as % of all cores: busy, idle, and stolen
 * by the hypervisor (time the VM wanted a core and did not get it: on a shared VM it lowers every
 * figure of a run without any change in the code).
 */
export function machineReport(before: ReturnType<typeof machineSnapshot>, after: ReturnType<typeof machineSnapshot>): { busy: number; idle: number; steal: number } {
  const busy = after.busy - before.busy;
  const idle = after.idle - before.idle;
  const steal = after.steal - before.steal;
  const total = Math.max(busy + idle + steal, 1);
  const pct = (x: number) => Math.round((x / total) * 1000) / 10;
  return { busy: pct(busy), idle: pct(idle), steal: pct(steal) };
}

/**
 * CPU (ms) of the one PostgreSQL server that has backends on database `dbName` (its postmaster,
 * background processes and backends, reaped children included), not of other servers on the machine.
 */
export function postgresServerCpu(dbName: string): number {
  const stat = (p: string) => {
    try {
      const s = fs.readFileSync(`/proc/${p}/stat`, 'latin1');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      return { ppid: f[1], own: (Number(f[11]) + Number(f[12])) * TICK_MS, reaped: (Number(f[13]) + Number(f[14])) * TICK_MS };
    } catch {
      return undefined;
    }
  };
  let pids: string[] = [];
  try { pids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)); } catch { return 0; }
  let postmaster: string | undefined;
  for (const p of pids) {
    try {
      if (fs.readFileSync(`/proc/${p}/cmdline`, 'latin1').startsWith(`postgres: `) && fs.readFileSync(`/proc/${p}/cmdline`, 'latin1').includes(` ${dbName} `)) {
        postmaster = stat(p)?.ppid;
        break;
      }
    } catch {
      // gone
    }
  }
  if (!postmaster) return 0;
  let ms = 0;
  const pm = stat(postmaster);
  if (pm) ms += pm.own + pm.reaped;
  for (const p of pids) {
    const s = stat(p);
    if (s && s.ppid === postmaster) ms += s.own;
  }
  return ms;
}
