/**
 * The IMAP side of a company's inbound mailbox (BRIEF 8: e-mail must always be supported), over
 * imapflow. Messages are read by UID under the folder's UIDVALIDITY, never by sequence number: a UID
 * is stable while UIDVALIDITY stays the same, and when it changes every UID is new (RFC 3501 2.3.1.1).
 */
import type { ImapFlow } from 'imapflow';

export interface MailboxSettings {
  host: string;
  port: number;
  /** true: TLS on connect (IMAPS, 993); false: plain connection upgraded with STARTTLS when offered. */
  tls: boolean;
  usuario: string;
  clave: string;
  carpeta: string;
}

export interface FetchedMail {
  uid: number;
  source: Buffer;
}

export class ImapFailure extends Error {
  constructor(message: string, readonly kind: 'autenticacion' | 'conexion' | 'tls' | 'carpeta' | 'otro') {
    super(message);
  }
}

function classify(err: unknown): ImapFailure {
  const e = err as { code?: string; authenticationFailed?: boolean; responseText?: string; message?: string; serverResponseCode?: string };
  const text = e.responseText ?? e.message ?? String(err);
  if (e.authenticationFailed || e.serverResponseCode === 'AUTHENTICATIONFAILED') return new ImapFailure(`El servidor rechazó usuario o clave: ${text}`, 'autenticacion');
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return new ImapFailure(`No se encontró el servidor (${e.code}): ${text}`, 'conexion');
  if (e.code === 'ECONNREFUSED' || e.code === 'ETIMEDOUT' || e.code === 'ECONNRESET' || e.code === 'NoConnection') return new ImapFailure(`No se pudo conectar con el servidor (${e.code}): ${text}`, 'conexion');
  if (/certificate|ssl|tls|wrong version number/i.test(text) || (e.code ?? '').startsWith('ERR_SSL') || (e.code ?? '').includes('CERT')) return new ImapFailure(`Falló TLS con el servidor: ${text}`, 'tls');
  return new ImapFailure(text, 'otro');
}

/** Opens the folder, runs `work`, always logs out. Errors come back as ImapFailure with words for a person. */
export async function withMailbox<T>(s: MailboxSettings, work: (client: ImapFlow, box: { uidValidity: number; exists: number }) => Promise<T>): Promise<T> {
  // Loaded on first use (see ARCHITECTURE, memory): imapflow is ~5 MB of heap an idle `npm start` does not need.
  const { ImapFlow } = await import('imapflow');
  const client = new ImapFlow({
    host: s.host, port: s.port, secure: s.tls, auth: { user: s.usuario, pass: s.clave }, logger: false,
    connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000, disableAutoIdle: true,
  });
  // A dropped connection must not surface as an unhandled 'error' event on the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    throw classify(err);
  }
  try {
    let box;
    try {
      box = await client.mailboxOpen(s.carpeta);
    } catch (err) {
      throw new ImapFailure(`No se pudo abrir la carpeta ${s.carpeta}: ${(err as { responseText?: string }).responseText ?? (err as Error).message}`, 'carpeta');
    }
    return await work(client, { uidValidity: Number(box.uidValidity), exists: box.exists });
  } catch (err) {
    throw err instanceof ImapFailure ? err : classify(err);
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/** Messages with UID above `afterUid`, oldest first, at most `limit`, with their raw source. */
export async function fetchAfter(client: ImapFlow, afterUid: number, limit: number): Promise<FetchedMail[]> {
  // "N:*" always names the highest message even when its UID is below N: filtered here.
  const found = await client.search({ uid: `${afterUid + 1}:*` }, { uid: true });
  const uids = (found || []).filter((u) => u > afterUid).sort((x, y) => x - y).slice(0, limit);
  if (!uids.length) return [];
  const out: FetchedMail[] = [];
  for await (const msg of client.fetch(uids.join(','), { uid: true, source: true }, { uid: true })) {
    if (msg.source) out.push({ uid: msg.uid, source: msg.source });
  }
  return out.sort((x, y) => x.uid - y.uid);
}

/** Marks a message read once its intake has committed (a hint for people; the UID cursor is what counts). */
export async function markSeen(client: ImapFlow, uid: number): Promise<void> {
  await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true }).catch(() => undefined);
}
