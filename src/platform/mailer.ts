/**
 * Outbound e-mail. With SMTP_URL: a real SMTP transport (nodemailer). Without it: each message is
 * written as an .eml file to DATA_DIR/outbox and logged (recipient, subject and file, never the
 * body), so password recovery works on a fresh machine and tests can read what was "sent".
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Logger } from './logger.js';

export interface MailMessage {
  to: string | string[];
  /** Blind copy (e.g. the company's `emailCopiaCfe`). */
  bcc?: string | string[];
  replyTo?: string;
  subject: string;
  text: string;
  html?: string;
  attachments?: Array<{ filename: string; content: Buffer | string; contentType?: string }>;
}

export interface Mailer {
  /** `rejected`: recipients the SMTP server refused while accepting the others (with `rejectedErrors`). */
  send(message: MailMessage, opts?: { from?: string; smtpUrl?: string }): Promise<{ messageId: string; outboxFile?: string; rejected?: string[]; rejectedErrors?: unknown[] }>;
  close(): void;
}

export function createMailer(config: { smtpUrl?: string; from: string; outboxDir: string }, logger: Logger): Mailer {
  const transports = new Map<string, Transporter>();
  // nodemailer is loaded on the first message, not at startup (see ARCHITECTURE, memory).
  const nodemailer = async () => (await import('nodemailer')).default;
  const smtp = async (url: string) => {
    const { createTransport } = await nodemailer();
    let t = transports.get(url);
    if (!t) {
      t = createTransport(url);
      transports.set(url, t);
    }
    return t;
  };
  let fileTransport: Transporter | undefined;

  return {
    async send(message, opts = {}) {
      const mail = { ...message, from: opts.from ?? config.from };
      const url = opts.smtpUrl ?? config.smtpUrl;
      if (url) {
        const info = await (await smtp(url)).sendMail(mail);
        logger.info({ to: message.to, subject: message.subject, messageId: info.messageId }, 'mail sent');
        const rejected = ((info.rejected ?? []) as unknown[]).map((r) => (typeof r === 'string' ? r : String((r as { address?: string }).address)));
        return { messageId: String(info.messageId), ...(rejected.length ? { rejected, rejectedErrors: (info as { rejectedErrors?: unknown[] }).rejectedErrors } : {}) };
      }
      const { createTransport } = await nodemailer();
      fileTransport ??= createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
      const info = await fileTransport.sendMail(mail);
      await fs.mkdir(config.outboxDir, { recursive: true });
      const file = path.join(config.outboxDir, `${Date.now()}-${String(info.messageId).replace(/[^A-Za-z0-9.-]/g, '')}.eml`);
      await fs.writeFile(file, info.message as Buffer);
      // Never the body: it can carry secrets (password-reset codes). The .eml file is the dev mail sink.
      logger.info({ to: message.to, subject: message.subject, file }, 'mail written to outbox (no SMTP_URL)');
      return { messageId: String(info.messageId), outboxFile: file };
    },
    close() {
      for (const t of transports.values()) t.close();
    },
  };
}
