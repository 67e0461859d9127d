/** Number reservation (issue 4 point 4): atomic, unique and gap-free under concurrency, on the real PostgreSQL. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { branches } from '../companies/companies.tables.js';
import { addDays, uyToday } from '../../lib/dates.js';
import { caeRanges } from './cae.tables.js';

let t: TestApp;
let na = 90260000000;

async function insertRange(companyId: number, v: { tipoCfe?: number; serie?: string; dNro: number; hNro: number; fvd: string; branchId?: number | null }) {
  const [row] = await t.db.insert(caeRanges).values({
    companyId, branchId: v.branchId ?? null, tipoCfe: v.tipoCfe ?? 101, serie: v.serie ?? 'A', dNro: v.dNro, hNro: v.hNro, nextNumber: v.dNro,
    caeNumber: String(++na), fa: uyToday(), fvd: v.fvd, origin: 'manual',
  }).returning();
  return row;
}

before(async () => {
  t = await createTestApp({ DB_POOL_MAX: '40' });
});
after(async () => t.close());

describe('happy path', () => {
  test('250 concurrent reservations get exactly contiguous numbers, earliest-expiring range first', async () => {
    const company = await insertCompany(t);
    const soon = await insertRange(company.id, { dNro: 1, hNro: 100, fvd: addDays(uyToday(), 10) });
    const later = await insertRange(company.id, { dNro: 1001, hNro: 2000, fvd: addDays(uyToday(), 300) });
    const cae = t.modules.services.cae;
    const results = await Promise.all(
      Array.from({ length: 250 }, () => t.db.transaction((tx) => cae.reserveNumber(tx, { companyId: company.id, branchId: null, tipoCfe: 101 }))),
    );
    const fromSoon = results.filter((r) => r.caeRangeId === soon.id).map((r) => r.numero).sort((a, b) => a - b);
    const fromLater = results.filter((r) => r.caeRangeId === later.id).map((r) => r.numero).sort((a, b) => a - b);
    assert.deepEqual(fromSoon, Array.from({ length: 100 }, (_, i) => 1 + i));
    assert.deepEqual(fromLater, Array.from({ length: 150 }, (_, i) => 1001 + i));
    assert.equal(results[0].cae.NA.length, 11);
    const usage = await t.db.execute(sql`select sum(cantidad)::int as n from cae_daily_usage where cae_range_id in (${soon.id}, ${later.id})`);
    assert.equal((usage.rows[0] as { n: number }).n, 250);
  });

  test('a rolled-back reservation does not consume its number, even with concurrent rollbacks', async () => {
    const company = await insertCompany(t);
    await insertRange(company.id, { dNro: 1, hNro: 10_000, fvd: addDays(uyToday(), 30) });
    const cae = t.modules.services.cae;
    const committed: number[] = [];
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        t.db
          .transaction(async (tx) => {
            const r = await cae.reserveNumber(tx, { companyId: company.id, branchId: null, tipoCfe: 101, serie: 'A' });
            if (i % 3 === 0) throw new Error('rollback');
            committed.push(r.numero);
          })
          .catch((err: Error) => assert.equal(err.message, 'rollback')),
      ),
    );
    committed.sort((a, b) => a - b);
    assert.equal(committed.length, 133);
    assert.deepEqual(committed, Array.from({ length: 133 }, (_, i) => 1 + i));
  });

  test('branch ranges before company-wide ones; other branches never use them', async () => {
    const company = await insertCompany(t);
    const [b1] = await t.db.insert(branches).values({ companyId: company.id, codComercio: 'S1', nombre: 'Sucursal 1' }).returning();
    const [b2] = await t.db.insert(branches).values({ companyId: company.id, codComercio: 'S2', nombre: 'Sucursal 2' }).returning();
    const wide = await insertRange(company.id, { tipoCfe: 111, dNro: 1, hNro: 10, fvd: addDays(uyToday(), 5) });
    const own = await insertRange(company.id, { tipoCfe: 111, dNro: 500, hNro: 510, fvd: addDays(uyToday(), 50), branchId: b1.id });
    const cae = t.modules.services.cae;
    const r1 = await t.db.transaction((tx) => cae.reserveNumber(tx, { companyId: company.id, branchId: b1.id, tipoCfe: 111 }));
    assert.equal(r1.caeRangeId, own.id);
    assert.equal(r1.numero, 500);
    const r2 = await t.db.transaction((tx) => cae.reserveNumber(tx, { companyId: company.id, branchId: b2.id, tipoCfe: 111 }));
    assert.equal(r2.caeRangeId, wide.id);
    assert.equal(r2.numero, 1);
  });
});

describe('errors', () => {
  test('expired, exhausted and voided ranges never hand out a number', async () => {
    const company = await insertCompany(t);
    await insertRange(company.id, { dNro: 1, hNro: 5, fvd: addDays(uyToday(), -1) });
    const exhausted = await insertRange(company.id, { dNro: 1, hNro: 1, fvd: addDays(uyToday(), 10) });
    const annulled = await insertRange(company.id, { dNro: 10, hNro: 20, fvd: addDays(uyToday(), 10) });
    await t.db.update(caeRanges).set({ annulledAt: new Date() }).where(sql`id = ${annulled.id}`);
    const cae = t.modules.services.cae;
    const first = await t.db.transaction((tx) => cae.reserveNumber(tx, { companyId: company.id, branchId: null, tipoCfe: 101 }));
    assert.equal(first.caeRangeId, exhausted.id);
    await assert.rejects(
      t.db.transaction((tx) => cae.reserveNumber(tx, { companyId: company.id, branchId: null, tipoCfe: 101 })),
      (err: { code?: string }) => err.code === 'CAE_SIN_NUMEROS',
    );
    await assert.rejects(
      t.db.transaction((tx) => cae.reserveNumber(tx, { companyId: company.id, branchId: null, tipoCfe: 111 })),
      (err: { code?: string }) => err.code === 'CAE_SIN_NUMEROS',
    );
  });
});
