/**
 * Received-CFE search bench (issue 31 point 1): ~1M received CFEs of one company (+10 % of a second
 * one) generated with generate_series on a throw-away database, then each filter timed through
 * searchReceivedCfes (page of 50 + exact count, median of 3) with the plans of its page and count
 * queries (EXPLAIN, no ANALYZE) and whether they use an index. Target: under 50 ms.
 * Slow (the insert dominates): `npm run bench -- --search` or standalone `npx tsx bench/received-search.ts`.
 * Env: BENCH_SEARCH_ROWS (1000000).
 */
import { sql } from 'drizzle-orm';
import { companies } from '../src/modules/companies/companies.tables.js';
import { receivedSearchFilters, receivedSort, searchReceivedCfes, whereClause } from '../src/modules/received-cfe/received-cfe.search.js';
import { connectDatabase, type Db } from '../src/platform/db/client.js';
import { explain as plan, openBenchDatabase, plansUseIndex, timeMedian } from './support.js';

async function seed(db: Db, rows: number) {
  const ids: number[] = [];
  for (const n of [1, 2]) {
    const [c] = await db.insert(companies).values({ rut: `21000000${n}001`.slice(0, 12), razonSocial: `Bench ${n} SA` }).returning();
    const count = n === 1 ? rows : Math.ceil(rows / 10);
    // Two years of purchases from 2,000 suppliers; states mixed; 1 in 8 in USD; 1 in 3 taken into stock.
    for (let from = 1; from <= count; from += 250_000) {
      const to = Math.min(count, from + 249_999);
      await db.execute(sql`
        insert into received_cfes (company_id, secuencia, canal, rut_emisor, razon_social_emisor, tipo_cfe, serie, numero, fecha_emision,
          moneda, mnt_total, mnt_pagar, xml, estado, vencimiento_respuesta, decidido_en, recibido_en, stock_referencia, stock_importado_en)
        select ${c.id}, g, 'correo', lpad((g % 2000)::text, 12, '2'), 'Proveedor ' || (g % 2000) || ' Sociedad Anonima',
          (array[111,112,113,101,181])[1 + g % 5], 'A', g,
          (timestamptz '2024-01-01 00:00-03' + (g::float8 / ${count} * 730) * interval '1 day')::date,
          case when g % 8 = 0 then 'USD' else 'UYU' end, (g % 100000) * 1.22, (g % 100000) * 1.22, 'x',
          case when g % 97 = 0 then 'rechazado' when g % 5 = 0 then 'pendiente' else 'aceptado' end,
          (timestamptz '2024-01-11 00:00-03' + (g::float8 / ${count} * 730) * interval '1 day')::date,
          case when g % 5 <> 0 then timestamptz '2024-01-03 00:00-03' + (g::float8 / ${count} * 730) * interval '1 day' end,
          timestamptz '2024-01-01 12:00-03' + (g::float8 / ${count} * 730) * interval '1 day',
          case when g % 3 = 0 then 'REM-' || g end,
          case when g % 3 = 0 then timestamptz '2024-01-05 00:00-03' + (g::float8 / ${count} * 730) * interval '1 day' end
        from generate_series(${from}::int, ${to}::int) g`);
    }
    ids.push(c.id);
  }
  await db.execute(sql`vacuum analyze received_cfes`);
  return ids[0];
}

export async function runReceivedSearchBench() {
  const rows = Number(process.env.BENCH_SEARCH_ROWS ?? 1_000_000);
  const bench = await openBenchDatabase('bench_received_search');
  const database = connectDatabase(bench.url, { max: 4 });
  const db = database.db;
  try {
    const t0 = Date.now();
    const companyId = await seed(db, rows);
    const seedSeconds = (Date.now() - t0) / 1000;
    console.log(`seeded ${rows} + ${Math.ceil(rows / 10)} received CFEs in ${seedSeconds.toFixed(1)} s`);
    const cases: Array<[string, Record<string, unknown>]> = [
      ['no filter (newest page)', {}],
      ['fechaComprobante one week', { fechaComprobanteDesde: '2025-03-01', fechaComprobanteHasta: '2025-03-07' }],
      ['fechaRecepcion one day', { tipoFiltro: 'fechaRecepcion', fechaComprobanteDesde: '2025-06-10', fechaComprobanteHasta: '2025-06-10' }],
      ['fechaDecision one day', { tipoFiltro: 'fechaDecision', fechaComprobanteDesde: '2025-06-10', fechaComprobanteHasta: '2025-06-10' }],
      ['rutEmisor', { rutEmisor: '222222221234' }],
      ['estado pendiente + due before, by due date', { estado: 'pendiente', vencimientoRespuestaHasta: '2024-03-01', orden: 'vencimientoRespuesta', direccion: 'asc' }],
      ['tipoCfe + serie + numero', { tipoCfe: '111', serie: 'A', numero: '500000' }],
      ['month + USD + amount', { fechaComprobanteDesde: '2025-02-01', fechaComprobanteHasta: '2025-02-28', moneda: 'USD', montoDesde: '1000.00', montoHasta: '5000.00' }],
      ['month + razonSocialEmisor contains', { fechaComprobanteDesde: '2025-02-01', fechaComprobanteHasta: '2025-02-28', razonSocialEmisor: 'proveedor 123 ' }],
      ['month + importadoStock=false', { fechaComprobanteDesde: '2025-02-01', fechaComprobanteHasta: '2025-02-28', importadoStock: 'false' }],
      ['desdeSecuencia', { desdeSecuencia: String(rows - 100) }],
    ];
    const figures: Record<string, unknown> = { rows, seedSeconds };
    for (const [name, raw] of cases) {
      const filters = receivedSearchFilters.parse(raw);
      const sort = receivedSort.parse(raw);
      const { result, medianMs } = await timeMedian(() => searchReceivedCfes(db, companyId, filters, sort, { start: 0, length: 50 }));
      const total = result.total;
      const where = whereClause(companyId, filters);
      const key = sort.orden === 'vencimientoRespuesta' ? 'vencimiento_respuesta' : 'fecha_emision';
      const pagePlan = await plan(db, sql`select id from received_cfes where ${where} order by ${sql.raw(`${key} ${sort.direccion}, id ${sort.direccion}`)} limit 50`);
      const countPlan = await plan(db, sql`select count(*) from received_cfes where ${where}`);
      const usesIndex = plansUseIndex(pagePlan, countPlan);
      // The count alone, as the server executes it (Execution Time of EXPLAIN ANALYZE): the share of the exact total.
      const analyzed = await plan(db, sql`(analyze) select count(*) from received_cfes where ${where}`);
      const countMs = Number(/Execution Time: ([\d.]+)/.exec(analyzed)?.[1] ?? NaN);
      figures[name] = { total, medianMs, countServerMs: countMs, usesIndex };
      console.log(`\n-- ${name}: total ${total}, median ${medianMs} ms (page + count; count alone ${countMs} ms in the server), index: ${usesIndex}\npage:\n${pagePlan}\ncount:\n${countPlan}`);
    }
    console.log('\n', figures);
    return figures;
  } finally {
    await database.close();
    await bench.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runReceivedSearchBench();
  process.exit(0);
}
