/**
 * E-mailing a stored exchange file (envelope, annulment notice, or our ACKSobre/ACKCFE as a
 * receiver; BRIEF 8: e-mail must always be supported) with each queue attempt recorded on its row.
 *
 * Issue 42 point 2: it leaves the way the company configured, like the CFE e-mails
 * (cfe-documents.mail.ts): through its own SMTP server and sender (`correoSaliente`) when it has
 * one, else the service's SMTP_URL and MAIL_FROM, else the outbox file transport (DATA_DIR/outbox,
 * nothing actually sent). The row says which (`transporte`), and the outcome is handed to `note`
 * so the callers write what really happened into the CFE history. Failures are classified as the
 * CFE e-mails' are (RFC 5321: 5yz permanent, 4yz and connection failures transient): a permanent one
 * or the last attempt ends in `error`; a transient one is rethrown so the queue retries.
 */
import type { Mailer } from '../../platform/mailer.js';
import { classifyMailFailure } from '../cfe-documents/mail-failure.js';

export interface MailedFile {
  email: string;
  fileName: string;
  xml: string;
}

/** A company's own SMTP server and sender (companies outbound-mail transportOf). */
export interface CompanyTransport {
  smtpUrl: string;
  from: string;
}

export interface MailAttempt {
  intentos: number;
  ultimoError: string | null;
  estado?: 'enviado' | 'error';
  enviadoEn?: Date;
  messageId?: string;
  transporte?: Transporte;
}

export type Transporte = 'empresa' | 'servicio' | 'outbox';

export interface MailOutcome {
  resultado: 'enviado' | 'outbox' | 'reintentando' | 'error';
  transporte: Transporte;
  /** The failure in the SMTP server's words (or the connection error), when it failed. */
  error?: string;
  codigoSmtp?: number;
}

/** One line for the CFE history: what happened to the mail of `what` to `to`. */
export function describeMailOutcome(what: string, to: string, o: MailOutcome, attempt: number): string {
  const via = o.transporte === 'empresa' ? 'el servidor SMTP de la empresa (correoSaliente)' : 'el servidor SMTP del servicio';
  if (o.resultado === 'enviado') return `${what} enviado por correo a ${to} por ${via}.`;
  if (o.resultado === 'outbox') return `${what} NO enviado: sin servidor SMTP configurado (ni correoSaliente de la empresa ni SMTP_URL del servicio) el correo a ${to} se escribió en la bandeja de salida local (DATA_DIR/outbox).`;
  const why = `${o.error ?? 'error desconocido'}${o.codigoSmtp ? ` (SMTP ${o.codigoSmtp})` : ''}`;
  if (o.resultado === 'reintentando') return `${what}: el intento ${attempt} de envío a ${to} por ${via} falló: ${why}; se reintenta.`;
  return `${what} NO enviado a ${to} por ${via}: ${why}. No se reintenta más.`;
}

export async function mailFileRecordingAttempt(
  mailer: Mailer,
  transport: CompanyTransport | undefined,
  file: MailedFile,
  words: { subject: string; text: string; replyTo?: string },
  attempt: { attempt: number; maxAttempts: number },
  record: (changes: MailAttempt) => Promise<void>,
  note?: (outcome: MailOutcome) => Promise<void>,
): Promise<MailOutcome> {
  let transporte: Transporte = transport ? 'empresa' : 'servicio';
  try {
    const sent = await mailer.send({ to: file.email, ...words, attachments: [{ filename: file.fileName, content: file.xml, contentType: 'application/xml' }] }, transport ?? {});
    if (sent.outboxFile) transporte = 'outbox';
    if (sent.rejected?.length) throw sent.rejectedErrors?.[0] ?? new Error(`Destinatario rechazado: ${sent.rejected.join(', ')}`);
    await record({ estado: 'enviado', enviadoEn: new Date(), messageId: sent.messageId, intentos: attempt.attempt, ultimoError: null, transporte });
    const outcome: MailOutcome = { resultado: transporte === 'outbox' ? 'outbox' : 'enviado', transporte };
    await note?.(outcome);
    return outcome;
  } catch (err) {
    const failure = classifyMailFailure(err);
    const final = !failure.transient || attempt.attempt >= attempt.maxAttempts;
    await record({ intentos: attempt.attempt, ultimoError: failure.mensaje, transporte, ...(final ? { estado: 'error' as const } : {}) });
    const outcome: MailOutcome = { resultado: final ? 'error' : 'reintentando', transporte, error: failure.mensaje, codigoSmtp: failure.codigoSmtp };
    await note?.(outcome);
    if (!final) throw err instanceof Error ? err : new Error(failure.mensaje);
    return outcome;
  }
}
