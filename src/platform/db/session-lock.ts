/**
 * A PostgreSQL session advisory lock held on a pooled connection of its own for the length of `fn`,
 * for work that spans no transaction (an IMAP session, an HTTP exchange) and must run in one process
 * of the fleet at a time. Not blocking: when another session holds the lock `fn` does not run and
 * the answer is `{ locked: false }`. A process killed meanwhile loses its connection and with it the
 * lock, so the next attempt anywhere takes over.
 */
import type pg from 'pg';

/** First keys of the session locks, one per kind of work (the second key is the company id). */
export const SESSION_LOCKS = { inboundMailbox: 727004, issuerRegistrySync: 727005, dgiEnvelopeSend: 727006 } as const;

export async function withSessionLock<T>(pool: pg.Pool, kind: number, id: number, fn: () => Promise<T>): Promise<{ locked: true; value: T } | { locked: false }> {
  const client = await pool.connect();
  let held = false;
  try {
    held = (await client.query('select pg_try_advisory_lock($1::int, $2::int) as ok', [kind, id])).rows[0].ok;
    if (!held) return { locked: false };
    return { locked: true, value: await fn() };
  } finally {
    if (held) await client.query('select pg_advisory_unlock($1::int, $2::int)', [kind, id]).catch(() => undefined);
    client.release();
  }
}
