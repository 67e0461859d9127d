/**
 * DATA_DIR checked before anything is written there (issue 44 point 4): a folder that cannot be
 * created or written is reported with the variable's name and the system's real reason. A recursive
 * mkdir on a read-only file system reports ENOENT, which said nothing useful; creating the missing
 * folders one level at a time and writing a probe file gives the true error (EROFS, EACCES…).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export class DataDirError extends Error {
  override name = 'DataDirError';
}

const REASONS: Record<string, string> = {
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is a file, not a folder',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EEXIST: 'a file (not a folder) has that name',
};

/** The error's plain reason, e.g. "the file system is read-only (EROFS, mkdir /x)". */
export function explainFsError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const reason = (e.code && REASONS[e.code]) ?? e.message;
  const who = e.code === 'EACCES' || e.code === 'EPERM' ? ` for user ${userName()}` : '';
  return `${reason}${who} (${[e.code, e.syscall, e.path].filter(Boolean).join(' ')})`;
}

function userName(): string {
  try {
    return `${os.userInfo().username} (uid ${process.getuid?.() ?? '?'})`;
  } catch {
    return '?';
  }
}

/** Creates DATA_DIR when missing and proves it writable; throws DataDirError naming the variable. */
export function ensureWritableDataDir(dataDir: string): void {
  const fail = (err: unknown): never => {
    throw new DataDirError(`DATA_DIR ${dataDir} cannot be used: ${explainFsError(err)}. Set DATA_DIR to a folder this user can write, or fix that one.`);
  };
  const missing: string[] = [];
  let d = path.resolve(dataDir);
  while (!fs.existsSync(d) && d !== path.dirname(d)) {
    missing.unshift(d);
    d = path.dirname(d);
  }
  if (!missing.length && !fs.statSync(d).isDirectory()) fail(Object.assign(new Error('not a folder'), { code: 'ENOTDIR', syscall: 'stat', path: d }));
  for (const m of missing) {
    try {
      fs.mkdirSync(m);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') fail(err);
    }
  }
  const probe = path.join(dataDir, `.write-test-${process.pid}`);
  try {
    fs.writeFileSync(probe, '');
    fs.rmSync(probe, { force: true });
  } catch (err) {
    fail(err);
  }
}
