/**
 * Search bench (issue 7 point 1): ~1M issued CFEs of one company (+10 % of a second one) generated
 * with generate_series on a throw-away database, then every search filter timed through
 * searchIssuedCfes (page of 50 + exact count, median of 3) with the plan of its page and count
 * queries (EXPLAIN, no ANALYZE) and whether they use an index. Also times the daily and monthly charts
 * (summary kept by triggers as the rows are inserted, issue 29 point 4).
 * Slow (the insert dominates): `npm run bench -- --search` or standalone `npx tsx bench/search.ts`.
 * Env: BENCH_SEARCH_ROWS (1000000).
 */
import { sql } from 'drizzle-orm';
import { branches, companies, emissionPoints } from '../src/modules/companies/companies.tables.js';
import { caeRanges } from '../src/modules/cae/cae.tables.js';
import { chartSeries } from '../src/modules/issued-cfe/issued-cfe.charts.js';
import { searchFiltersSchema, searchIssuedCfes, whereClause } from '../src/modules/issued-cfe/issued-cfe.search.js';
import { connectDatabase, type Db } from '../src/platform/db/client.js';
import { explain as plan, openBenchDatabase, plansUseIndex, timeMedian } from './support.js';

async function seed(db: Db, rows: number) {
  const ids: number[] = [];
  for (const n of [1, 2]) {
    const [c] = await db.insert(companies).values({ rut: `21000000${n}001`.slice(0, 12), razonSocial: `Bench ${n} SA` }).returning();
    const [b] = await db.insert(branches).values({ companyId: c.id, codComercio: 'C1', nombre: 'Casa', codigoCasaDgi: 1 }).returning();
    const [p] = await db.insert(emissionPoints).values({ companyId: c.id, branchId: b.id, codTerminal: 'T1' }).returning();
    const [r] = await db.insert(caeRanges).values({ companyId: c.id, tipoCfe: 101, serie: 'A', dNro: 1, hNro: 99_999_999, nextNumber: 1, caeNumber: `9026000000${n}`, fa: '2024-01-01', fvd: '2027-12-31', origin: 'manual' }).returning();
    const count = n === 1 ? rows : Math.ceil(rows / 10);
    // Two years of receipts; ~3 % rejected/accepted mixes; 20k receivers; 5 types; 1 in 8 in USD.
    for (let from = 1; from <= count; from += 250_000) {
      const to = Math.min(count, from + 249_999);
      await db.execute(sql`
        insert into issued_cfes (company_id, branch_id, emission_point_id, cae_range_id, tipo_cfe, serie, numero, fecha_emision, tmst_firma, firmado_en,
          receptor_tipo_doc, receptor_documento, receptor_nombre, moneda, tipo_cambio, mnt_total, mnt_pagar, mnt_neto_iva_tasa_basica, mnt_iva_tasa_basica,
          totales, xml, digest_value, codigo_seguridad, url_qr, estado, estado_actualizado_en)
        select ${c.id}, ${b.id}, ${p.id}, ${r.id}, (array[101,102,111,112,181])[1 + g % 5], 'A', g,
          (timestamptz '2024-01-01 00:00-03' + (g::float8 / ${count} * 730) * interval '1 day')::date, 'x',
          timestamptz '2024-01-01 00:00-03' + (g::float8 / ${count} * 730) * interval '1 day',
          2, lpad((g % 20000)::text, 12, '2'), 'Cliente ' || (g % 20000) || ' Sociedad Anonima',
          case when g % 8 = 0 then 'USD' else 'UYU' end, case when g % 8 = 0 then 40 end,
          (g % 100000) * 1.22, (g % 100000) * 1.22, g % 100000, (g % 100000) * 0.22, '{}'::jsonb, 'x', 'x', 'x', 'x',
          case when g % 97 = 0 then 'rechazado' when g % 3 = 0 then 'firmado' else 'aceptado' end,
          case when g % 3 <> 0 then timestamptz '2024-01-02 00:00-03' + (g::float8 / ${count} * 730) * interval '1 day' end
        from generate_series(${from}::int, ${to}::int) g`);
    }
    ids.push(c.id);
  }
  // Steady state: autovacuum would have set the visibility map (index-only counts) by the time anyone searches.
  await db.execute(sql`vacuum analyze issued_cfes`);
  return ids[0];
}

