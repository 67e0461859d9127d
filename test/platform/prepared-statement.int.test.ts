/** executePrepared (platform/db/client.ts): a hot statement parsed and planned once per connection. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { connectDatabase, executePrepared, type Database } from '../../src/platform/db/client.js';
import { createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
let one: Database;
before(async () => {
  t = await createTestApp();
  one = connectDatabase(t.database.url, { max: 1 }); // one connection: its prepared statements are visible
});
after(async () => {
  await one.close();
  await t.close();
});

describe('happy path', () => {
  test('the same text with other values reuses one prepared statement on the connection; another text gets its own', async () => {
    const square = (n: number) => executePrepared<{ v: number }>(one.db, sql`select ${n}::int * ${n}::int as v`);
    assert.equal((await square(3)).rows[0].v, 9);
    assert.equal((await square(12)).rows[0].v, 144);
    const other = await executePrepared<{ v: string }>(one.db, sql`select ${'a'}::text || ${'b'}::text as v`);
    assert.equal(other.rows[0].v, 'ab');
    const prepared = (await one.db.execute(sql`select name, statement from pg_prepared_statements order by name`)).rows as Array<{ name: string; statement: string }>;
    const ours = prepared.filter((p) => p.name.startsWith('prepared_'));
    assert.equal(ours.length, 2, JSON.stringify(prepared));
    assert.ok(ours.some((p) => p.statement.includes('$1::int * $2::int')));
  });
});

describe('errors', () => {
  test('a failing execution reports the database error and leaves the statement usable', async () => {
    const divide = (n: number) => executePrepared<{ v: number }>(one.db, sql`select 1 / ${n}::int as v`);
    await assert.rejects(divide(0), /division by zero/);
    assert.equal((await divide(1)).rows[0].v, 1);
  });
});
