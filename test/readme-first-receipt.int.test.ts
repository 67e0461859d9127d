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

interface Step {
  /** A ```sh block. */
  shell: string;
  /** The lines of the answer block shown after it (```json or ```), if any. */
  shown: string[];
}

/** The ```sh blocks of the README section whose heading is `title`, in order, each with the answer shown after it. */
function readmeSteps(markdown: string, title: string): Step[] {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README.md has no section "## ${title}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const steps: Step[] = [];
  for (const m of section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)) {
    if (m[1] === 'sh') steps.push({ shell: m[2], shown: [] });
    else if (steps.length && steps.at(-1)!.shown.length === 0) steps.at(-1)!.shown = m[2].split('\n').filter(Boolean);
  }
  return steps;
}

/**
 * A shown answer line as a pattern: `…` stands for anything left out, and every number may differ
 * (ids, CAE numbers, amounts depend on the run); the rest must be printed as shown.
 */
function shownLinePattern(line: string): RegExp {
  const literal = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\d+/g, '\\d+');
  return new RegExp(`^${line.split('…').map(literal).join('.*')}$`);
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
    const [startStep, ...steps] = readmeSteps(fs.readFileSync(path.join(root, 'README.md'), 'utf8'), 'Your first receipt');
    const startBlock = startStep?.shell;
    const start = /^((?:[A-Z_]+=\S+ +)*)npm start\n$/.exec(startBlock ?? '');
    assert.ok(start, `the first block starts the service: "<VAR=value ...> npm start", not ${JSON.stringify(startBlock)}`);
    const startEnv = Object.fromEntries(start[1].trim().split(/ +/).filter(Boolean).map((kv) => kv.split(/=(.*)/s).slice(0, 2)));
    // One bash session; a marker line before each block tells its output apart.
    const script = steps.map((step, i) => `echo '@@step ${i}@@'\n${step.shell}`).join('\n');
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

      // Every answer line the README shows is what that block printed (up to `…` and numbers).
      const parts = out.split(/^@@step (\d+)@@$/m);
      const printed = new Map<number, string>();
      for (let k = 1; k < parts.length; k += 2) printed.set(Number(parts[k]), parts[k + 1]);
      steps.forEach((step, i) => {
        const lines = (printed.get(i) ?? '').split('\n').map((l) => l.trim());
        for (const shown of step.shown) {
          assert.ok(lines.some((l) => shownLinePattern(shown).test(l)), `README step ${i + 1} shows\n  ${shown}\nbut printed\n  ${lines.filter(Boolean).join('\n  ')}`);
        }
      });
      assert.ok(steps.filter((s) => s.shown.length > 0).length >= 10, 'the steps show their answers');

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
