/**
 * Search, exports, export configuration and charts of issued CFEs through the real app. One real
 * e-Ticket per company (emitir) gives the template row; 1,200 synthetic receipts of company A (and
 * 40 of company B) are generated in SQL with a formula the test recomputes to know every answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { iterateIssuedCfes, searchIssuedCfes, searchFiltersSchema } from './issued-cfe.search.js';
import { setUpIssuer } from './issued-cfe.test-setup.js';

let t: TestApp;
let admin: string;
let A: { id: number; rut: string };
let B: { id: number; rut: string };
let branchA: number;
let lectura: { id: number; token: string };
let adminA: { id: number; token: string };
let onlyB: { id: number; token: string };

const N = 1200;
/** The generator's formula, mirrored in SQL below. */
const gen = (g: number) => ({
  g,
  tipo: [101, 102, 111][g % 3],
  day: g % 30, // 2026-01-(day+1), signed 12:00 UY
  doc: `DOC${g % 10}`,
  nombre: g % 50 === 0 ? `Cliente ${g % 10} Especial SA` : `Cliente ${g % 10}`,
  moneda: g % 4 === 0 ? 'USD' : 'UYU',
  total: Math.round(g * 122) / 100, // g × 1.22 (exact in cents)
  estado: g % 5 === 0 ? 'aceptado' : g % 7 === 0 ? 'rechazado' : 'firmado',
});
const rows = Array.from({ length: N }, (_, i) => gen(i + 1));
const count = (f: (r: ReturnType<typeof gen>) => boolean) => rows.filter(f).length;

async function seed(companyId: number, n: number) {
  await t.db.execute(sql`
    insert into issued_cfes (company_id, branch_id, emission_point_id, cae_range_id, tipo_cfe, serie, numero, fecha_emision, tmst_firma, firmado_en,
      receptor_tipo_doc, receptor_documento, receptor_nombre, moneda, tipo_cambio, mnt_total, mnt_pagar, mnt_neto_iva_tasa_basica, mnt_iva_tasa_basica,
      totales, xml, digest_value, codigo_seguridad, url_qr, estado)
    select t.company_id, t.branch_id, t.emission_point_id, t.cae_range_id, (array[101,102,111])[1 + g % 3], 'Z', g,
      date '2026-01-01' + (g % 30), 'x', timestamptz '2026-01-01 12:00:00-03' + make_interval(days => g % 30),
      3, 'DOC' || (g % 10), 'Cliente ' || (g % 10) || case when g % 50 = 0 then ' Especial SA' else '' end,
      case when g % 4 = 0 then 'USD' else 'UYU' end, case when g % 4 = 0 then 40 end, g * 1.22, g * 1.22, g, g * 0.22,
      jsonb_build_object('MntNetoIVATasaBasica', g::numeric(17,2)::text, 'MntIVATasaBasica', (g * 0.22)::numeric(17,2)::text, 'MntTotal', (g * 1.22)::numeric(17,2)::text),
      t.xml, t.digest_value, t.codigo_seguridad, t.url_qr,
      case when g % 5 = 0 then 'aceptado' when g % 7 = 0 then 'rechazado' else 'firmado' end
    from generate_series(1, ${n}) g, (select * from issued_cfes where company_id = ${companyId} limit 1) t`);
}

const emit = (companyId: number) => t.call(admin, 'POST', '/api/v1/comprobante/emitir', { idEmpresa: companyId, codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe: 101, fechaEmision: new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10) }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '100' }] } });
const buscar = (qs: string, token = admin) => t.call(token, 'GET', `/api/v1/cfeemitido/buscar?idEmpresa=${A.id}&serie=Z&${qs}`);
const raw = (token: string, method: string, url: string, payload?: object) => t.app.inject({ method: method as 'POST', url, payload, headers: { authorization: `Bearer ${token}` } });

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  A = await insertCompany(t);
  B = await insertCompany(t);
  ({ branch: { id: branchA } } = await setUpIssuer(t.db, t.call, admin, A));
  await setUpIssuer(t.db, t.call, admin, B);
  for (const c of [A, B]) assert.equal((await emit(c.id)).status, 200);
  await seed(A.id, N);
  await seed(B.id, 40);
  lectura = await createUser(t, admin, 'lectura@reports.uy', [{ idEmpresa: A.id, rol: 'lectura' }]);
  adminA = await createUser(t, admin, 'admin@reports.uy', [{ idEmpresa: A.id, rol: 'administrador' }]);
  onlyB = await createUser(t, admin, 'b@reports.uy', [{ idEmpresa: B.id, rol: 'administrador' }]);
});
after(async () => t.close());

