/**
 * README.md "Your first receipt" cannot rot (issue 27 point 3): its shell blocks are taken from the
 * README as written and run with bash against the service started the way `npm start` starts it
 * (src/main.ts: in-process worker and DGI simulator), on a test database. The first block is the
 * start command (its variables become the service's environment); the others run in one bash
 * session, as pasted into one terminal. The one change: the README's address
 * http://127.0.0.1:3000 becomes the test service's own port. The receipts must end `aceptado`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cloneTemplate } from './support/app.js';

const root = path.resolve(import.meta.dirname, '..');
const README_ADDRESS = 'http://127.0.0.1:3000';

/** The ```sh blocks of the README section whose heading is `title`, in order. */
function shellBlocks(markdown: string, title: string): string[] {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README.md has no section "## ${title}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

function run(command: string, args: string[], opts: { env: NodeJS.ProcessEnv; cwd?: string }) {
  const child = spawn(command, args, { cwd: opts.cwd ?? root, env: opts.env });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => out };
}

async function waitFor(what: string, check: () => RegExpExecArray | null, ms: number) {
  const end = Date.now() + ms;
  for (;;) {
    const found = check();
    if (found) return found;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('README "Your first receipt"', () => {
  it('the pasted blocks take a new service to an e-Ticket and an e-Factura accepted by the simulated DGI', { timeout: 240_000 }, async () => {
    const [startBlock, ...steps] = shellBlocks(fs.readFileSync(path.join(root, 'README.md'), 'utf8'), 'Your first receipt');
    const start = /^((?:[A-Z_]+=\S+ +)*)npm start\n$/.exec(startBlock ?? '');
    assert.ok(start, `the first block starts the service: "<VAR=value ...> npm start", not ${JSON.stringify(startBlock)}`);
    const startEnv = Object.fromEntries(start[1].trim().split(/ +/).filter(Boolean).map((kv) => kv.split(/=(.*)/s).slice(0, 2)));
    const script = steps.join('\n');
    assert.equal(script.split(README_ADDRESS).length, 2, `the blocks name the address ${README_ADDRESS} once (API=...)`);

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-readme-'));
    // What `npm start` runs (package.json "start"), on a test database with the worker in the process as on the embedded default.
    const service = run(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, ...startEnv, DATABASE_URL: await cloneTemplate(), DATA_DIR: dataDir, PORT: '0', WORKER_IN_PROCESS: 'true', LOG_LEVEL: 'warn' },
    });
    try {
      const [, address] = await waitFor('the service to listen', () => /API listening on (http:\/\/[\d.]+:\d+)/.exec(service.output()), 60_000);
      const guide = run('bash', ['-c', script.replace(README_ADDRESS, address)], { env: { ...process.env, TMPDIR: dataDir }, cwd: dataDir });
      const code = await Promise.race([guide.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 150_000))]);
      if (code === 'timeout') guide.child.kill('SIGKILL');
      const out = guide.output();
      const accepted = [...out.matchAll(/^comprobante (\d+): aceptado$/gm)].map((m) => Number(m[1]));
      assert.equal(accepted.length, 2, `both receipts accepted; the guide printed:\n${out}\n--- service:\n${service.output()}`);
      assert.match(out, /^%PDF-$/m, 'the printed e-Factura is a PDF');

      // Checked again from outside the script, through the API.
      const login = await fetch(`${address}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ usuario: 'admin@localhost.localdomain', clave: startEnv.ADMIN_PASSWORD }) });
      const { accessToken } = (await login.json()) as { accessToken: string };
      const types: number[] = [];
      for (const id of accepted) {
        const cfe = (await (await fetch(`${address}/api/v1/cfeemitido/${id}`, { headers: { authorization: `Bearer ${accessToken}` } })).json()) as { tipoCfe: number; estado: string };
        assert.equal(cfe.estado, 'aceptado');
        types.push(cfe.tipoCfe);
      }
      assert.deepEqual(types.sort(), [101, 111], 'an e-Ticket and an e-Factura');
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
