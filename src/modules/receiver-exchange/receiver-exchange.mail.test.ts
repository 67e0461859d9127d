import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Mailer } from '../../platform/mailer.ts';
import { describeMailOutcome, mailFileRecordingAttempt, type MailAttempt } from './receiver-exchange.mail.ts';

const file = { email: 'c@test.uy', fileName: 'Sob_1.xml', xml: '<x/>' };
const words = { subject: 's', text: 't' };
function mailer(result: () => Promise<Awaited<ReturnType<Mailer['send']>>>) {
  const calls: unknown[] = [];
  return { calls, m: { send: async (_msg, opts) => { calls.push(opts); return result(); }, close() {} } as Mailer };
}
const smtpError = (code: number) => Object.assign(new Error(`${code} nope`), { responseCode: code, response: `${code} nope` });

describe('mailFileRecordingAttempt (issue 42 point 2)', () => {
  test('the company transport is used when given and recorded as empresa; without it servicio, or outbox when nothing was sent', async () => {
    const rec: MailAttempt[] = [];
    const a = mailer(async () => ({ messageId: '<1>' }));
    const o1 = await mailFileRecordingAttempt(a.m, { smtpUrl: 'smtp://x:25', from: 'f@a.uy' }, file, words, { attempt: 1, maxAttempts: 3 }, async (c) => void rec.push(c));
    assert.deepEqual(a.calls, [{ smtpUrl: 'smtp://x:25', from: 'f@a.uy' }]);
    assert.deepEqual([o1.resultado, o1.transporte, rec[0].estado, rec[0].transporte], ['enviado', 'empresa', 'enviado', 'empresa']);
    const b = mailer(async () => ({ messageId: '<2>', outboxFile: '/tmp/x.eml' }));
    const o2 = await mailFileRecordingAttempt(b.m, undefined, file, words, { attempt: 1, maxAttempts: 3 }, async (c) => void rec.push(c));
    assert.deepEqual([o2.resultado, o2.transporte], ['outbox', 'outbox']);
    assert.match(describeMailOutcome('Sobre 1', 'c@test.uy', o2, 1), /NO enviado: sin servidor SMTP/);
  });

  test('a permanent refusal (5xx, or the recipient refused) ends in error without a retry; a transient one is retried until the last attempt', async () => {
    const rec: MailAttempt[] = [];
    const notes: string[] = [];
    const note = async (o: Parameters<typeof describeMailOutcome>[2]) => void notes.push(describeMailOutcome('Sobre 1', 'c@test.uy', o, 1));
    const perm = mailer(async () => { throw smtpError(550); });
    const o = await mailFileRecordingAttempt(perm.m, undefined, file, words, { attempt: 1, maxAttempts: 3 }, async (c) => void rec.push(c), note);
    assert.deepEqual([o.resultado, o.codigoSmtp, rec.at(-1)!.estado], ['error', 550, 'error']);
    assert.match(notes.at(-1)!, /NO enviado a c@test\.uy .*550/);
    const refused = mailer(async () => ({ messageId: '<3>', rejected: ['c@test.uy'], rejectedErrors: [smtpError(553)] }));
    assert.equal((await mailFileRecordingAttempt(refused.m, undefined, file, words, { attempt: 1, maxAttempts: 3 }, async (c) => void rec.push(c))).resultado, 'error');
    const busy = mailer(async () => { throw smtpError(421); });
    await assert.rejects(mailFileRecordingAttempt(busy.m, undefined, file, words, { attempt: 1, maxAttempts: 3 }, async (c) => void rec.push(c), note));
    assert.equal(rec.at(-1)!.estado, undefined);
    assert.match(notes.at(-1)!, /intento 1 .* falló: 421 nope \(SMTP 421\); se reintenta/);
    const last = await mailFileRecordingAttempt(busy.m, undefined, file, words, { attempt: 3, maxAttempts: 3 }, async (c) => void rec.push(c));
    assert.deepEqual([last.resultado, rec.at(-1)!.estado], ['error', 'error']);
  });
});
