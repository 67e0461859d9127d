/**
 * Issue 31 point 3 (exports of received CFE) and the stock event, through the HTTP app: exportarExcel
 * with the filters, the saved column configuration, descargarPdfsFiltrados (PDF + XML per CFE, bound
 * on the count), and CfeRecibido.ImportadoStock raised once by marcarComoImportadoStock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { pdfText, readZip, requirePoppler } from '../cfe-documents/cfe-documents.test-helpers.js';
import { RECEIVED_ZIP_MAX_CFE } from './received-cfe.exports.js';
import { receivedCfes } from './received-cfe.tables.js';
import { issuerAndReceiver, issueToB, type Pair } from './received-cfe.test-setup.js';

let t: TestApp;
let admin: string;
let p: Pair;
let receivedId: number;
let c: { id: number };
const ids: Record<string, number> = {};

async function download(url: string, body: Record<string, unknown>, token = admin) {
  const r = await t.app.inject({ method: 'POST', url, payload: body, headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: r.statusCode, raw: r.rawPayload, headers: r.headers, json: () => r.json() };
}
const excel = (body: Record<string, unknown>, token = admin) => download('/api/v1/cferecibido/exportarExcel', body, token);
const zip = (body: Record<string, unknown>, token = admin) => download('/api/v1/cferecibido/descargarPdfsFiltrados', body, token);
async function sheetOf(raw: Buffer) {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(raw as unknown as ArrayBuffer);
  const sheet = wb.worksheets[0];
  const rows: unknown[][] = [];
  sheet.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
  return { name: sheet.name, rows };
}

before(async () => {
  requirePoppler();
  t = await createTestApp();
  admin = await t.adminToken();
  p = await issuerAndReceiver(t, admin);
  receivedId = (await issueToB(t, admin, p, { toDgi: true, mailed: true })).receivedId!;
  c = await insertCompany(t);
  const base = { companyId: c.id, canal: 'importacion' as const, xml: '<CFE>no firmado</CFE>', moneda: 'UYU' };
  for (const [k, r] of Object.entries({
    r1: { secuencia: 1, rutEmisor: '210000000011', razonSocialEmisor: 'Proveedora Norte SA', tipoCfe: 111, serie: 'A', numero: 10, fechaEmision: '2026-03-05', mntTotal: '1000.50', estado: 'pendiente' as const },
    r2: { secuencia: 2, rutEmisor: '210000000022', razonSocialEmisor: 'Distribuidora Sur', tipoCfe: 112, serie: 'B', numero: 20, fechaEmision: '2026-03-10', moneda: 'USD', mntTotal: '250.00', estado: 'aceptado' as const },
    r3: { secuencia: 3, estado: 'rechazado_formato' as const, moneda: null },
  })) {
    const [row] = await t.db.insert(receivedCfes).values({ ...base, ...r }).returning();
    ids[k] = row.id;
  }
});
after(async () => t?.close());

describe('happy path: exportarExcel and its configuration', () => {
  test('the filtered rows with the chosen columns, money as numbers, x-total-count', async () => {
    const r = await excel({ idEmpresa: c.id, fechaComprobanteDesde: '2026-03-01', fechaComprobanteHasta: '2026-03-31', orden: 'mntTotal', direccion: 'asc', columnas: ['razonSocialEmisor', 'numero', 'mntTotal', 'estado'] });
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /spreadsheetml/);
    assert.equal(r.headers['x-total-count'], '2');
    const { name, rows } = await sheetOf(r.raw);
    assert.equal(name, 'CFE recibidos');
    assert.deepEqual(rows, [['Emisor', 'Número', 'Total', 'Estado'], ['Distribuidora Sur', 20, 250, 'aceptado'], ['Proveedora Norte SA', 10, 1000.5, 'pendiente']]);
    const state = await sheetOf((await excel({ idEmpresa: c.id, estado: ['rechazado_formato'], columnas: ['id', 'estado'] })).raw);
    assert.deepEqual(state.rows, [['Id', 'Estado'], [ids.r3, 'rechazado_formato']]);
  });

  test('configuration: defaults, saved per company and in general, used by exportarExcel', async () => {
    const d = await t.call(admin, 'GET', `/api/v1/cferecibido/getConfiguracionExportacionCfe?idEmpresa=${c.id}`);
    assert.equal(d.status, 200, JSON.stringify(d.body));
    assert.equal(d.body.predeterminada, true);
    assert.ok(d.body.catalogo.some((x: { clave: string }) => x.clave === 'stockReferencia'));
    const general = await t.call(admin, 'POST', '/api/v1/cferecibido/configuracionExportacionCfe', { columnas: ['serie', 'numero'] });
    assert.equal(general.status, 200, JSON.stringify(general.body));
    const scoped = await t.call(admin, 'POST', '/api/v1/cferecibido/configuracionExportacionCfe', { idEmpresa: c.id, columnas: ['rutEmisor', 'mntTotal'] });
    assert.deepEqual(scoped.body.columnas, ['rutEmisor', 'mntTotal']);
    assert.deepEqual((await t.call(admin, 'GET', `/api/v1/cferecibido/getConfiguracionExportacionCfe?idEmpresa=${c.id}`)).body.columnas, ['rutEmisor', 'mntTotal']);
    assert.deepEqual((await t.call(admin, 'GET', `/api/v1/cferecibido/getConfiguracionExportacionCfe?idEmpresa=${p.b.id}`)).body.columnas, ['serie', 'numero']);
    // The issued CFEs' configuration is another one.
    assert.equal((await t.call(admin, 'GET', `/api/v1/cfeemitido/getConfiguracionExportacionCfe?idEmpresa=${c.id}`)).body.predeterminada, true);
    const { rows } = await sheetOf((await excel({ idEmpresa: c.id, estado: ['pendiente'] })).raw);
    assert.deepEqual(rows, [['RUT emisor', 'Total'], ['210000000011', 1000.5]]);
  });
});

describe('happy path: descargarPdfsFiltrados', () => {
  test('a PDF drawn from the received XML and the XML as received; unreadable documents get their XML only', async () => {
    const r = await zip({ idEmpresa: p.b.id });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/zip');
    assert.equal(r.headers['x-total-count'], '1');
    const files = readZip(r.raw);
    const names = [...files.keys()].sort();
    assert.equal(names.length, 2);
    assert.match(names[0], new RegExp(`^pdf/CFE_${p.a.rut}_111_A\\d+\\.pdf$`));
    assert.match(names[1], new RegExp(`^xml/CFE_${p.a.rut}_111_A\\d+\\.xml$`));
    assert.match(pdfText(files.get(names[0])!), /Yerba mate/);
    const stored = (await t.db.select({ xml: receivedCfes.xml }).from(receivedCfes).where(sql`id = ${receivedId}`))[0].xml;
    assert.equal(files.get(names[1])!.toString('utf8'), stored);
    const onlyPdf = readZip((await zip({ idEmpresa: p.b.id, incluirXml: false, formato: 'ticket80' })).raw);
    assert.deepEqual([...onlyPdf.keys()].map((n) => n.slice(0, 4)), ['pdf/']);
    const bad = readZip((await zip({ idEmpresa: c.id, estado: ['rechazado_formato'], incluirXml: false })).raw);
    assert.deepEqual([...bad.keys()], [`xml/CFE_desconocido_0_${ids.r3}_id${ids.r3}.xml`]);
    assert.equal(readZip((await zip({ idEmpresa: c.id, rutEmisor: '219999999999' })).raw).size, 0);
  });
});

describe('happy path: stock event', () => {
  test('marcarComoImportadoStock raises CfeRecibido.ImportadoStock once, not on a repeat', async () => {
    const events = async () => (await t.db.execute(sql`select data from outbox_events where company_id = ${p.b.id} and type = 'CfeRecibido.ImportadoStock'`)).rows as Array<{ data: { id: number; importadoStock: { referencia: string } } }>;
    assert.equal((await events()).length, 0);
    const r = await t.call(admin, 'POST', `/api/v1/cferecibido/marcarComoImportadoStock/${receivedId}`, { referencia: 'REM-7' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((await t.call(admin, 'POST', `/api/v1/cferecibido/marcarComoImportadoStock/${receivedId}`, { referencia: 'REM-7' })).body.repetido, true);
    assert.equal((await t.call(admin, 'POST', `/api/v1/cferecibido/marcarComoImportadoStock/${receivedId}`, { referencia: 'REM-8' })).status, 409);
    const got = await events();
    assert.equal(got.length, 1);
    assert.equal(got[0].data.id, receivedId);
    assert.equal(got[0].data.importadoStock.referencia, 'REM-7');
  });
});

describe('errors', () => {
  test('bad filters and columns 400, before any byte; a ZIP over the limit 422', async () => {
    for (const body of [{ idEmpresa: c.id, montoDesde: '10', montoHasta: '1' }, { idEmpresa: c.id, columnas: ['nope'] }, { idEmpresa: c.id, columnas: ['id', 'id'] }, { idEmpresa: c.id, otro: 1 }, { idEmpresa: c.id, importadoStock: 'true' }]) {
      const r = await excel(body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.ok(r.json().code);
    }
    assert.equal((await zip({ idEmpresa: c.id, formato: 'A5' })).status, 400);
    assert.equal((await t.call(admin, 'POST', '/api/v1/cferecibido/configuracionExportacionCfe', { columnas: [] })).status, 400);
    const d = await insertCompany(t);
    await t.db.execute(sql`insert into received_cfes (company_id, secuencia, canal, xml, estado) select ${d.id}, g, 'importacion', '<CFE/>', 'rechazado_formato' from generate_series(1, ${RECEIVED_ZIP_MAX_CFE + 1}) g`);
    const big = await zip({ idEmpresa: d.id });
    assert.equal(big.status, 422);
    assert.equal(big.json().code, 'EXPORTACION_DEMASIADO_GRANDE');
    assert.equal((await zip({ idEmpresa: d.id, desdeSecuencia: RECEIVED_ZIP_MAX_CFE - 4 })).status, 200);
  });
});

describe('access', () => {
  test('another company\'s received CFE cannot be exported; another user\'s configuration is not visible', async () => {
    assert.equal((await excel({ idEmpresa: c.id }, '')).status, 401);
    const outsider = await createUser(t, admin, 'rc2-exp-outsider@test.uy', [{ idEmpresa: p.a.id, rol: 'administrador' }]);
    assert.equal((await excel({ idEmpresa: p.b.id }, outsider.token)).status, 404);
    assert.equal((await zip({ idEmpresa: p.b.id }, outsider.token)).status, 404);
    const own = await sheetOf((await excel({ idEmpresa: p.a.id }, outsider.token)).raw);
    assert.equal(own.rows.length, 1, 'A received nothing: the header only');
    const reader = await createUser(t, admin, 'rc2-exp-reader@test.uy', [{ idEmpresa: p.b.id, rol: 'lectura' }]);
    assert.equal((await zip({ idEmpresa: p.b.id }, reader.token)).status, 200);
    assert.equal((await t.call(reader.token, 'GET', `/api/v1/cferecibido/getConfiguracionExportacionCfe?userId=${outsider.id}`)).status, 404);
    assert.equal((await t.call(reader.token, 'POST', '/api/v1/cferecibido/configuracionExportacionCfe', { userId: outsider.id, columnas: ['id'] })).status, 404);
    const mine = await t.call(reader.token, 'GET', '/api/v1/cferecibido/getConfiguracionExportacionCfe');
    assert.equal(mine.status, 200);
    assert.equal(mine.body.userId, reader.id);
  });
});
