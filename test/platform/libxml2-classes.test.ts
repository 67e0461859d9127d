/**
 * src/platform/xml/libxml2.ts: libxml2-wasm's node classes get optimized code in V8. Without the
 * workaround there, every TurboFan compile of a function that constructs one is aborted ("dependency
 * change") and retried for as long as the process runs; this counts those aborts in a child process
 * under --trace-opt, walking a document the way the simulated DGI walks each CFE.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The aborted TurboFan compiles while walking a 146-node document 3,000 times, libxml2-wasm imported from `from`. */
function abortedCompiles(from: string): number {
  const script = `
    import { XmlDocument, XmlElement } from '${from}';
    const xml = '<a xmlns="urn:x"><b c="1">t<d/>x</b><!-- c --><e>' + '<f g="2">h</f>'.repeat(70) + '</e></a>';
    let seen = 0;
    const walk = (e) => { for (let n = e.firstChild; n; n = n.next) { seen++; if (n instanceof XmlElement) { n.attr('g'); walk(n); } } };
    for (let i = 0; i < 3000; i++) { const doc = XmlDocument.fromString(xml); try { walk(doc.root); } finally { doc.dispose(); } }
    if (seen !== 3000 * 146) throw new Error('walked ' + seen + ' nodes');
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--trace-opt', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  return out.split('\n').filter((l) => l.startsWith('[aborted optimizing') && l.includes('dependency change')).length;
}

describe('libxml2-wasm node classes under V8', () => {
  it('through platform/xml/libxml2.ts, no compile of the node walk is thrown away (the package as published: hundreds)', () => {
    const ours = abortedCompiles('./src/platform/xml/libxml2.ts');
    const published = abortedCompiles('libxml2-wasm');
    assert.ok(ours <= 2, `aborted compiles through platform/xml/libxml2.ts: ${ours} (the package itself: ${published})`);
  });

  it('no module of the service imports libxml2-wasm but platform/xml/libxml2.ts', () => {
    const files = (fs.readdirSync(path.join(root, 'src'), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !/\.test\.ts$|test-helpers\.ts$/.test(f));
    const direct = files.filter((f) => f !== path.join('platform', 'xml', 'libxml2.ts') && /from 'libxml2-wasm'/.test(fs.readFileSync(path.join(root, 'src', f), 'utf8')));
    assert.deepEqual(direct, []);
  });
});
