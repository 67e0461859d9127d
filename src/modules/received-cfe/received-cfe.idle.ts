/**
 * Prompt mailboxes (issue 42 point 5): one IMAP IDLE connection per active inbound mailbox, held by
 * the process that runs jobs (main.ts with WORKER_IN_PROCESS, worker.ts). When the server announces
 * a new message (untagged EXISTS, RFC 2177) the mailbox is read at once with the same poll the cron
 * runs (received-cfe.mailbox.ts: by UID, each mail claimed in its own transaction, so a watcher and
 * the cron, or two workers, never handle a mail twice). The every-minute poll stays the fallback:
 * a dropped IDLE connection, a server without IDLE (imapflow then polls with NOOP) or a missed
 * notification costs at most that minute.
 *
 * Every `refreshMs` the watcher re-reads which mailboxes are active: new ones are watched, removed
 * or deactivated ones closed, changed settings (server, user, folder, any update) reconnected, and
 * closed connections reopened. On (re)connect it reads once to catch up on what arrived meanwhile.
 */
import type { ImapFlow } from 'imapflow';
import type { Logger } from '../../platform/logger.js';
import type { MailboxSettings } from './received-cfe.imap.js';

export interface MailboxWatcherDeps {
  mailbox: {
    activeCompanies(): Promise<number[]>;
    watchTarget(companyId: number): Promise<{ settings: MailboxSettings; key: string } | undefined>;
    poll(companyId: number): Promise<number>;
  };
  logger: Pick<Logger, 'info' | 'warn'>;
  enabled: boolean;
  refreshMs?: number;
}

interface Watch {
  key: string;
  client: ImapFlow;
  closed: boolean;
  reading: Promise<void> | null;
  again: boolean;
}

export function createMailboxWatcher(deps: MailboxWatcherDeps) {
  const watches = new Map<number, Watch>();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let refreshing: Promise<void> | null = null;

  /** Reads the mailbox now; a notification during a read asks for one more read after it. */
  function read(companyId: number, w: Watch) {
    if (w.reading) {
      w.again = true;
      return;
    }
    w.reading = (async () => {
      do {
        w.again = false;
        try {
          const n = await deps.mailbox.poll(companyId);
          if (n) deps.logger.info({ companyId, mails: n }, 'inbound mailbox read on IMAP IDLE notification');
        } catch (err) {
          deps.logger.warn({ companyId, err: (err as Error).message }, 'inbound mailbox read after IDLE notification failed (the minute poll retries)');
        }
      } while (w.again && running && !w.closed);
    })().finally(() => {
      w.reading = null;
    });
  }

  async function close(w: Watch) {
    w.closed = true;
    await w.client.logout().catch(() => w.client.close());
    await w.reading;
  }

  async function open(companyId: number, target: { settings: MailboxSettings; key: string }) {
    // Loaded on first use, like the poller (see ARCHITECTURE, memory).
    const { ImapFlow } = await import('imapflow');
    const s = target.settings;
    const client = new ImapFlow({
      host: s.host, port: s.port, secure: s.tls, auth: { user: s.usuario, pass: s.clave }, logger: false,
      connectionTimeout: 15_000, greetingTimeout: 15_000,
      // Enter IDLE a second after the folder is open, and renew it every 2 minutes (servers drop long IDLEs).
      autoIdleDelay: 1000, maxIdleTime: 120_000,
    });
    const w: Watch = { key: target.key, client, closed: false, reading: null, again: false };
    watches.set(companyId, w);
    client.on('error', () => undefined);
    client.on('close', () => {
      w.closed = true;
    });
    client.on('exists', () => read(companyId, w));
    try {
      await client.connect();
      await client.mailboxOpen(s.carpeta);
    } catch (err) {
      w.closed = true;
      client.close();
      deps.logger.warn({ companyId, err: (err as Error).message }, 'inbound mailbox IDLE connection failed (the minute poll goes on)');
      return;
    }
    read(companyId, w);
  }

  async function refreshOnce() {
    const active = new Set(await deps.mailbox.activeCompanies());
    for (const [companyId, w] of watches) {
      if (!active.has(companyId)) {
        watches.delete(companyId);
        await close(w);
      }
    }
    for (const companyId of active) {
      if (!running) return;
      const target = await deps.mailbox.watchTarget(companyId);
      const w = watches.get(companyId);
      if (w && target && w.key === target.key && !w.closed) continue;
      if (w) {
        watches.delete(companyId);
        await close(w);
      }
      if (target) await open(companyId, target);
    }
  }

  /** Re-reads the active mailboxes and (re)opens or closes connections; also run every `refreshMs`. */
  function refresh(): Promise<void> {
    refreshing ??= refreshOnce()
      .catch((err) => deps.logger.warn({ err: (err as Error).message }, 'inbound mailbox watcher refresh failed'))
      .finally(() => {
        refreshing = null;
      });
    return refreshing;
  }

  return {
    refresh,

    start() {
      if (!deps.enabled || running) return;
      running = true;
      // Not awaited: an unreachable IMAP server must not hold up the process start.
      void refresh();
      timer = setInterval(() => void refresh(), deps.refreshMs ?? 60_000);
      timer.unref();
    },

    async stop() {
      running = false;
      if (timer) clearInterval(timer);
      await refreshing;
      await Promise.all([...watches.values()].map(close));
      watches.clear();
    },

    /** Companies with an open IDLE connection (tests, diagnostics). */
    watching: () => [...watches].filter(([, w]) => !w.closed).map(([id]) => id),
  };
}

export type MailboxWatcher = ReturnType<typeof createMailboxWatcher>;
