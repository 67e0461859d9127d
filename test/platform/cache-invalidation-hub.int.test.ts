/**
 * The invalidation hub on its own (platform/db/invalidation.ts): the writing session's NOTICE path,
 * which needs no listening connection, and the listening connection's loss and return.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { cloneTemplate } from '../support/app.js';
import { createCacheInvalidation } from '../../src/platform/db/invalidation.js';

let url: string;
before(async () => {
  url = await cloneTemplate();
});

async function eventually(check: () => boolean | Promise<boolean>, ms = 5000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`not seen within ${ms} ms`);
}

describe('happy path', () => {
  test('the writing session hears its own change when its transaction ends, with no listening connection', async () => {
    // A listener that can never connect: only the NOTICE path is left.
    const hub = createCacheInvalidation('postgres://nobody@127.0.0.1:1/none');
    const pool = new pg.Pool({ connectionString: url, max: 1, onConnect: hub.onConnect } as pg.PoolConfig);
    const seen: string[] = [];
    hub.bus.subscribe('companies', () => seen.push('companies'));
    hub.bus.subscribe('users', () => seen.push('users'));
    try {
      await pool.query('update companies set telefono = telefono');
      assert.deepEqual(seen, ['companies'], 'autocommit: before the statement returns');
      const client = await pool.connect();
      try {
        await client.query('begin');
        await client.query('update users set token_version = token_version');
        await client.query('update companies set telefono = telefono');
        assert.deepEqual(seen, ['companies'], 'nothing inside the transaction');
        await client.query('commit');
        assert.deepEqual(seen.sort(), ['companies', 'companies', 'users']);
        seen.length = 0;
        await client.query('begin');
        await client.query('update users set token_version = token_version');
        await client.query('rollback');
        await client.query('begin');
        await client.query('update users set token_version = token_version');
        await client.query('select 1/0').catch(() => undefined);
        await client.query('commit'); // of an aborted block: answered ROLLBACK
        // One simple query, one implicit transaction: the UPDATE's NOTICE arrives, then the error undoes it.
        await client.query('update users set token_version = token_version; select 1/0').catch(() => undefined);
        assert.deepEqual(seen, [], 'rolled back: nothing');
      } finally {
        client.release();
      }
      assert.equal(hub.bus.live, false, 'never heard other processes');
    } finally {
      await pool.end();
      await hub.close();
    }
  });
});

describe('errors', () => {
  test('a lost listening connection makes the bus not live, and its return empties every cache', async () => {
    const hub = createCacheInvalidation(url);
    let cleared = 0;
    hub.bus.subscribe('certificates', () => cleared++);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await eventually(() => hub.bus.live);
      assert.equal(cleared, 1, 'emptied once listening');
      await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'listen %'`);
      await eventually(() => !hub.bus.live);
      await eventually(() => hub.bus.live);
      assert.equal(cleared, 2, 'emptied again after the reconnect');
      await admin.query('update company_certificates set is_active = is_active');
      await eventually(() => cleared === 3);
    } finally {
      await admin.end();
      await hub.close();
    }
  });
});
