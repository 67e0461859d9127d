/**
 * One process of the fleet reads a company's mailbox at a time (issue 45): the poll holds a session
 * advisory lock on the company for the whole IMAP session. The mailbox points at a closed port, so a
 * poll that really ran records a connection error on the row; one that found the lock taken does not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { SESSION_LOCKS } from '../../platform/db/session-lock.js';
import { inboundMailboxes } from './received-cfe.tables.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => t.close());

describe('happy path', () => {
  test('a poll while another session holds the company mailbox lock reads nothing; once released it runs', async () => {
    const company = await insertCompany(t);
    const claveSellada = t.modules.services.secretBox.seal('x');
    await t.db.insert(inboundMailboxes).values({ companyId: company.id, host: '127.0.0.1', port: 1, tls: false, usuario: 'u', claveSellada });
    const mailbox = t.modules.services.receivedCfeMailbox;
    const other = new pg.Client({ connectionString: t.database.url });
    await other.connect();
    try {
      await other.query('select pg_advisory_lock($1::int, $2::int)', [SESSION_LOCKS.inboundMailbox, company.id]);
      assert.equal(await mailbox.poll(company.id), 0);
      const [held] = await t.db.select().from(inboundMailboxes).where(eq(inboundMailboxes.companyId, company.id));
      assert.equal(held.ultimoError, null, 'the pass must not have reached the mailbox');

      await other.query('select pg_advisory_unlock($1::int, $2::int)', [SESSION_LOCKS.inboundMailbox, company.id]);
      await assert.rejects(mailbox.poll(company.id));
      const [ran] = await t.db.select().from(inboundMailboxes).where(eq(inboundMailboxes.companyId, company.id));
      assert.ok(ran.ultimoError, 'the pass reached the (closed) mailbox');
      // The lock is released after the pass, even a failed one.
      const free = await other.query('select pg_try_advisory_lock($1::int, $2::int) as ok', [SESSION_LOCKS.inboundMailbox, company.id]);
      assert.equal(free.rows[0].ok, true);
    } finally {
      await other.end();
    }
  });
});
