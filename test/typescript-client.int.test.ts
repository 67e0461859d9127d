/**
 * The typed client (clients/typescript) against the service as it is now: its generated types are
 * those of the current OpenAPI document, it type-checks against them, its example issues a first
 * receipt on a fresh service, and its own checks (token recovery, typed errors, paging, webhook
 * verifier) pass. The client is a package of its own: its dependencies are installed with `npm ci`
 * in its folder when they are missing.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN, createTestApp, type TestApp } from './support/app.js';

const dir = path.resolve(import.meta.dirname, '../clients/typescript');
const bin = (name: string) => path.join(dir, 'node_modules/.bin', name);

let t: TestApp;
let address: string;
before(async () => {
  if (!fs.existsSync(bin('openapi-typescript')) || !fs.existsSync(bin('tsx'))) {
    const ci = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8' });
    assert.equal(ci.status, 0, ci.stderr);
  }
  t = await createTestApp();
  address = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => t.close());

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    // Without NODE_TEST_CONTEXT: the child's own test runner must not think it runs inside this one.
    const { NODE_TEST_CONTEXT: _, ...parent } = process.env;
    const child = spawn(command, args, { cwd: dir, env: { ...parent, ...env } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('TypeScript client', () => {
  it('its generated types are those of the current OpenAPI document (else: npm run generate in clients/typescript)', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'client-types-'));
    try {
      fs.writeFileSync(path.join(tmp, 'openapi.json'), (await t.app.inject({ method: 'GET', url: '/openapi.json' })).body);
      const gen = await run(bin('openapi-typescript'), [path.join(tmp, 'openapi.json'), '-o', path.join(tmp, 'schema.d.ts')]);
      assert.equal(gen.code, 0, gen.out);
      assert.ok(fs.readFileSync(path.join(tmp, 'schema.d.ts'), 'utf8') === fs.readFileSync(path.join(dir, 'src/schema.d.ts'), 'utf8'), 'clients/typescript/src/schema.d.ts is stale: run npm run generate in clients/typescript');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('type-checks (client, example and checks) against those types', async () => {
    const tsc = await run(bin('tsc'), ['--noEmit', '-p', '.']);
    assert.equal(tsc.code, 0, tsc.out);
  });

  it('its example issues a first receipt on a fresh service', { timeout: 120_000 }, async () => {
    const r = await run(bin('tsx'), ['example/first-receipt.ts'], { API: address, USUARIO: ADMIN.usuario, CLAVE: ADMIN.clave });
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /^e-Ticket A-1: total 379\.80, código de seguridad \S{6}$/m);
  });

  it('passes its own checks against the service', { timeout: 120_000 }, async () => {
    const r = await run(bin('tsx'), ['--test', 'test/client.check.ts'], { API: address, USUARIO: ADMIN.usuario, CLAVE: ADMIN.clave });
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /# fail 0/);
  });
});
