/**
 * A real mail system for the tests (issue 30 point 7): Dovecot's IMAP server (Debian package
 * dovecot-imapd, `.ci/run` installs it) started on a free loopback port with its own configuration,
 * users and maildirs in a temporary folder, plus an SMTP server (smtp-server) that relays every
 * message it accepts into the recipient's Dovecot mailbox by IMAP APPEND. Nothing outside the
 * temporary folder is touched; stop() kills Dovecot and removes it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { SMTPServer } from 'smtp-server';

export interface MailSystem {
  imapPort: number;
  smtpUrl: string;
  /** user → password; the address `<user>@test.uy` delivers to that user's INBOX. */
  users: Record<string, string>;
  append(user: string, raw: string | Buffer): Promise<void>;
  /** Messages in a user's INBOX (raw sources), oldest first. */
  messages(user: string): Promise<Buffer[]>;
  stop(): Promise<void>;
}

const DOVECOT = '/usr/sbin/dovecot';

export function requireDovecot(): void {
  if (!fs.existsSync(DOVECOT) || spawnSync(DOVECOT, ['--version']).error) {
    throw new Error('dovecot not found: apt-get install dovecot-imapd (the tests need a real IMAP server)');
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function waitForPort(port: number, child: ChildProcess, log: string): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if (child.exitCode !== null) throw new Error(`dovecot exited (${child.exitCode}): ${fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-2000) : ''}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`dovecot did not listen on ${port}`);
}

export async function startMailSystem(users: Record<string, string>): Promise<MailSystem> {
  requireDovecot();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfe-dovecot-'));
  fs.chmodSync(dir, 0o755);
  const imapPort = await freePort();
  // Mail processes run as the current user, or as dovecot's own user when we are root (Dovecot refuses uid 0).
  const uid = process.getuid?.() === 0 ? Number(spawnSync('id', ['-u', 'dovecot']).stdout.toString().trim()) : process.getuid!();
  const gid = process.getuid?.() === 0 ? Number(spawnSync('id', ['-g', 'dovecot']).stdout.toString().trim()) : process.getgid!();
  const mail = path.join(dir, 'mail');
  fs.mkdirSync(mail);
  fs.chownSync(mail, uid, gid);
  fs.writeFileSync(path.join(dir, 'passwd'), Object.entries(users).map(([u, p]) => `${u}:{PLAIN}${p}:${uid}:${gid}::${mail}/${u}`).join('\n') + '\n');
  const log = path.join(dir, 'dovecot.log');
  const conf = path.join(dir, 'dovecot.conf');
  fs.writeFileSync(conf, [
    `base_dir = ${dir}/run`, `state_dir = ${dir}/state`, `log_path = ${log}`, `info_log_path = ${log}`,
    'protocols = imap', 'listen = 127.0.0.1', 'ssl = no', 'disable_plaintext_auth = no', 'auth_mechanisms = plain login',
    `first_valid_uid = ${Math.min(uid, 100)}`, `mail_location = maildir:${mail}/%u/Maildir`,
    `passdb {\n  driver = passwd-file\n  args = scheme=PLAIN ${dir}/passwd\n}`,
    `userdb {\n  driver = passwd-file\n  args = ${dir}/passwd\n}`,
    `service imap-login {\n  inet_listener imap {\n    address = 127.0.0.1\n    port = ${imapPort}\n  }\n  inet_listener imaps {\n    port = 0\n  }\n}`,
    'service stats {\n  unix_listener stats-reader {\n    mode = 0666\n  }\n  unix_listener stats-writer {\n    mode = 0666\n  }\n}',
  ].join('\n') + '\n');
  const child = spawn(DOVECOT, ['-F', '-c', conf], { stdio: 'ignore' });
  await waitForPort(imapPort, child, log);

  const client = async (user: string) => {
    const c = new ImapFlow({ host: '127.0.0.1', port: imapPort, secure: false, auth: { user, pass: users[user] }, logger: false, disableAutoIdle: true });
    c.on('error', () => undefined);
    await c.connect();
    return c;
  };
  async function append(user: string, raw: string | Buffer) {
    const c = await client(user);
    try {
      await c.append('INBOX', raw);
    } finally {
      await c.logout();
    }
  }

  const smtp = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS'], logger: false,
    onRcptTo(address, _session, cb) {
      const user = address.address.split('@')[0];
      if (!(user in users)) return cb(Object.assign(new Error('No such user'), { responseCode: 550 }));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (d: Buffer) => chunks.push(d));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        Promise.all(session.envelope.rcptTo.map((r) => append(r.address.split('@')[0], raw))).then(() => cb(), cb);
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  return {
    imapPort,
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    users,
    append,
    async messages(user) {
      const c = await client(user);
      try {
        await c.mailboxOpen('INBOX');
        const out: Buffer[] = [];
        if ((c.mailbox && typeof c.mailbox === 'object' && c.mailbox.exists) || 0) {
          for await (const m of c.fetch('1:*', { source: true, uid: true }, { uid: true })) if (m.source) out.push(m.source);
        }
        return out;
      } finally {
        await c.logout();
      }
    },
    async stop() {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
