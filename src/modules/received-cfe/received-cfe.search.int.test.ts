/**
 * Received CFEs, part 2 (issue 31 points 1, 2, 4) through the HTTP app: search by each filter over
 * rows written straight into received_cfes (company C, for date and state variety), the printed
 * representation and the stock flag over a real received CFE (company A issues to B, B imports A's
 * envelope, as in received-cfe.int.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { decodeQr, pdfPageSize, pdfText, requirePoppler } from '../cfe-documents/cfe-documents.test-helpers.js';
import { setUpDgiIssuer, today } from '../dgi-submission/dgi-submission.test-helpers.js';
import { receivedCfes } from './received-cfe.tables.js';

let t: TestApp;
let admin: string;
let a: { id: number; rut: string };
let b: { id: number; rut: string };
let c: { id: number };
/** A's e-Factura as emitir answered it, and B's received row of it. */
let issued: { id: number; codigoSeguridad: string; urlQr: string; numero: number };
let receivedId: number;
const ids: Record<string, number> = {};

const NORTE = '210000000011';
const SUR = '210000000022';

/** C's mailbox: r1..r5 with distinct dates, states, issuers, amounts (recibido_en in UTC; Uruguay is UTC−3). */
async function seedC() {
  const base = { companyId: c.id, canal: 'importacion' as const, xml: '<CFE/>', moneda: 'UYU' };
  const rows = [
    { k: 'r1', secuencia: 1, rutEmisor: NORTE, razonSocialEmisor: 'Proveedora Norte SA', tipoCfe: 111, serie: 'A', numero: 10, fechaEmision: '2026-03-05', mntTotal: '1000.00', estado: 'pendiente' as const, vencimientoRespuesta: '2026-03-15', recibidoEn: new Date('2026-03-06T02:00:00Z') },
    { k: 'r2', secuencia: 2, rutEmisor: SUR, razonSocialEmisor: 'Distribuidora Sur', tipoCfe: 112, serie: 'B', numero: 20, fechaEmision: '2026-03-10', moneda: 'USD', mntTotal: '250.50', estado: 'aceptado' as const, vencimientoRespuesta: '2026-03-20', decididoEn: new Date('2026-03-12T10:00:00Z'), recibidoEn: new Date('2026-03-11T12:00:00Z') },
    { k: 'r3', secuencia: 3, rutEmisor: NORTE, razonSocialEmisor: 'Proveedora Norte SA', tipoCfe: 111, serie: 'A', numero: 11, fechaEmision: '2026-04-01', mntTotal: '5000.00', estado: 'rechazado' as const, vencimientoRespuesta: '2026-04-10', decididoEn: new Date('2026-04-03T01:00:00Z'), recibidoEn: new Date('2026-04-02T03:00:00Z') },
    { k: 'r4', secuencia: 4, rutEmisor: NORTE, razonSocialEmisor: 'Proveedora Norte SA', tipoCfe: 111, serie: 'A', numero: 10, fechaEmision: '2026-03-05', mntTotal: '1000.00', estado: 'duplicado' as const, recibidoEn: new Date('2026-03-07T12:00:00Z') },
    { k: 'r5', secuencia: 5, estado: 'rechazado_formato' as const, moneda: null, recibidoEn: new Date('2026-05-01T12:00:00Z') },
  ];
  for (const { k, ...r } of rows) {
    const [row] = await t.db.insert(receivedCfes).values({ ...base, ...r }).returning();
    ids[k] = row.id;
  }
}

const keysOf = (rows: Array<{ id: number }>) => rows.map((r) => Object.keys(ids).find((k) => ids[k] === r.id) ?? `#${r.id}`);
async function search(query: string, token = admin) {
  return t.call(token, 'GET', `/api/v1/cferecibido/buscar?idEmpresa=${c.id}&${query}`);
}
async function found(query: string): Promise<string[]> {
  const r = await search(query);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.total, r.body.data.length, 'one page holds them all here');
  return keysOf(r.body.data).sort();
}
async function pdf(token: string, query: string) {
  const r = await t.app.inject({ method: 'GET', url: `/api/v1/cferecibido/representacionImpresa?${query}`, headers: { authorization: `Bearer ${token}` } });
  return { status: r.statusCode, raw: r.rawPayload, headers: r.headers, json: () => r.json() };
}
const stock = (id: number, body: Record<string, unknown>, token = admin) => t.call(token, 'POST', `/api/v1/cferecibido/marcarComoImportadoStock/${id}`, body);

