// Module load hook (registered by ./register.mjs after tsx's): ES modules under node_modules are
// handed to Node as they are on disk, without going through tsx's transform. tsx rewrites every
// ES module it loads, dependencies included (dynamic import() calls, with a magic-string source map
// kept inline), and the loader thread and Node's source-map cache keep what that produced: for
// libxml2-wasm's 963 KB libxml2raw.mjs (its WebAssembly inlined) the process grew by ~150 MB
// resident against 12 MB under plain Node, and `npm start` sat at ~330 MB idle instead of ~180 MB
// (issue 29 point 5). Published packages are already JavaScript; our own TypeScript is unaffected.
import { readFile } from 'node:fs/promises';

export async function load(url, context, nextLoad) {
  if (url.startsWith('file://') && url.includes('/node_modules/') && !url.includes('/node_modules/tsx/') && (context.format === 'module' || url.endsWith('.mjs'))) {
    return { format: 'module', source: await readFile(new URL(url)), shortCircuit: true };
  }
  return nextLoad(url, context);
}
