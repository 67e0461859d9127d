/**
 * E-mailing a stored receiver file (envelope or annulment notice, BRIEF 8: e-mail must always be
 * supported) with each queue attempt recorded on its row: `enviado` with the message id, or the
 * error, and `error` once the attempts are used up. The error is rethrown so the queue retries.
 */
import type { Mailer } from '../../platform/mailer.js';

export interface MailedFile {
  email: string;
  fileName: string;
  xml: string;
}

export interface MailAttempt {
  intentos: number;
  ultimoError: string | null;
  estado?: 'enviado' | 'error';
  enviadoEn?: Date;
  messageId?: string;
}

export async function mailFileRecordingAttempt(
  mailer: Mailer,
  file: MailedFile,
  words: { subject: string; text: string; replyTo?: string },
  attempt: { attempt: number; maxAttempts: number },
  record: (changes: MailAttempt) => Promise<void>,
): Promise<void> {
  try {
    const sent = await mailer.send({ to: file.email, ...words, attachments: [{ filename: file.fileName, content: file.xml, contentType: 'application/xml' }] });
    await record({ estado: 'enviado', enviadoEn: new Date(), messageId: sent.messageId, intentos: attempt.attempt, ultimoError: null });
  } catch (err) {
    await record({ intentos: attempt.attempt, ultimoError: (err as Error).message, ...(attempt.attempt >= attempt.maxAttempts ? { estado: 'error' as const } : {}) });
    throw err;
  }
}
