/**
 * A kill in the middle of intake (issue 30 point 2; "How it will be checked"): the service, started as
 * `npm start` starts it (src/main.ts, worker in the process), reads a mailbox of envelopes from a real
 * IMAP server (Dovecot) and is killed with SIGKILL while a mail's transaction is open; a new process
 * reads on. Each mail must end processed exactly once: one inbound_mails row per UID, one envelope and
 * one ACKSobre per mail, every CFE once with a contiguous `secuencia`, the cursor on the last UID, and
 * every mail flagged \Seen (also the one committed just before a kill, whose flag the next poll sets).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { ImapFlow } from 'imapflow';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { startMailSystem, type MailSystem } from '../../../test/support/mail-system.js';
import { createTestCa, issueTestCertificate } from '../../platform/crypto/pki.js';
import { buildEnvioCfeEntreEmpresas, createSigningContext, formatTmstFirma, sampleCfe, signCfe } from '../emission/index.js';

const root = path.resolve(import.meta.dirname, '../../..');
const ISSUER = '219999830019';
/** The receiver of the sample CFEs (emission/sample-cfes.ts). */
const RECEIVER = '214844360018';
const MAILS = 12;
const PER_ENVELOPE = 40;
const MASTER_KEY = randomBytes(32).toString('hex');

let t: TestApp;
let ms: MailSystem;
let b: { id: number };

function envelopeMail(n: number, ctx: ReturnType<typeof createSigningContext>): string {
  const items = Array.from({ length: PER_ENVELOPE }, (_, i) => ({ cfe: signCfe(sampleCfe(111, { Nro: n * PER_ENVELOPE + i + 1, lines: 2 }), ctx).xml }));
  const xml = buildEnvioCfeEntreEmpresas({ rutReceptor: RECEIVER, rucEmisor: ISSUER, idEmisor: n + 1, fecha: formatTmstFirma(new Date()), certificateDerBase64: ctx.certificate.der.toString('base64'), items });
  const b64 = Buffer.from(xml, 'utf8').toString('base64').replace(/.{76}/g, '$&\r\n');
  const name = `Sob_${ISSUER}_${n + 1}.xml`;
  return `From: cfe@emisor.uy\r\nTo: b@test.uy\r\nSubject: sobre ${n + 1}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=XX\r\n\r\n--XX\r\nContent-Type: text/plain\r\n\r\nSobre adjunto\r\n--XX\r\n` +
    `Content-Type: application/xml; name="${name}"\r\nContent-Disposition: attachment; filename="${name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${b64}\r\n--XX--\r\n`;
}

