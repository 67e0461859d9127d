// The production build (issue 44 point 6): src/**/*.ts transpiled file by file with esbuild into
// dist/ (same folder depth as src/, so the code's relative paths to resources/ and migrations/
// still hold), with source maps so stack traces point at the TypeScript (node
// --enable-source-maps). Not a bundle: worker threads load their entry files by URL, and
// dependencies stay in node_modules. Type checking is `npm run typecheck`'s job, not this one's.
//
// `node scripts/build.mjs --if-stale` (npm's prestart/preworker) rebuilds only when a file under
// src/ changed since the last build (edited, added, removed or renamed): a fresh clone builds at its
// first start, an unchanged tree costs one walk of src/ (a few ms). Plain JavaScript, so it runs
// without tsx.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const out = path.join(root, 'dist');
const stamp = path.join(out, '.build-stamp.json');

/** Files that go to production: sources and loader hooks, not tests and their helpers. */
function sources(dir = src, list = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sources(p, list);
    else if (/\.(ts|mjs)$/.test(e.name) && !/\.test\.ts$|\.test-[\w-]+\.ts$|test-helpers\.ts$/.test(e.name) && !e.name.endsWith('.d.ts')) list.push(p);
  }
  return list;
}

/** Every source's path, size and mtime, hashed: an edit, an addition, a removal or a rename shows. */
function fingerprint(files) {
  const h = createHash('sha256');
  for (const f of [...files].sort()) {
    const st = fs.statSync(f);
    h.update(`${path.relative(src, f)}\0${st.size}\0${st.mtimeMs}\n`);
  }
  return { files: files.length, hash: h.digest('hex') };
}

const files = sources();
const now = fingerprint(files);
if (process.argv.includes('--if-stale')) {
  try {
    const last = JSON.parse(fs.readFileSync(stamp, 'utf8'));
    if (last.hash === now.hash) process.exit(0);
  } catch {
    // no build yet
  }
}

const t0 = Date.now();
const { build } = await import('esbuild');
// Built beside dist/ and swapped in by renames: an API and a worker starting together, or a
// process already running from dist/, never see a half-written tree.
const tmp = `${out}.tmp-${process.pid}`;
fs.rmSync(tmp, { recursive: true, force: true });
const ts = files.filter((f) => f.endsWith('.ts'));
// Every file is its own entry point and every relative import stays an import (external), its
// `.ts` extension rewritten to `.js`: the sources import each other both ways ('./x.js', './x.ts').
// `bundle` is on only so that this resolver runs; nothing is inlined (packages stay external too).
const keepRelativeImports = {
  name: 'keep-relative-imports',
  setup(b) {
    b.onResolve({ filter: /^\.{1,2}\// }, (args) => (args.kind === 'entry-point' ? undefined : { path: args.path.replace(/\.ts$/, '.js'), external: true }));
  },
};
await build({
  entryPoints: ts,
  bundle: true,
  packages: 'external',
  plugins: [keepRelativeImports],
  outdir: tmp,
  outbase: src,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
for (const f of files.filter((x) => x.endsWith('.mjs'))) {
  const to = path.join(tmp, path.relative(src, f));
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(f, to);
}
fs.writeFileSync(path.join(tmp, path.basename(stamp)), JSON.stringify(now));
const old = `${out}.old-${process.pid}`;
try {
  fs.renameSync(out, old);
} catch {
  // no earlier build
}
fs.renameSync(tmp, out);
fs.rmSync(old, { recursive: true, force: true });
console.log(`build: ${ts.length} files → dist/ in ${Date.now() - t0} ms`);
