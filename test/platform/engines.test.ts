/**
 * Every locked dependency supports the lowest Node version our `engines` declares (issue 27 point 7):
 * otherwise `npm ci` warns EBADENGINE and the package may use what that Node lacks. A dependency
 * whose new major needs a newer Node is pinned in package.json `overrides` to the last line that
 * supports ours (content-disposition 2.0.1 and cookie 1.1.1: their 3.x/2.x want Node >= 22).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import semver from 'semver';

const ROOT = path.resolve(import.meta.dirname, '../..');
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));

interface LockedPackage {
  version?: string;
  engines?: Record<string, string> | string[];
}

/** `name@version wants node <range>` for each locked package whose engines exclude `node`. */
function unsupported(packages: Record<string, LockedPackage>, node: string): string[] {
  const out: string[] = [];
  for (const [where, pkg] of Object.entries(packages)) {
    if (where === '' || !pkg.engines || Array.isArray(pkg.engines) || !pkg.engines.node) continue;
    if (!semver.satisfies(node, pkg.engines.node)) out.push(`${where.replace(/^.*node_modules\//, '')}@${pkg.version} wants node ${pkg.engines.node}`);
  }
  return out;
}

describe('engines', () => {
  const declared: string = readJson('package.json').engines.node;
  const lowest = semver.minVersion(declared)!.version;

  test('package.json and package-lock.json declare the same Node range', () => {
    assert.equal(readJson('package-lock.json').packages[''].engines.node, declared);
    assert.equal(lowest, '20.19.0');
  });

  test('every package in package-lock.json supports the lowest declared Node version', () => {
    assert.deepEqual(unsupported(readJson('package-lock.json').packages, lowest), []);
  });

  test('the check catches a dependency that wants a newer Node', () => {
    const packages = { 'node_modules/@fastify/static/node_modules/content-disposition': { version: '3.0.0', engines: { node: '>=22' } }, 'node_modules/x': { version: '1.0.0', engines: { node: '^18.18.0 || ^20.9.0 || >=21.1.0' } } };
    assert.deepEqual(unsupported(packages, lowest), ['content-disposition@3.0.0 wants node >=22']);
  });
});
