/**
 * `npm run client:generate`: regenerates the typed client's `clients/typescript/src/schema.d.ts` from
 * the OpenAPI document of this checkout (openapi-typescript, run from the client package, which pins
 * its own TypeScript 5 for it). `--check` writes nothing and exits 1 when the committed file differs.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openApiDocument } from './openapi-document.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const client = path.join(root, 'clients', 'typescript');
const target = path.join(client, 'src', 'schema.d.ts');

/** The schema.d.ts the current OpenAPI document gives. */
export async function generatedSchema(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-generate-'));
  try {
    const spec = path.join(dir, 'openapi.json');
    const out = path.join(dir, 'schema.d.ts');
    fs.writeFileSync(spec, JSON.stringify(await openApiDocument()));
    const bin = path.join(client, 'node_modules', '.bin', 'openapi-typescript');
    execFileSync(bin, [spec, '--output', out], { cwd: client, stdio: ['ignore', 'ignore', 'inherit'] });
    return fs.readFileSync(out, 'utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const fresh = await generatedSchema();
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
    if (current !== fresh) {
      console.error('clients/typescript/src/schema.d.ts is out of date: run `npm run client:generate`.');
      process.exit(1);
    }
    console.log('clients/typescript/src/schema.d.ts is current.');
  } else {
    fs.writeFileSync(target, fresh);
    console.log(`client: ${path.relative(root, target)} written (${fresh.length} bytes)`);
  }
}
