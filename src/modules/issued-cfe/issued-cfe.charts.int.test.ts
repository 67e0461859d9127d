/**
 * The charts read the summary kept by triggers (migration 0025) and must answer exactly what grouping
 * the CFEs themselves answered (issue 29 point 4). A varied dataset (sales, credit notes, types
 * without an amount, contingency types; UYU, USD with and without a rate, EUR; every state; signatures
 * on both sides of midnight Uruguay time and of a month's end; null amounts), written by one large
 * INSERT, many small ones, in a transaction, then changed (rejections, a rejection undone, deletes, a
 * grouped column repaired by hand), is charted both ways and compared, by day and by month.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertIssuer } from '../../../test/support/factories.js';
import { caeRanges } from '../cae/cae.tables.js';
import { chartGroups, chartRange, chartSeries, layOutChart, NC_CODES, SALES_CODES, type Granularity, type GroupRow } from './issued-cfe.charts.js';
import { uyDayStart } from './issued-cfe.search.js';

let t: TestApp;
let companyId: number;
let otherCompanyId: number;

/** The chart query before the summary (issue 7), verbatim: the reference the new one must equal. */
async function referenceGroups(company: number, g: Granularity, from: string, to: string): Promise<GroupRow[]> {
  const { startDay, endExclusive } = chartRange(g, from, to);
  const local = sql.raw(`((firmado_en - interval '3 hours') at time zone 'UTC')`);
  const label = g === 'dia' ? sql`to_char(${local}, 'YYYY-MM-DD')` : sql`to_char(${local}, 'YYYY-MM')`;
  const signed = sql.raw(`(case when tipo_cfe = any(array[${SALES_CODES.join(',')}]) then coalesce(mnt_total, 0) else 0 end
    * case when tipo_cfe = any(array[${NC_CODES.join(',')}]) then -1 else 1 end)`);
  const res = await t.db.execute(sql`
    select ${label} as etiqueta, moneda, tipo_cfe, grouping(moneda) as gm, grouping(tipo_cfe) as gt,
      count(*)::int as cantidad, round(sum(${signed}), 2)::text as monto,
      round(sum(${signed} * case when moneda = 'UYU' then 1 else coalesce(tipo_cambio, 1) end), 2)::text as monto_uyu
    from issued_cfes
    where company_id = ${company} and firmado_en >= ${uyDayStart(startDay).toISOString()}::timestamptz
      and firmado_en < ${uyDayStart(endExclusive).toISOString()}::timestamptz and estado <> 'rechazado'
    group by grouping sets ((1), (1, moneda), (1, tipo_cfe))`);
  return res.rows as unknown as GroupRow[];
}

const canonical = (rows: GroupRow[]) => rows
  .map((r) => `${r.etiqueta}|${r.gm}${r.gt}|${r.moneda ?? ''}|${r.tipo_cfe ?? ''}|${r.cantidad}|${r.monto}|${r.monto_uyu}`)
  .sort();

const RANGES: Array<[Granularity, string, string]> = [
  ['dia', '2025-12-28', '2026-03-10'],
  ['dia', '2026-01-31', '2026-02-01'],
  ['dia', '2026-01-15', '2026-01-15'],
  ['mes', '2025-11', '2026-04'],
  ['mes', '2026-02', '2026-02'],
];

async function assertSameAsReference(company = companyId) {
  for (const [g, from, to] of RANGES) {
    const expected = await referenceGroups(company, g, from, to);
    const actual = await chartGroups(t.db, company, g, from, to);
    assert.deepEqual(canonical(actual), canonical(expected), `${g} ${from}..${to}`);
    assert.deepEqual(await chartSeries(t.db, company, g, from, to), layOutChart(company, g, from, to, expected), `${g} ${from}..${to} laid out`);
  }
}

