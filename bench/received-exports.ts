/**
 * Exports of received CFE (issue 31 point 3): exportarExcel and descargarPdfsFiltrados through the
 * received-cfe exports service on a throw-away database, to check that memory stays flat and what a
 * row costs. N received CFE of one company (generate_series; format-rejected XML stubs, so the ZIP
 * measures the keyset iterator + archiver with XML entries; PDF rendering is bench/cfe-documents.ts).
 * Figures: wall time, CPU per row (process.cpuUsage), peak RSS, live heap after a forced GC at the
 * end of a 10 % export and of the full one (equal = flat).
 * Run: `npm run bench -- --received-exports` or `npx tsx bench/received-exports.ts`. Env: BENCH_RECEIVED_EXPORT_ROWS (200000).
 */
import { Writable } from 'node:stream';
import v8 from 'node:v8';
import vm from 'node:vm';
import { pathToFileURL } from 'node:url';
import { sql } from 'drizzle-orm';
import { companies } from '../src/modules/companies/companies.tables.js';
import { createReceivedExports } from '../src/modules/received-cfe/received-cfe.exports.js';
import { connectDatabase } from '../src/platform/db/client.js';
import type { Actor } from '../src/platform/http/actor.js';
import { openBenchDatabase } from './support.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const actor = { userId: 1, email: 'bench@test.uy', isOperator: true, companies: new Map() } as Actor;

function sink() {
  let bytes = 0;
  const out = new Writable({ write(chunk: Buffer, _enc, done) { bytes += chunk.length; done(); } });
  return { out, bytes: () => bytes };
}

async function measure(label: string, rows: number, run: (out: Writable) => Promise<unknown>) {
  gc();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let peakRss = process.memoryUsage().rss;
  const timer = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 20);
  const s = sink();
  await run(s.out);
  clearInterval(timer);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  gc();
  const r = { label, rows, wallMs: Math.round(wallMs), cpuUsPerRow: Number(((cpu.user + cpu.system) / rows).toFixed(1)), outMB: Number((s.bytes() / 1e6).toFixed(1)), peakRssMB: Math.round(peakRss / 1e6), liveHeapMB: Number((process.memoryUsage().heapUsed / 1e6).toFixed(1)) };
  console.log(JSON.stringify(r));
  return r;
}

export async function runReceivedExportsBench() {
  const rows = Number(process.env.BENCH_RECEIVED_EXPORT_ROWS ?? 200_000);
  const bench = await openBenchDatabase('bench_received_exports');
  const database = connectDatabase(bench.url, { max: 4 });
  const db = database.db;
  try {
    const [c] = await db.insert(companies).values({ rut: '210000001001', razonSocial: 'Bench SA' }).returning();
    await db.execute(sql`insert into received_cfes (company_id, secuencia, canal, rut_emisor, razon_social_emisor, tipo_cfe, serie, numero, fecha_emision, moneda, mnt_total, mnt_pagar, xml, estado)
      select ${c.id}, g, 'correo', lpad((g % 2000)::text, 12, '2'), 'Proveedor ' || (g % 2000), 111, 'A', g, date '2026-01-01' + (g % 365), 'UYU', (g % 100000) * 1.22, (g % 100000) * 1.22,
        '<CFE>' || repeat('x', 2000) || '</CFE>', 'rechazado_formato'
      from generate_series(1, ${rows}) g`);
    await db.execute(sql`vacuum analyze received_cfes`);
    const exports = createReceivedExports({ db, ports: { assertConfigAccess: async () => {} } });
    const q = (extra: Record<string, unknown>) => ({ idEmpresa: c.id, tipoFiltro: 'fechaComprobante' as const, orden: 'fechaComprobante' as const, direccion: 'desc' as const, ...extra });
    const tenth = Math.ceil(rows / 10);
    const results = [];
    for (const n of [tenth, rows]) {
      const prep = await exports.prepareExcel(actor, q({ desdeSecuencia: rows - n }));
      results.push(await measure('xlsx', prep.rows, (out) => prep.write(out)));
    }
    for (const n of [500, 5000]) {
      const prep = await exports.prepareZip(actor, { ...q({ desdeSecuencia: rows - n }), formato: 'A4', incluirXml: true });
      results.push(await measure('zip (XML entries)', prep.rows, (out) => prep.write(out)));
    }
    return results;
  } finally {
    await database.close();
    await bench.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runReceivedExportsBench();
  process.exit(0);
}