export async function runSearchBench() {
  const rows = Number(process.env.BENCH_SEARCH_ROWS ?? 1_000_000);
  const bench = await openBenchDatabase('bench_search');
  const database = connectDatabase(bench.url, { max: 4 });
  const db = database.db;
  try {
    const t0 = Date.now();
    const companyId = await seed(db, rows);
    const seedSeconds = (Date.now() - t0) / 1000;
    console.log(`seeded ${rows} + ${Math.ceil(rows / 10)} rows in ${seedSeconds.toFixed(1)} s`);
    const cases: Array<[string, Record<string, unknown>]> = [
      ['no filter (newest page)', {}],
      ['fechaFirma one week', { fechaFirmaDesde: '2025-03-01', fechaFirmaHasta: '2025-03-07' }],
      ['fechaEmision one day', { tipoFiltro: 'fechaEmision', fechaFirmaDesde: '2025-06-10', fechaFirmaHasta: '2025-06-10' }],
      ['fechaEstado one day', { tipoFiltro: 'fechaEstado', fechaFirmaDesde: '2025-06-10', fechaFirmaHasta: '2025-06-10' }],
      ['receptorDocumento', { receptorDocumento: '222222212345' }],
      ['receptorNombre contains', { receptorNombre: 'cliente 12345 ' }],
      ['estado rechazado', { estado: ['rechazado'] }],
      ['numero range + type', { tipoCfe: [111], serie: 'A', numeroDesde: 500000, numeroHasta: 500100 }],
      ['month + USD + amount', { fechaFirmaDesde: '2025-02-01', fechaFirmaHasta: '2025-02-28', moneda: 'USD', montoDesde: '1000.00', montoHasta: '5000.00' }],
    ];
    const figures: Record<string, unknown> = { rows, seedSeconds };
    for (const [name, raw] of cases) {
      const filters = searchFiltersSchema.parse(raw);
      const sort = { orden: 'fechaFirma', direccion: 'desc' } as const;
      const { result, medianMs } = await timeMedian(() => searchIssuedCfes(db, companyId, filters, sort, { start: 0, length: 50 }));
      const total = result.total;
      const where = whereClause(companyId, filters);
      const pagePlan = await plan(db, sql`select id from issued_cfes where ${where} order by firmado_en desc, id desc limit 50`);
      const countPlan = await plan(db, sql`select count(*) from issued_cfes where ${where}`);
      const usesIndex = plansUseIndex(pagePlan, countPlan);
      figures[name] = { total, medianMs, usesIndex };
      console.log(`\n-- ${name}: total ${total}, median ${medianMs} ms (page + count), index: ${usesIndex}\npage:\n${pagePlan}\ncount:\n${countPlan}`);
    }
    // Charts (issue 29 point 4): read from the trigger-kept summary; median of 3 (the first warms the plan cache).
    const chartMs = async (g: 'dia' | 'mes', from: string, to: string) => (await timeMedian(() => chartSeries(db, companyId, g, from, to))).medianMs;
    figures['graficaDiaria 30 days ms'] = await chartMs('dia', '2025-05-01', '2025-05-30');
    figures['graficaDiaria 365 days ms'] = await chartMs('dia', '2024-06-01', '2025-05-31');
    figures['graficaFacturacionMensual 12 months ms'] = await chartMs('mes', '2024-06', '2025-05');
    figures['graficaFacturacionMensual 24 months ms'] = await chartMs('mes', '2024-01', '2025-12');
    console.log(`\ncharts over ${rows} CFEs (median of 3): daily 30 days ${figures['graficaDiaria 30 days ms']} ms, daily 365 days ${figures['graficaDiaria 365 days ms']} ms, monthly 12 months ${figures['graficaFacturacionMensual 12 months ms']} ms, monthly 24 months ${figures['graficaFacturacionMensual 24 months ms']} ms (target < 100 ms)`);
    console.log('\n', figures);
    return figures;
  } finally {
    await database.close();
    await bench.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runSearchBench();
  process.exit(0);
}