before(async () => {
  requirePoppler();
  t = await createTestApp();
  admin = await t.adminToken();
  ({ company: a } = await setUpDgiIssuer(t, admin));
  ({ company: b } = await setUpDgiIssuer(t, admin));
  c = await insertCompany(t);
  await seedC();
  const cust = await t.call(admin, 'POST', '/api/v1/cliente/crear', { idEmpresa: a.id, tipoDocumento: 2, documento: b.rut, razonSocial: 'Empresa B', direccion: 'Calle 1', ciudad: 'Montevideo', emisorElectronico: true });
  assert.equal(cust.status, 201, JSON.stringify(cust.body));
  const e = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', {
    idEmpresa: a.id, codComercio: 'C1', codTerminal: 'T1',
    cfe: { idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { idCliente: cust.body.id }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba mate', cantidad: 3, precioUnitario: '100' }] },
  });
  assert.equal(e.status, 200, JSON.stringify(e.body));
  issued = e.body;
  const w = t.modules.services.dgiSubmissionWorker;
  const env = await w.createEnvelope(a.id);
  if (env) assert.equal(await w.sendEnvelope(env.id), 'recibido');
  const sobre = await t.app.inject({ method: 'POST', url: '/api/v1/cfeemitido/generarSobreReceptor', payload: { idEmpresa: a.id, idsCfe: [issued.id] }, headers: { authorization: `Bearer ${admin}` } });
  assert.equal(sobre.statusCode, 200, sobre.body);
  const imp = await t.call(admin, 'POST', '/api/v1/cferecibido/importar', { idEmpresa: b.id, xml: sobre.body });
  assert.equal(imp.status, 200, JSON.stringify(imp.body));
  receivedId = imp.body.cfes[0].id;
});
after(async () => t?.close());

describe('happy path: buscar', () => {
  test('tipoFiltro fechaComprobante (default) ranges FchEmis; default sort newest first; exact total with paging', async () => {
    assert.deepEqual(await found('fechaComprobanteDesde=2026-03-01&fechaComprobanteHasta=2026-03-31'), ['r1', 'r2', 'r4']);
    assert.deepEqual(await found('fechaComprobanteDesde=2026-03-06'), ['r2', 'r3']);
    const page1 = await search('length=2');
    assert.equal(page1.body.total, 5);
    assert.equal(page1.body.data.length, 2);
    const page2 = await search('length=2&start=2');
    assert.equal(page2.body.total, 5);
    assert.deepEqual([...keysOf(page1.body.data), ...keysOf(page2.body.data)].filter((k, i, all) => all.indexOf(k) !== i), []);
    const dated = await search('fechaComprobanteDesde=2026-01-01');
    assert.deepEqual(keysOf(dated.body.data), ['r3', 'r2', 'r4', 'r1']);
  });

  test('tipoFiltro fechaRecepcion and fechaDecision use Uruguay days (UTC−3)', async () => {
    // r1 arrived 2026-03-06 02:00Z = 2026-03-05 23:00 in Uruguay; r3 at 2026-04-02 03:00Z = 00:00 Uruguay.
    assert.deepEqual(await found('tipoFiltro=fechaRecepcion&fechaComprobanteDesde=2026-03-05&fechaComprobanteHasta=2026-03-05'), ['r1']);
    assert.deepEqual(await found('tipoFiltro=fechaRecepcion&fechaComprobanteDesde=2026-03-06&fechaComprobanteHasta=2026-03-06'), []);
    assert.deepEqual(await found('tipoFiltro=fechaRecepcion&fechaComprobanteDesde=2026-04-02&fechaComprobanteHasta=2026-04-02'), ['r3']);
    // r3 decided 2026-04-03 01:00Z = 2026-04-02 22:00 in Uruguay.
    assert.deepEqual(await found('tipoFiltro=fechaDecision&fechaComprobanteDesde=2026-04-02&fechaComprobanteHasta=2026-04-02'), ['r3']);
    assert.deepEqual(await found('tipoFiltro=fechaDecision&fechaComprobanteDesde=2026-04-03'), []);
    assert.deepEqual(await found('tipoFiltro=fechaDecision'), ['r2', 'r3']);
  });

  test('each filter: estado, issuer, type, serie and number, amounts, currency, response due, desdeSecuencia', async () => {
    assert.deepEqual(await found('estado=pendiente,aceptado'), ['r1', 'r2']);
    assert.deepEqual(await found('estado=rechazado_formato'), ['r5']);
    assert.deepEqual(await found(`rutEmisor=${NORTE}`), ['r1', 'r3', 'r4']);
    assert.deepEqual(await found('razonSocialEmisor=norte'), ['r1', 'r3', 'r4']);
    assert.deepEqual(await found('razonSocialEmisor=SUR'), ['r2']);
    assert.deepEqual(await found('razonSocialEmisor=%25%25'), []);
    assert.deepEqual(await found('tipoCfe=112'), ['r2']);
    assert.deepEqual(await found('tipoCfe=111&tipoCfe=112&serie=a&numero=11'), ['r3']);
    assert.deepEqual(await found('montoDesde=500&montoHasta=1000'), ['r1', 'r4']);
    assert.deepEqual(await found('moneda=usd'), ['r2']);
    assert.deepEqual(await found('vencimientoRespuestaHasta=2026-03-15'), ['r1']);
    assert.deepEqual(await found('desdeSecuencia=3'), ['r4', 'r5']);
    assert.deepEqual(await found('estado=pendiente&vencimientoRespuestaHasta=2026-12-31&rutEmisor=210000000011'), ['r1']);
  });

  test('sort keys: mntTotal asc, numero, secuencia, razonSocialEmisor', async () => {
    const by = async (q: string) => keysOf((await search(`estado=pendiente,aceptado,rechazado&${q}`)).body.data);
    assert.deepEqual(await by('orden=mntTotal&direccion=asc'), ['r2', 'r1', 'r3']);
    assert.deepEqual(await by('orden=numero&direccion=asc'), ['r1', 'r3', 'r2']);
    assert.deepEqual(await by('orden=secuencia&direccion=desc'), ['r3', 'r2', 'r1']);
    assert.deepEqual(await by('orden=razonSocialEmisor&direccion=asc'), ['r2', 'r1', 'r3']);
    assert.deepEqual(await by('orden=fechaDecision&direccion=asc'), ['r2', 'r3', 'r1']);
  });
});