/** Rows g in [lo, hi] of the dataset; the formulas spread types, currencies, states, amounts and instants. */
function insertRows(company: number, lo: number, hi: number) {
  return sql`
    insert into issued_cfes (company_id, branch_id, emission_point_id, cae_range_id, tipo_cfe, serie, numero, fecha_emision, tmst_firma, firmado_en,
      moneda, tipo_cambio, mnt_total, mnt_pagar, totales, xml, digest_value, codigo_seguridad, url_qr, estado)
    select p.company_id, p.branch_id, p.id, r.id, (array[101,102,103,111,112,113,121,122,151,181,182,201,211,212])[1 + g % 14], 'Q', g,
      date '2026-01-01', 'x',
      -- Midnight Uruguay time is 03:00 UTC: instants a microsecond either side of it, at 23:59 and 00:00
      -- UY, around the end of January, and elsewhere in the day.
      timestamptz '2025-12-30 03:00:00+00' + make_interval(days => g % 65)
        + (array[interval '-1 microsecond', interval '0', interval '1 microsecond', interval '-1 minute', interval '20 hours 59 minutes 59.999999 seconds', interval '9 hours 17 minutes'])[1 + g % 6],
      (array['UYU','UYU','USD','EUR','USD'])[1 + g % 5],
      case when g % 5 = 2 then 39.123 when g % 5 = 3 then 43.5 when g % 5 = 4 and g % 3 = 0 then null when g % 5 = 4 then 40.001 end,
      case when g % 11 = 0 then null else (g * 37 % 100000) * 1.01 end, null,
      '{}'::jsonb, 'x', 'x', 'x', 'x',
      (array['firmado','aceptado','rechazado','observado','en_cola_dgi','sobre_recibido','aceptado','rechazado'])[1 + g % 8]
    from generate_series(${lo}::int, ${hi}::int) g,
      (select * from emission_points where company_id = ${company} limit 1) p,
      (select * from cae_ranges where company_id = ${company} limit 1) r`;
}

before(async () => {
  t = await createTestApp();
  const a = await insertIssuer(t);
  const b = await insertIssuer(t);
  companyId = a.company.id;
  otherCompanyId = b.company.id;
  for (const c of [a, b]) {
    await t.db.insert(caeRanges).values({ companyId: c.company.id, tipoCfe: 101, serie: 'Q', dNro: 1, hNro: 999_999, nextNumber: 1, caeNumber: '90260000001', fa: '2025-01-01', fvd: '2027-12-31', origin: 'manual' });
  }
  await t.db.execute(insertRows(companyId, 1, 1500)); // one large statement
  for (let lo = 1501; lo <= 1800; lo += 7) await t.db.execute(insertRows(companyId, lo, Math.min(lo + 6, 1800))); // batches
  await t.db.transaction(async (tx) => {
    await tx.execute(insertRows(companyId, 1801, 1900));
    await tx.execute(insertRows(companyId, 1901, 2000));
  });
  await t.db.execute(insertRows(otherCompanyId, 1, 300));
  // Rejected and valid CFEs exactly at and a microsecond before the end of the ranges charted
  // (2026-02-01 and 2026-02 end at 2026-02-02 and 2026-03-01 00:00 UY = 03:00 UTC).
  await t.db.execute(sql`
    insert into issued_cfes (company_id, branch_id, emission_point_id, cae_range_id, tipo_cfe, serie, numero, fecha_emision, tmst_firma, firmado_en,
      moneda, mnt_total, totales, xml, digest_value, codigo_seguridad, url_qr, estado)
    select p.company_id, p.branch_id, p.id, r.id, 111, 'Q', 5000 + k, date '2026-01-01', 'x', v.at, 'UYU', 100 * k, '{}'::jsonb, 'x', 'x', 'x', 'x', v.estado
    from (values (1, timestamptz '2026-02-02 03:00:00+00', 'rechazado'), (2, timestamptz '2026-02-02 02:59:59.999999+00', 'rechazado'),
                 (3, timestamptz '2026-03-01 03:00:00+00', 'rechazado'), (4, timestamptz '2026-03-01 03:00:00+00', 'aceptado'),
                 (5, timestamptz '2026-02-02 03:00:00+00', 'aceptado')) v(k, at, estado),
      (select * from emission_points where company_id = ${companyId} limit 1) p,
      (select * from cae_ranges where company_id = ${companyId} limit 1) r`);
});
after(async () => t?.close());

