import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createMailer } from '../../platform/mailer.js';
import { authJobHandlers } from './auth.jobs.js';

describe('password-reset mail without SMTP', () => {
  it('puts the code in the outbox file and never in the log', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'trace' }, new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } }));
    const outboxDir = fs.mkdtempSync(path.join(os.tmpdir(), 'auth-jobs-outbox-'));
    const mailer = createMailer({ from: 'no-reply@test.uy', outboxDir }, logger);
    const token = 'reset-code-0123456789-abcdefghijklmnopqrstuvwxyz';
    try {
      const [handler] = authJobHandlers({ createResetToken: async () => token, emailOf: async () => 'olvido@test.uy', mailer, publicUrl: 'https://cfe.test.uy', ttlMinutes: 30 });
      await handler.handle({ userId: 1 }, { logger, attempt: 1, maxAttempts: 8 });
      const files = fs.readdirSync(outboxDir);
      assert.equal(files.length, 1);
      assert.ok(fs.readFileSync(path.join(outboxDir, files[0]), 'utf8').replace(/=\r?\n/g, '').includes(token), 'the dev mail sink keeps the mail');
      assert.ok(lines.some((l) => l.includes('mail written to outbox')), 'the send is logged');
      assert.deepEqual(lines.filter((l) => l.includes(token) || l.includes('reset-code')), [], 'no log line carries the code');
    } finally {
      mailer.close();
      fs.rmSync(outboxDir, { recursive: true, force: true });
    }
  });
});