describe('happy path: printed representation and stock', () => {
  test('representacionImpresa A4 from the received XML: issuer, security code, QR equal to the issuer\'s', async () => {
    const r = await pdf(admin, `idCfe=${receivedId}`);
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/pdf');
    assert.deepEqual((({ w, h }) => [Math.round(w), Math.round(h)])(pdfPageSize(r.raw)), [595, 842]);
    const text = pdfText(r.raw);
    assert.ok(text.includes(a.rut), 'issuer RUC');
    assert.ok(text.includes(issued.codigoSeguridad), 'security code');
    assert.match(text, /Yerba mate/);
    assert.equal(decodeQr(r.raw), issued.urlQr);
    const ticket = await pdf(admin, `idCfe=${receivedId}&formato=ticket80`);
    assert.equal(ticket.status, 200);
    assert.ok(pdfPageSize(ticket.raw).w < 300, '80 mm roll');
    assert.equal(decodeQr(ticket.raw), issued.urlQr);
  });

  test('marcarComoImportadoStock: recorded once, shown on the CFE, a search filter; same referencia again is a no-op', async () => {
    assert.deepEqual((await t.call(admin, 'GET', `/api/v1/cferecibido/buscar?idEmpresa=${b.id}&importadoStock=true`)).body.data, []);
    const r = await stock(receivedId, { idEmpresa: b.id, referencia: 'REM-1001', lineas: [{ nroLinea: 1, cantidad: '2.5' }] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.repetido, false);
    assert.equal(r.body.importadoStock.referencia, 'REM-1001');
    assert.deepEqual(r.body.importadoStock.lineas, [{ nroLinea: 1, cantidad: '2.5' }]);
    const again = await stock(receivedId, { referencia: 'REM-1001' });
    assert.equal(again.status, 200);
    assert.equal(again.body.repetido, true);
    assert.deepEqual(again.body.importadoStock, r.body.importadoStock);
    const detail = await t.call(admin, 'GET', `/api/v1/cferecibido/${receivedId}`);
    assert.equal(detail.body.importadoStock.referencia, 'REM-1001');
    const yes = await t.call(admin, 'GET', `/api/v1/cferecibido/buscar?idEmpresa=${b.id}&importadoStock=true`);
    assert.deepEqual(yes.body.data.map((x: { id: number }) => x.id), [receivedId]);
    assert.equal(yes.body.data[0].importadoStock.referencia, 'REM-1001');
    assert.equal((await t.call(admin, 'GET', `/api/v1/cferecibido/buscar?idEmpresa=${b.id}&importadoStock=false`)).body.total, 0);
    assert.equal((await search('importadoStock=false')).body.total, 5);
  });
});

describe('errors', () => {
  test('buscar: bad enum, inconsistent ranges, bad amount and date are 400', async () => {
    for (const q of ['tipoFiltro=fechaFirma', 'orden=xyz', 'fechaComprobanteDesde=2026-03-10&fechaComprobanteHasta=2026-03-01', 'montoDesde=10&montoHasta=1', 'montoDesde=abc', 'fechaComprobanteDesde=2026-02-30', 'estado=borrado', 'importadoStock=si', 'length=501']) {
      const r = await search(q);
      assert.equal(r.status, 400, `${q}: ${JSON.stringify(r.body)}`);
      assert.ok(r.body.code, q);
    }
    assert.equal((await t.call(admin, 'GET', '/api/v1/cferecibido/buscar')).status, 400);
  });

  test('representacionImpresa: unknown id 404, bad formato 400, a format-rejected document 422', async () => {
    assert.equal((await pdf(admin, 'idCfe=99999999')).status, 404);
    assert.equal((await pdf(admin, `idCfe=${receivedId}&formato=A5`)).status, 400);
    const r = await pdf(admin, `idCfe=${ids.r5}`);
    assert.equal(r.status, 422);
    assert.equal(r.json().code, 'CFE_RECIBIDO_NO_IMPRIMIBLE');
  });

  test('marcarComoImportadoStock: another referencia 409, bad lines 422, strict body 400, not stockable 409, unknown 404', async () => {
    const other = await stock(receivedId, { referencia: 'REM-2002' });
    assert.equal(other.status, 409);
    assert.equal(other.body.code, 'CFE_RECIBIDO_YA_IMPORTADO_STOCK');
    const r1 = ids.r1;
    assert.equal((await stock(r1, { referencia: 'X', lineas: [{ nroLinea: 1, cantidad: '1' }] })).body.code, 'STOCK_LINEA_INVALIDA');
    assert.equal((await stock(r1, { referencia: 'X', otro: 1 })).status, 400);
    assert.equal((await stock(r1, {})).status, 400);
    assert.equal((await stock(r1, { referencia: '   ' })).status, 400);
    assert.equal((await stock(r1, { referencia: 'X', lineas: [{ nroLinea: 1, cantidad: '0' }] })).status, 400);
    const dup = await stock(ids.r4, { referencia: 'X' });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.code, 'CFE_RECIBIDO_NO_IMPORTABLE_STOCK');
    assert.equal((await stock(99999999, { referencia: 'X' })).status, 404);
    // idEmpresa names another company the caller sees: the CFE is not one of its CFEs.
    assert.equal((await stock(r1, { idEmpresa: b.id, referencia: 'X' })).status, 404);
    const ok = await stock(r1, { idEmpresa: c.id, referencia: 'X' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.deepEqual(await found('importadoStock=true'), ['r1']);
  });
});

describe('access', () => {
  test('another company\'s received CFEs are invisible on buscar, representacionImpresa and marcarComoImportadoStock; lectura cannot mark', async () => {
    assert.equal((await search('', '')).status, 401);
    assert.equal((await pdf('', `idCfe=${receivedId}`)).status, 401);
    assert.equal((await stock(ids.r3, { referencia: 'Y' }, '')).status, 401);
    const outsider = await createUser(t, admin, 'rc2-outsider@test.uy', [{ idEmpresa: a.id, rol: 'administrador' }]);
    assert.notEqual((await search('', outsider.token)).status, 200);
    const own = await t.call(outsider.token, 'GET', `/api/v1/cferecibido/buscar?idEmpresa=${a.id}`);
    assert.equal(own.status, 200);
    assert.equal(own.body.total, 0);
    assert.equal((await pdf(outsider.token, `idCfe=${receivedId}`)).status, 404);
    const s = await stock(ids.r3, { referencia: 'Y' }, outsider.token);
    assert.equal(s.status, 404);
    assert.equal(s.body.code, 'CFE_RECIBIDO_NO_ENCONTRADO');
    const reader = await createUser(t, admin, 'rc2-reader@test.uy', [{ idEmpresa: c.id, rol: 'lectura' }]);
    assert.equal((await search('', reader.token)).status, 200);
    assert.equal((await pdf(reader.token, `idCfe=${ids.r5}`)).status, 422);
    assert.equal((await stock(ids.r3, { referencia: 'Y' }, reader.token)).status, 403);
    assert.deepEqual(await found('importadoStock=true'), ['r1']);
  });
});
