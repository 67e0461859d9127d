/**
 * Who owns the embedded PostgreSQL of a data folder (issue 44 points 1 and 4).
 *
 * The cluster runs in its own process group (embedded.ts), so a terminal's Ctrl-C reaches only the
 * service, which then stops it in order. The other side of that: when the service dies without
 * running its exit handlers (kill -9, the OOM killer), nothing signals PostgreSQL. Two things
 * cover that case:
 * - a watchdog (a tiny shell loop, ~1 MB) started beside the cluster asks PostgreSQL for a fast
 *   shutdown within about a second of its owner's death;
 * - a start that finds the folder's postmaster still running looks at the postmaster's parent: a
 *   live node process is another instance (refused, naming its pid and the folder); anything else
 *   (init, a subreaper) means its owner died, and the orphan is stopped cleanly before going on.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger.js';
import { EmbeddedPostgresError } from './embedded-root.js';

const ORPHAN_STOP_TIMEOUT_MS = 30_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The postmaster's pid from DIR/postmaster.pid, or undefined when there is none. */
export function postmasterPid(dir: string): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number(text.split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Parent pid and command line of a process (Linux /proc; `ps` elsewhere), or undefined when gone. */
function processInfo(pid: number): { ppid: number; command: string } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 4 follows "(comm)", which may itself contain spaces and parentheses.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { ppid, command };
  } catch {
    if (fs.existsSync('/proc/self/stat')) return undefined;
  }
  try {
    const out = execFileSync('ps', ['-o', 'ppid=,command=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    const m = /^(\d+)\s+(.*)$/.exec(out);
    return m ? { ppid: Number(m[1]), command: m[2]! } : undefined;
  } catch {
    return undefined;
  }
}

/** A Node.js process (the service runs as `node …`, whatever wrapper started it). */
function isNode(command: string): boolean {
  const program = path.basename(command.split(' ')[0] ?? '');
  return program.startsWith('node') || program === path.basename(process.execPath);
}

/**
 * Before starting the cluster in `dir`: nothing when no postmaster runs there; EmbeddedPostgresError
 * naming the other instance when a live service owns it; otherwise stops the orphan and returns.
 */
export async function claimCluster(dir: string, dataDir: string, logger?: Logger): Promise<void> {
  const pid = postmasterPid(dir);
  if (pid === undefined || !alive(pid)) return; // no lock, or a stale one PostgreSQL itself replaces
  const pm = processInfo(pid);
  if (!pm || !/postgres/.test(pm.command)) return; // the pid was reused by something else: stale lock
  const owner = pm.ppid > 1 ? processInfo(pm.ppid) : undefined;
  if (owner && isNode(owner.command)) {
    throw new EmbeddedPostgresError(`The data directory ${dataDir} is in use by another running instance of the service (pid ${pm.ppid}: ${owner.command.slice(0, 120)}); its PostgreSQL (pid ${pid}) serves ${dir}. Stop that instance first, or set DATA_DIR to another folder.`);
  }
  logger?.warn({ pid, dir, parent: pm.ppid }, 'embedded PostgreSQL left running by a service that died (kill -9, OOM killer): stopping it before starting again');
  await stopOrphan(pid);
  logger?.info({ pid }, 'orphaned embedded PostgreSQL stopped');
}

/** Fast shutdown (SIGINT: sessions ended, data flushed), then immediate shutdown if it hangs. */
async function stopOrphan(pid: number): Promise<void> {
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(pid, s);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EPERM') {
        throw new EmbeddedPostgresError(`An embedded PostgreSQL left running by a dead instance (pid ${pid}) belongs to another user and cannot be stopped from here (${(err as Error).message}); stop it as that user (kill -INT ${pid}).`);
      }
    }
  };
  signal('SIGINT');
  const deadline = Date.now() + ORPHAN_STOP_TIMEOUT_MS;
  while (alive(pid)) {
    if (Date.now() > deadline) {
      signal('SIGQUIT'); // immediate shutdown: crash recovery at the next start, no data loss
      await new Promise((r) => setTimeout(r, 2000));
      if (alive(pid)) throw new EmbeddedPostgresError(`The orphaned embedded PostgreSQL (pid ${pid}) did not stop within ${ORPHAN_STOP_TIMEOUT_MS / 1000} s; stop it (kill -QUIT ${pid}) and start again.`);
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The watchdog: a detached shell that polls this process once a second and, once it is gone,
 * asks the postmaster for a fast shutdown (only while DIR/postmaster.pid still names it, so a
 * reused pid is never signalled). Killed by `stop` when the service stops the cluster itself.
 */
export function startWatchdog(dir: string, postmaster: number): { stop(): void } {
  const script = [
    "trap '' INT TERM HUP",
    'while kill -0 "$1" 2>/dev/null; do sleep 1; done',
    '[ "$(head -n 1 "$3/postmaster.pid" 2>/dev/null)" = "$2" ] && kill -INT "$2" 2>/dev/null',
    'exit 0',
  ].join('\n');
  const child = spawn('/bin/sh', ['-c', script, 'cfe-pg-watchdog', String(process.pid), String(postmaster), dir], { detached: true, stdio: 'ignore' });
  child.on('error', () => {}); // no /bin/sh: the start-time orphan check still covers a crash
  child.unref();
  return {
    stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