describe('happy path', () => {
  test('charts equal the old query over the inserted dataset, by day and by month', async () => {
    await assertSameAsReference();
    await assertSameAsReference(otherCompanyId);
  });

  test('after rejections, a rejection undone, deletes and grouped columns repaired by hand, still equal', async () => {
    await t.db.execute(sql`update issued_cfes set estado = 'rechazado' where company_id = ${companyId} and numero % 13 = 0`);
    await t.db.execute(sql`update issued_cfes set estado = 'aceptado' where company_id = ${companyId} and estado = 'rechazado' and numero % 17 = 0`);
    // Every CFE of one (day, type, currency) group rejected: the group disappears, as before.
    await t.db.execute(sql`update issued_cfes set estado = 'rechazado' where company_id = ${companyId} and tipo_cfe = 181 and moneda = 'EUR'`);
    await t.db.execute(sql`delete from issued_cfes where company_id = ${companyId} and numero % 19 = 0`);
    await t.db.execute(sql`update issued_cfes set firmado_en = firmado_en + interval '30 days', mnt_total = mnt_total + 1 where company_id = ${companyId} and numero % 23 = 0`);
    await t.db.execute(sql`update issued_cfes set tipo_cfe = 112, moneda = 'USD', tipo_cambio = 41 where company_id = ${companyId} and numero % 29 = 0`);
    await t.db.execute(sql`update issued_cfes set company_id = ${otherCompanyId}, numero = numero + 100000 where company_id = ${companyId} and numero in (31, 62)`);
    await t.db.execute(sql`update issued_cfes set estado_actualizado_en = now() where company_id = ${companyId}`); // a state-only change leaves the summary alone
    await assertSameAsReference();
    await assertSameAsReference(otherCompanyId);
  });

  test('the migration backfill rebuilds the same summary from the stored CFEs', async () => {
    const summary = () => t.db.execute(sql`select company_id, dia::text, tipo_cfe, moneda, cantidad, monto::numeric(30,6)::text, monto_uyu::numeric(30,9)::text from issued_cfe_chart_days where cantidad <> 0 order by 1, 2, 3, 4`);
    const before = (await summary()).rows;
    const migration = fs.readFileSync(new URL('../../../migrations/0025_issued_cfe_chart_days.sql', import.meta.url), 'utf8');
    const backfill = migration.split('--> statement-breakpoint').at(-1)!;
    assert.match(backfill, /^\s*-- Backfill[\s\S]*INSERT INTO issued_cfe_chart_days/);
    await t.db.execute(sql`delete from issued_cfe_chart_days`);
    await t.db.execute(sql.raw(backfill));
    assert.deepEqual((await summary()).rows, before);
    await assertSameAsReference();
  });

  test('the SQL amount rule agrees with the chart code on every type code', async () => {
    const res = await t.db.execute(sql`select c as code, issued_cfe_chart_signed(c::smallint, 10)::text as signed from generate_series(101, 299) c`);
    for (const { code, signed } of res.rows as Array<{ code: number; signed: string }>) {
      const expected = SALES_CODES.includes(code) ? (NC_CODES.includes(code) ? -10 : 10) : 0;
      assert.equal(Number(signed), expected, `tipo ${code}`);
    }
  });

  test('through the API: graficaDiaria answers the summary figures', async () => {
    const admin = await t.adminToken();
    const reader = await createUser(t, admin, 'lector.graficas@test.uy', [{ idEmpresa: companyId, rol: 'lectura' }]);
    const res = await t.call(reader.token, 'GET', `/api/v1/cfeemitido/graficaDiaria?idEmpresa=${companyId}&desde=2026-01-30&hasta=2026-02-02`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, JSON.parse(JSON.stringify(layOutChart(companyId, 'dia', '2026-01-30', '2026-02-02', await referenceGroups(companyId, 'dia', '2026-01-30', '2026-02-02')))));
  });
});

describe('access', () => {
  test("another company's CFEs never enter a chart", async () => {
    const lone = await insertIssuer(t);
    const empty = await chartSeries(t.db, lone.company.id, 'mes', '2025-11', '2026-04');
    assert.deepEqual(empty.cantidad, [0, 0, 0, 0, 0, 0]);
    assert.deepEqual(empty.porMoneda, []);
  });
});