/** The service as `npm start` runs it, on the test's database, its job worker in the process. */
function startService() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-kill-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root, detached: false,
    env: { ...process.env, DATABASE_URL: t.config.db.url, DATA_DIR: dataDir, PORT: '0', WORKER_IN_PROCESS: 'true', LOG_LEVEL: 'warn', MASTER_KEY, ADMIN_PASSWORD: 'admin-password-1' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  return { child, exited, output: () => out, cleanUp: () => fs.rmSync(dataDir, { recursive: true, force: true }) };
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, ms = 120_000, output?: () => string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const found = await check();
    if (found) return found;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}${output ? `\n--- service:\n${output()}` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const count = async (query: ReturnType<typeof sql>) => ((await t.db.execute(query)).rows[0] as { n: number }).n;
const handledMails = () => count(sql`select count(*)::int as n from inbound_mails where company_id = ${b.id}`);
const poll = () => t.db.execute(sql`select graphile_worker.add_job('receivedCfe_poll', '{}'::json)`);

/** The mailbox as IMAP shows it: each UID with whether it is \Seen. */
async function flags(): Promise<Array<{ uid: number; seen: boolean }>> {
  const c = new ImapFlow({ host: '127.0.0.1', port: ms.imapPort, secure: false, auth: { user: 'b', pass: ms.users.b }, logger: false, disableAutoIdle: true });
  c.on('error', () => undefined);
  await c.connect();
  try {
    await c.mailboxOpen('INBOX');
    const out: Array<{ uid: number; seen: boolean }> = [];
    for await (const m of c.fetch('1:*', { uid: true, flags: true }, { uid: true })) out.push({ uid: m.uid, seen: !!m.flags?.has('\\Seen') });
    return out.sort((x, y) => x.uid - y.uid);
  } finally {
    await c.logout();
  }
}

/** What the database holds, checked for consistency after each process ends. */
async function assertConsistent(label: string) {
  const mails = (await t.db.execute(sql`select uid::int as uid, clase, envelope_ids from inbound_mails where company_id = ${b.id} order by uid`)).rows as Array<{ uid: number; clase: string; envelope_ids: number[] }>;
  const cursor = (await t.db.execute(sql`select ultimo_uid::int as ultimo_uid from inbound_mailboxes where company_id = ${b.id}`)).rows[0] as { ultimo_uid: number };
  const envelopes = await count(sql`select count(*)::int as n from received_envelopes where company_id = ${b.id} and estado = 'AS'`);
  const cfes = (await t.db.execute(sql`select count(*)::int as n, count(distinct numero)::int as distinct, min(secuencia)::int as lo, max(secuencia)::int as hi,
      count(*) filter (where estado <> 'pendiente')::int as other from received_cfes where company_id = ${b.id}`)).rows[0] as { n: number; distinct: number; lo: number | null; hi: number | null; other: number };
  const acks = await count(sql`select count(*)::int as n from received_answers where company_id = ${b.id} and tipo = 'ACKSobre'`);
  assert.ok(mails.every((m) => m.clase === 'sobre' && m.envelope_ids.length === 1), `${label}: every mail recorded is an envelope: ${JSON.stringify(mails)}`);
  assert.equal(new Set(mails.flatMap((m) => m.envelope_ids)).size, mails.length, `${label}: one envelope per mail`);
  assert.equal(envelopes, mails.length, `${label}: envelopes = mails`);
  assert.equal(acks, mails.length, `${label}: one ACKSobre per envelope`);
  assert.equal(cfes.n, mails.length * PER_ENVELOPE, `${label}: every CFE of each recorded mail, nothing of the others`);
  assert.equal(cfes.distinct, cfes.n, `${label}: no CFE twice`);
  assert.equal(cfes.other, 0, `${label}: none duplicado`);
  if (cfes.n) assert.deepEqual([cfes.lo, cfes.hi], [1, cfes.n], `${label}: secuencia contiguous`);
  assert.equal(cursor.ultimo_uid, mails.at(-1)?.uid ?? 0, `${label}: the cursor is the last mail recorded`);
  return mails.length;
}

before(async () => {
  ms = await startMailSystem({ b: 'clave-b' });
  t = await createTestApp({ MASTER_KEY });
  const admin = await t.adminToken();
  b = await insertCompany(t, { rut: RECEIVER });
  const put = await t.call(admin, 'PUT', '/api/v1/empresa/correoEntrante', { idEmpresa: b.id, host: '127.0.0.1', puerto: ms.imapPort, tls: false, usuario: 'b', clave: 'clave-b', direccion: 'b@test.uy' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const ca = createTestCa();
  const cert = issueTestCertificate(ca, { rut: ISSUER, name: 'Empresa Emisora S.A.' });
  const ctx = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem });
  for (let n = 0; n < MAILS; n += 1) await ms.append('b', envelopeMail(n, ctx));
});
after(async () => {
  await t?.close();
  await ms?.stop();
});

describe('happy path', () => {
  test('SIGKILL while a mail\'s transaction is open, then a restart: every mail processed exactly once, cursor, rows and \\Seen flags consistent', { timeout: 300_000 }, async (ctx) => {
    const first = startService();
    try {
      await waitFor('the service to listen', async () => /API listening on/.test(first.output()), 90_000, first.output);
      await poll();
      // A few mails committed, and the poller inside the transaction of the next one (seen from PostgreSQL).
      await waitFor('the poller inside a mail\'s transaction', async () => (await handledMails()) >= 2 && (await count(sql`
        select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null
           and (query ilike '%received_%' or query ilike '%inbound_mail%')`)) > 0, 120_000, first.output);
      first.child.kill('SIGKILL');
      assert.equal(await first.exited, 'SIGKILL');
    } finally {
      first.child.kill('SIGKILL');
      first.cleanUp();
    }
    // The open transaction dies with its connection: only whole mails are there.
    await waitFor('the killed connection to end', async () => (await count(sql`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null
         and (query ilike '%received_%' or query ilike '%inbound_mail%')`)) === 0);
    const atKill = await assertConsistent('after the kill');
    assert.ok(atKill >= 2 && atKill < MAILS, `killed in the middle (${atKill} of ${MAILS} mails committed)`);
    ctx.diagnostic(`killed with ${atKill} of ${MAILS} mails committed and the next one's transaction open`);

    const second = startService();
    try {
      await waitFor('the service to listen again', async () => /API listening on/.test(second.output()), 90_000, second.output);
      await poll();
      await waitFor('every mail handled', async () => (await handledMails()) === MAILS, 180_000, second.output);
      // One more pass: nothing new is read, and it repairs a \Seen lost at the kill.
      await poll();
      await waitFor('every mail flagged \\Seen', async () => (await flags()).every((f) => f.seen), 60_000, second.output);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
      second.cleanUp();
    }
    assert.equal(await assertConsistent('after the restart'), MAILS);
    const box = await flags();
    const uids = ((await t.db.execute(sql`select uid::int as uid from inbound_mails where company_id = ${b.id} order by uid`)).rows as Array<{ uid: number }>).map((r) => r.uid);
    assert.deepEqual(uids, box.map((f) => f.uid), 'one inbound_mails row per UID of the mailbox');
  });

  test('a mail committed just before a kill (its \\Seen never set) is flagged by the next poll, not read again', async () => {
    const [last] = (await flags()).slice(-1);
    const c = new ImapFlow({ host: '127.0.0.1', port: ms.imapPort, secure: false, auth: { user: 'b', pass: ms.users.b }, logger: false, disableAutoIdle: true });
    c.on('error', () => undefined);
    await c.connect();
    try {
      await c.mailboxOpen('INBOX');
      await c.messageFlagsRemove(String(last.uid), ['\\Seen'], { uid: true });
    } finally {
      await c.logout();
    }
    assert.equal((await flags()).at(-1)!.seen, false);
    assert.equal(await t.modules.services.receivedCfeMailbox.poll(b.id), 0, 'nothing is read again');
    assert.equal((await flags()).at(-1)!.seen, true);
    assert.equal(await assertConsistent('after the repair'), MAILS);
  });
});