describe('happy path', () => {
  test('buscar: every filter gives the count the generator formula predicts', async () => {
    const cases: Array<[string, number]> = [
      ['', N],
      ['fechaFirmaDesde=2026-01-05&fechaFirmaHasta=2026-01-06', count((r) => r.day === 4 || r.day === 5)],
      ['tipoFiltro=fechaEmision&fechaFirmaDesde=2026-01-30', count((r) => r.day === 29)],
      ['tipoFiltro=fechaEstado&fechaFirmaHasta=2026-01-01', count((r) => r.day === 0)],
      ['tipoCfe=101,111', count((r) => r.tipo !== 102)],
      ['tipoCfe=102&tipoCfe=111', count((r) => r.tipo !== 101)],
      ['numeroDesde=100&numeroHasta=199', 100],
      ['receptorDocumento=DOC3', count((r) => r.doc === 'DOC3')],
      ['receptorNombre=especial', count((r) => r.nombre.includes('Especial'))],
      ['estado=aceptado,rechazado', count((r) => r.estado !== 'firmado')],
      [`idSucursal=${branchA}`, N],
      ['idSucursal=999999', 0],
      ['montoDesde=100.04&montoHasta=122', count((r) => r.total >= 100.04 && r.total <= 122)],
      ['moneda=usd', count((r) => r.moneda === 'USD')],
      ['moneda=USD&tipoCfe=111&estado=firmado', count((r) => r.moneda === 'USD' && r.tipo === 111 && r.estado === 'firmado')],
    ];
    for (const [qs, expected] of cases) {
      const r = await buscar(qs);
      assert.equal(r.status, 200, `${qs}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.total, expected, qs);
    }
    // The real e-Ticket is found too (serie A), and company B's rows never leak into A.
    const all = await t.call(admin, 'GET', `/api/v1/cfeemitido/buscar?idEmpresa=${A.id}&length=1&orden=numero&direccion=asc`);
    assert.equal(all.body.total, N + 1);
  });

  test('buscar: sort and paging; rows are summaries with decimal strings', async () => {
    const r = await buscar('orden=numero&direccion=asc&start=10&length=5&tipoCfe=111');
    assert.deepEqual(r.body.data.map((x: any) => x.numero), [32, 35, 38, 41, 44]);
    assert.equal(r.body.start, 10);
    const row = r.body.data[0];
    assert.equal(row.totales.mntTotal, '39.04');
    assert.equal(row.nombreTipoCfe, 'e-Factura');
    assert.equal(row.receptor.documento, 'DOC2');
    const byAmount = await buscar('orden=mntTotal&direccion=desc&length=2');
    assert.deepEqual(byAmount.body.data.map((x: any) => x.totales.mntTotal), ['1464.00', '1462.78']);
  });

  test('iterator: keyset chunks (with ties on the sort key) return exactly the paged search order', async () => {
    const filters = searchFiltersSchema.parse({ serie: 'Z', fechaFirmaHasta: '2026-01-10' });
    for (const sort of [{ orden: 'fechaFirma', direccion: 'desc' }, { orden: 'receptorNombre', direccion: 'asc' }, { orden: 'numero', direccion: 'asc' }] as const) {
      const paged = await searchIssuedCfes(t.db, A.id, filters, sort, { start: 0, length: 500 });
      const streamed: number[] = [];
      for await (const r of iterateIssuedCfes(t.db, A.id, filters, sort, { chunkSize: 7 })) streamed.push(r.id);
      assert.equal(streamed.length, paged.total);
      assert.deepEqual(streamed, paged.data.map((r) => r.id));
    }
  });

  test('exportarExcel: a real xlsx read back, default columns, then the saved configuration', async () => {
    const body = { idEmpresa: A.id, serie: 'Z', moneda: 'USD', orden: 'numero', direccion: 'asc' };
    const res = await raw(lectura.token, 'POST', '/api/v1/cfeemitido/exportarExcel', body);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.headers['content-type'] as string, /spreadsheetml/);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = wb.getWorksheet('CFE emitidos')!;
    assert.equal(sheet.rowCount, 1 + count((r) => r.moneda === 'USD'));
    assert.equal(sheet.getRow(1).getCell(1).value, 'Fecha emisión');
    assert.equal(sheet.getRow(2).getCell(4).value, 12); // numero sorts by (tipoCfe, serie, numero): first USD e-Ticket is g = 12
    assert.equal(sheet.getRow(2).getCell(14).value, 14.64); // Total, a number

    const saved = await t.call(lectura.token, 'POST', '/api/v1/cfeemitido/configuracionExportacionCfe', { idEmpresa: A.id, columnas: ['numero', 'mntTotal', 'mntExpoyAsim'] });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    const res2 = await raw(lectura.token, 'POST', '/api/v1/cfeemitido/exportarExcel', body);
    const wb2 = new ExcelJS.Workbook();
    await wb2.xlsx.load(res2.rawPayload as unknown as ArrayBuffer);
    const s2 = wb2.worksheets[0];
    assert.deepEqual((s2.getRow(1).values as unknown[]).slice(1), ['Número', 'Total', 'Exportación y asimiladas']);
    assert.deepEqual((s2.getRow(2).values as unknown[]).slice(1), [12, 14.64]);
  });

  test('export configuration: defaults, company scope over the general one, admin reads a member\'s', async () => {
    const mine = await t.call(adminA.token, 'GET', '/api/v1/cfeemitido/getConfiguracionExportacionCfe');
    assert.equal(mine.body.predeterminada, true);
    assert.ok(mine.body.catalogo.some((c: any) => c.clave === 'receptorNombre'));
    await t.call(adminA.token, 'POST', '/api/v1/cfeemitido/configuracionExportacionCfe', { columnas: ['serie', 'numero'] });
    const general = await t.call(adminA.token, 'GET', `/api/v1/cfeemitido/getConfiguracionExportacionCfe?userId=${adminA.id}&idEmpresa=${A.id}`);
    assert.deepEqual(general.body.columnas, ['serie', 'numero']);
    const member = await t.call(adminA.token, 'GET', `/api/v1/cfeemitido/getConfiguracionExportacionCfe?userId=${lectura.id}&idEmpresa=${A.id}`);
    assert.equal(member.status, 200);
    assert.deepEqual(member.body.columnas, ['numero', 'mntTotal', 'mntExpoyAsim']);
  });

  test('exportarExt: journal CSV with BOM; every entry balances; credit notes reversed; rejected left out', async () => {
    await t.call(adminA.token, 'PUT', '/api/v1/ExportacionContable/cuentas', { idEmpresa: A.id, cuentas: { deudoresPorVentas: '1131' } });
    const res = await raw(lectura.token, 'POST', '/api/v1/ExportacionContable/exportarExt', { idEmpresa: A.id, serie: 'Z', numeroHasta: 30 });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(res.rawPayload.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])));
    const lines = res.body.replace(/^\uFEFF/, '').split('\r\n').filter(Boolean).map((l) => l.split(';'));
    assert.equal(lines[0].join(';'), 'fecha;idCfe;tipoCfe;serie;numero;cuenta;nombreCuenta;debe;haber;moneda;tipoCambio;debeMN;haberMN;documentoReceptor;receptor;concepto');
    const byCfe = new Map<string, string[][]>();
    for (const l of lines.slice(1)) byCfe.set(l[1], [...(byCfe.get(l[1]) ?? []), l]);
    assert.equal(byCfe.size, count((r) => r.g <= 30 && r.estado !== 'rechazado'));
    for (const entry of byCfe.values()) {
      const sum = (i: number) => entry.reduce((a, l) => a + Math.round(Number(l[i]) * 100), 0);
      assert.equal(sum(7), sum(8));
      assert.equal(sum(11), sum(12));
    }
    const nc = [...byCfe.values()].find((e) => e[0][2] === '102' && e[0][4] === '4')!; // g = 4: 102, USD, neto 4.00
    assert.deepEqual(nc.map((l) => [l[5], l[7], l[8], l[11]]), [['1131', '0.00', '4.88', '0.00'], ['4.1.1.01', '4.00', '0.00', '160.00'], ['2.1.4.01', '0.88', '0.00', '35.20']]);
  });

  test('graficaDiaria and graficaFacturacionMensual: zero-filled aligned series equal to SQL counts', async () => {
    const d = await t.call(lectura.token, 'GET', `/api/v1/cfeemitido/graficaDiaria?idEmpresa=${A.id}&desde=2025-12-31&hasta=2026-01-03`);
    assert.equal(d.status, 200, JSON.stringify(d.body));
    assert.deepEqual(d.body.etiquetas, ['2025-12-31', '2026-01-01', '2026-01-02', '2026-01-03']);
    const live = (day: number) => rows.filter((r) => r.day === day && r.estado !== 'rechazado');
    assert.deepEqual(d.body.cantidad, [0, live(0).length, live(1).length, live(2).length]);
    const usd = d.body.porMoneda.find((s: any) => s.moneda === 'USD');
    const expectUsd = live(0).filter((r) => r.moneda === 'USD').reduce((a, r) => a + Math.round(r.total * 100) * (r.tipo === 102 ? -1 : 1), 0);
    assert.equal(usd.monto[1], (expectUsd / 100).toFixed(2));
    assert.deepEqual(d.body.porTipo.map((s: any) => s.tipoCfe), [101, 102, 111]);
    const m = await t.call(lectura.token, 'GET', `/api/v1/cfeemitido/graficaFacturacionMensual?idEmpresa=${A.id}&desde=2025-12&hasta=2026-02`);
    assert.equal(m.status, 200);
    assert.deepEqual(m.body.etiquetas, ['2025-12', '2026-01', '2026-02']);
    assert.deepEqual(m.body.cantidad, [0, count((r) => r.estado !== 'rechazado'), 0]);
    const def = await t.call(lectura.token, 'GET', `/api/v1/cfeemitido/graficaDiaria?idEmpresa=${A.id}`);
    assert.equal(def.body.etiquetas.length, 30);
    assert.equal(def.body.cantidad.at(-1), 1); // today's real e-Ticket
    const defM = await t.call(lectura.token, 'GET', `/api/v1/cfeemitido/graficaFacturacionMensual?idEmpresa=${A.id}`);
    assert.equal(defM.body.etiquetas.length, 12);
  });

  test('OpenAPI: the endpoints are published (no 501 stub) with their parameters and error codes', async () => {
    const doc = (await t.call(undefined, 'GET', '/openapi.json')).body;
    const buscarOp = doc.paths['/api/v1/cfeemitido/buscar'].get;
    for (const p of ['idEmpresa', 'tipoFiltro', 'fechaFirmaDesde', 'fechaFirmaHasta', 'tipoCfe', 'receptorNombre', 'montoDesde', 'orden', 'start', 'length']) {
      assert.ok(buscarOp.parameters.some((x: any) => x.name === p), p);
    }
    assert.match(doc.paths['/api/v1/cfeemitido/exportarExcel'].post.description, /EXPORTACION_DEMASIADO_GRANDE/);
    assert.match(doc.paths['/api/v1/ExportacionContable/exportarExt'].post.description, /separator `;`/);
    for (const path of ['/api/v1/cfeemitido/graficaDiaria', '/api/v1/cfeemitido/graficaFacturacionMensual', '/api/v1/cfeemitido/getConfiguracionExportacionCfe']) assert.ok(doc.paths[path].get, path);
  });
});

describe('errors', () => {
  test('bad filters, ranges, columns and account keys answer 400', async () => {
    for (const qs of ['fechaFirmaDesde=2026-02-01&fechaFirmaHasta=2026-01-01', 'tipoFiltro=otro', 'montoDesde=1,5', 'fechaFirmaDesde=2026-02-30', 'estado=inventado', 'numeroDesde=9&numeroHasta=3', 'length=501']) {
      const r = await buscar(qs);
      assert.equal(r.status, 400, qs);
      assert.equal(r.body.code, 'VALIDACION');
    }
    assert.equal((await t.call(admin, 'GET', `/api/v1/cfeemitido/graficaDiaria?idEmpresa=${A.id}&desde=2026-02-01&hasta=2026-01-01`)).body.code, 'RANGO_FECHAS_INVALIDO');
    assert.equal((await t.call(admin, 'GET', `/api/v1/cfeemitido/graficaFacturacionMensual?idEmpresa=${A.id}&desde=2026-13`)).status, 400);
    assert.equal((await t.call(admin, 'POST', '/api/v1/cfeemitido/configuracionExportacionCfe', { columnas: ['inexistente'] })).status, 400);
    assert.equal((await t.call(admin, 'POST', '/api/v1/cfeemitido/configuracionExportacionCfe', { columnas: ['serie', 'serie'] })).status, 400);
    assert.equal((await t.call(admin, 'PUT', '/api/v1/ExportacionContable/cuentas', { idEmpresa: A.id, cuentas: { otra: '1' } })).status, 400);
    assert.equal((await t.call(admin, 'POST', '/api/v1/cfeemitido/exportarExcel', { idEmpresa: A.id, columnas: ['xml'] })).status, 400);
  });
  test('values beyond what a field stores (year 9999, ids past 32 bits, impossible days) are JSON 400s on every report, also the file ones', async () => {
    const cases: Array<[string, string, unknown?]> = [
      ['GET', `/api/v1/cfeemitido/buscar?idEmpresa=${A.id}&numeroDesde=9007199254740991`],
      ['GET', `/api/v1/cfeemitido/buscar?idEmpresa=${A.id}&fechaFirmaHasta=9999-12-31`],
      ['GET', `/api/v1/cfeemitido/graficaDiaria?idEmpresa=${A.id}&desde=2026-02-30&hasta=2026-03-03`],
      ['GET', `/api/v1/cfeemitido/graficaDiaria?idEmpresa=${A.id}&hasta=9999-12-31`],
      ['GET', `/api/v1/cfeemitido/graficaFacturacionMensual?idEmpresa=${A.id}&desde=0000-01&hasta=0000-12`],
      ['POST', '/api/v1/cfeemitido/exportarExcel', { idEmpresa: A.id, numeroDesde: 9007199254740991 }],
      ['POST', '/api/v1/cfeemitido/descargarPdfsFiltrados', { idEmpresa: A.id, fechaFirmaHasta: '9999-12-31' }],
      ['POST', '/api/v1/ExportacionContable/exportarExt', { idEmpresa: A.id, fechaFirmaHasta: '9999-12-31' }],
    ];
    for (const [method, url, body] of cases) {
      const r = await t.call(admin, method, url, body);
      assert.equal(r.status, 400, `${url} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
      assert.match(String(r.headers['content-type']), /^application\/json/, url);
      assert.equal(r.body.code, 'VALIDACION', url);
    }
  });
});

describe('access', () => {
  const endpoints = () => [
    ['GET', `/api/v1/cfeemitido/buscar?idEmpresa=${A.id}`],
    ['POST', '/api/v1/cfeemitido/exportarExcel', { idEmpresa: A.id }],
    ['POST', '/api/v1/ExportacionContable/exportarExt', { idEmpresa: A.id }],
    ['GET', `/api/v1/ExportacionContable/cuentas?idEmpresa=${A.id}`],
    ['PUT', '/api/v1/ExportacionContable/cuentas', { idEmpresa: A.id, cuentas: {} }],
    ['GET', `/api/v1/cfeemitido/graficaDiaria?idEmpresa=${A.id}`],
    ['GET', `/api/v1/cfeemitido/graficaFacturacionMensual?idEmpresa=${A.id}`],
  ] as Array<[string, string, object?]>;

  test('without a token every endpoint answers 401', async () => {
    for (const [m, url, body] of [...endpoints(), ['GET', '/api/v1/cfeemitido/getConfiguracionExportacionCfe'], ['POST', '/api/v1/cfeemitido/configuracionExportacionCfe', { columnas: ['serie'] }]] as Array<[string, string, object?]>) {
      assert.equal((await t.call(undefined, m, url, body)).status, 401, url);
    }
  });

  test('another company\'s data answers 404 on every endpoint', async () => {
    for (const [m, url, body] of endpoints()) {
      const r = await t.call(onlyB.token, m, url, body);
      assert.equal(r.status, 404, url);
      assert.equal(r.body.code, 'EMPRESA_NO_ENCONTRADA');
    }
  });

  test('lectura reads and exports but cannot change account codes nor see another user\'s configuration', async () => {
    assert.equal((await t.call(lectura.token, 'GET', `/api/v1/ExportacionContable/cuentas?idEmpresa=${A.id}`)).body.cuentas[0].codigo, '1131');
    assert.equal((await t.call(lectura.token, 'PUT', '/api/v1/ExportacionContable/cuentas', { idEmpresa: A.id, cuentas: {} })).status, 403);
    const other = await t.call(lectura.token, 'GET', `/api/v1/cfeemitido/getConfiguracionExportacionCfe?userId=${adminA.id}`);
    assert.equal(other.status, 404);
    assert.equal(other.body.code, 'CONFIGURACION_NO_VISIBLE');
    assert.equal((await t.call(lectura.token, 'POST', '/api/v1/cfeemitido/configuracionExportacionCfe', { userId: adminA.id, columnas: ['serie'] })).status, 404);
    // An administrador of B cannot read A's member through company A, nor at all.
    assert.equal((await t.call(onlyB.token, 'GET', `/api/v1/cfeemitido/getConfiguracionExportacionCfe?userId=${lectura.id}`)).status, 404);
    // The operator reads anyone's.
    assert.equal((await t.call(admin, 'GET', `/api/v1/cfeemitido/getConfiguracionExportacionCfe?userId=${lectura.id}&idEmpresa=${A.id}`)).status, 200);
  });
});
