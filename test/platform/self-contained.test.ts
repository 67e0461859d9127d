/**
 * The repository is self-contained (issue 27 point 1): no source, test, script or bench file reads a
 * path outside the repository root, so a fresh clone with nothing beside it runs the suite, the
 * demo and the service. Checked statically over the files:
 * - machine-specific absolute paths (`/work/…`, `/root/…`, `/home/…`, `/Users/…`) and the sibling
 *   `shared/` folder of our own checkout, anywhere in a file (comments included: a reader of a fresh
 *   clone cannot follow them either);
 * - relative paths climbing from the file's folder (`new URL('../../x', import.meta.url)`,
 *   `path.resolve(import.meta.dirname, '../../..')`, `path.join(__dirname, '..', '..')`): resolved
 *   against the file's own folder, they must stay inside the root.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FOLDERS = ['src', 'test', 'scripts', 'bench'];
const EXTENSIONS = /\.(ts|mts|cts|js|mjs|cjs|sh)$/;

// Built from pieces so that this file does not match its own patterns.
const FOREIGN = new RegExp(['/' + 'work/', '/' + 'root/', '/' + 'home/', '/' + 'Users/', '\\.\\./' + 'shared/', '[\'"`]' + 'shared/'].join('|'));

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(p, out);
    else if (EXTENSIONS.test(entry.name)) out.push(p);
  }
  return out;
}

/**
 * The relative paths a file names from its own folder: a string literal starting with `..` (a
 * template literal up to its first `${`), joined with the literals that directly follow it as
 * further arguments (`'..', '..', 'x'`).
 */
function climbingPaths(text: string): string[] {
  const literal = /'([^'\\\n]*)'|"([^"\\\n]*)"|`([^`\\$]*)/g;
  const found: string[] = [];
  let run: { parts: string[]; end: number } | undefined;
  for (let m = literal.exec(text); m; m = literal.exec(text)) {
    const value = m[1] ?? m[2] ?? m[3] ?? '';
    const between = run ? text.slice(run.end, m.index) : '';
    if (run && /^\s*,\s*$/.test(between)) {
      run.parts.push(value);
      run.end = m.index + m[0].length;
      continue;
    }
    if (run) found.push(run.parts.join('/'));
    run = value === '..' || value.startsWith('../') ? { parts: [value], end: m.index + m[0].length } : undefined;
  }
  if (run) found.push(run.parts.join('/'));
  return found;
}

/** Problems of one file: foreign absolute paths and relative paths that leave ROOT. */
function outsideReads(file: string, text: string, root = ROOT): string[] {
  const problems: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (FOREIGN.test(line)) problems.push(`${path.relative(root, file)}:${i + 1}: path outside the repository: ${line.trim()}`);
  });
  for (const rel of climbingPaths(text)) {
    const target = path.resolve(path.dirname(file), rel);
    if (path.relative(root, target).startsWith('..')) problems.push(`${path.relative(root, file)}: '${rel}' resolves to ${target}, outside the repository`);
  }
  return problems;
}

describe('self-contained repository', () => {
  test('no source, test, script or bench file reads a path outside the repository root', () => {
    const files = FOLDERS.flatMap((f) => sourceFiles(path.join(ROOT, f)));
    assert.ok(files.length > 100, `scanned ${files.length} files`);
    const problems = files.filter((f) => f !== import.meta.filename).flatMap((f) => outsideReads(f, fs.readFileSync(f, 'utf8')));
    assert.deepEqual(problems, []);
  });

  test('the check sees the shapes a path outside takes', () => {
    const file = path.join(ROOT, 'src/modules/cae/x.test.ts');
    const bad = [
      `const S = path.resolve(import.meta.dirname, '../../../../${'shared'}/dgi/samples/cae');`,
      `const S = path.resolve(import.meta.dirname, '../../../..');`,
      `const S = path.join(__dirname, '..', '..', '..', '..', 'elsewhere');`,
      'const S = new URL(`../../../../x/${name}`, import.meta.url);',
      `// see /${'work'}/${'shared'}/dgi/samples/SOURCE.md`,
    ];
    for (const b of bad) assert.notDeepEqual(outsideReads(file, b), [], b);
    const good = [
      `const S = path.resolve(import.meta.dirname, '../../../test/fixtures/dgi/cae');`,
      `const S = path.join(__dirname, '..', '..', '..', 'resources');`,
      'const S = new URL(`../../../test/fixtures/dgi/${name}`, import.meta.url);',
      `import { x } from '../../lib/errors.js';`,
    ];
    for (const g of good) assert.deepEqual(outsideReads(file, g), [], g);
  });
});
