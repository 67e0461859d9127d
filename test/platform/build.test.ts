/** The production build (issue 44 point 6, scripts/build.mjs): what `npm start` runs from dist/. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const dist = path.join(root, 'dist');

function jsFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) jsFiles(p, out);
    else if (e.name.endsWith('.js')) out.push(p);
  }
  return out;
}

describe('production build', () => {
  it('builds when stale; every relative import and worker entry points at .js; stack traces name the TypeScript', () => {
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root });
    const files = jsFiles(dist);
    for (const entry of ['main.js', 'worker.js', 'modules/issued-cfe/issued-cfe.seal-worker.js', 'modules/received-cfe/received-cfe.verify-worker.js', 'modules/dgi/simulator/thread-entry.js', 'platform/workers/boot.mjs', 'platform/loader/node-modules-hooks.mjs']) {
      assert.ok(fs.existsSync(path.join(dist, entry)), entry);
    }
    assert.ok(!files.some((f) => f.includes('.test')), 'no test file in the build');
    const tsImports = files.filter((f) => /(from|import)\s*\(?\s*"\.{1,2}\/[^"]+\.ts"/.test(fs.readFileSync(f, 'utf8')));
    assert.deepEqual(tsImports, []);
    const stack = execFileSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', "import { AppError } from './dist/lib/errors.js'; try { new AppError('NO_SUCH_CODE'); } catch (e) { console.log(e.stack); }"], { cwd: root, encoding: 'utf8' });
    assert.match(stack, /src\/lib\/errors\.ts:\d+:\d+/);
  });

  it('a worker entry resolves to the .js file from the build and the .ts file under tsx', async () => {
    const { workerEntry } = await import('../../src/platform/workers/pool.ts');
    assert.equal(workerEntry('./x.ts', 'file:///a/b/pool.js').href, 'file:///a/b/x.js');
    assert.equal(workerEntry('./x.ts', 'file:///a/b/pool.ts').href, 'file:///a/b/x.ts');
  });
});
