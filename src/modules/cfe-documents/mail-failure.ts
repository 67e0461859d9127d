/**
 * Whether an SMTP failure is worth retrying (issue 7 point 5). RFC 5321 §4.2.1: 4yz replies are
 * transient ("try again later"), 5yz permanent. Without a reply code the failure happened before
 * the server answered (refused connection, timeout, DNS, TLS): transient. nodemailer reports the
 * reply code as `responseCode` and its own failure kind as `code` (ECONNECTION, ETIMEDOUT, EAUTH…).
 */
export interface MailFailure {
  transient: boolean;
  codigoSmtp?: number;
  mensaje: string;
}

/** Failures of the message itself (no recipients, bad attachments): retrying cannot help. */
const PERMANENT_LOCAL = new Set(['EENVELOPE', 'EMESSAGE']);

export function classifyMailFailure(err: unknown): MailFailure {
  const e = (err ?? {}) as { responseCode?: unknown; code?: unknown; message?: unknown; response?: unknown };
  const codigoSmtp = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const mensaje = String(e.response ?? e.message ?? err).slice(0, 1000);
  if (codigoSmtp !== undefined) return { transient: codigoSmtp < 500, codigoSmtp, mensaje };
  return { transient: !(typeof e.code === 'string' && PERMANENT_LOCAL.has(e.code)), mensaje };
}
