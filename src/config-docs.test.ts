/**
 * Every setting src/config.ts reads is documented (issue 27 point 3): listed in .env.example (as
 * `KEY=` or `# KEY=`) and named in README.md's Configuration section. The keys come from the source
 * of the env schema, so a new setting without documentation fails here.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

/** The top-level keys of `const envSchema = z.object({ ... })` in config.ts. */
function configKeys(source: string): string[] {
  const start = source.indexOf('const envSchema = z.object({');
  assert.ok(start >= 0, 'config.ts declares envSchema');
  const end = source.indexOf('\n});', start);
  return [...source.slice(start, end).matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]);
}

function readmeConfiguration(): string {
  const readme = read('README.md');
  const start = readme.indexOf('\n## Configuration\n');
  assert.ok(start >= 0, 'README.md has a "## Configuration" section');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

describe('configuration documentation', () => {
  const keys = configKeys(read('src/config.ts'));

  it('finds the settings of config.ts', () => {
    assert.ok(keys.length > 40, `only ${keys.length} keys found: did envSchema change shape?`);
    for (const k of ['PORT', 'DATA_DIR', 'DGI_MODE', 'DGI_SIMULATOR_URL']) assert.ok(keys.includes(k), k);
  });

  it('.env.example lists every setting', () => {
    const example = read('.env.example');
    const missing = keys.filter((k) => !new RegExp(`^(# ?)?${k}=`, 'm').test(example));
    assert.deepEqual(missing, [], `add to .env.example: ${missing.join(', ')}`);
  });

  it("README.md's Configuration section names every setting", () => {
    const section = readmeConfiguration();
    const missing = keys.filter((k) => !section.includes(`\`${k}\``));
    assert.deepEqual(missing, [], `add to README.md "## Configuration": ${missing.join(', ')}`);
  });
});
