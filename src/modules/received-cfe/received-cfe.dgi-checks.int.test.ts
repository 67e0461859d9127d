/**
 * Issue 31 points 5 and 6 through the HTTP app and the in-process simulated DGI: DGI's QR check of
 * received CFE (background job, result on GET {id}) and the reconciliation of a period against
 * EFACCONSULTARCFERECIBIDOS, each category produced by a scripted case:
 * - faltante_en_buzon: A sends a CFE for B to DGI and never mails it;
 * - no_registrado_en_dgi: A mails B a CFE it never sent to DGI;
 * - diferencia_monto / diferencia_estado: B holds rows DGI was told of otherwise (control.addCfeRecibido).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import ExcelJS from 'exceljs';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser } from '../../../test/support/factories.js';
import { simulatorOf } from '../dgi-submission/dgi-submission.test-helpers.js';
import { receivedCfes } from './received-cfe.tables.js';
import { issuerAndReceiver, issueToB, today, type Pair } from './received-cfe.test-setup.js';

let t: TestApp;
let admin: string;
let p: Pair;
const got: Record<string, { receivedId?: number; numero: number; serie: string; codigoSeguridad?: string }> = {};
const PROVEEDOR = '210000000044';

const job = () => t.modules.jobs.find((j) => j.job.name === 'receivedCfe.qrCheck')!;
const runQrJob = (id: number, attempt = 1, maxAttempts = 5) => job().handle({ id }, { logger: t.app.log as never, attempt, maxAttempts });
const detail = async (id: number) => (await t.call(admin, 'GET', `/api/v1/cferecibido/${id}`)).body;
const conciliar = (body: Record<string, unknown>, token = admin) => t.call(token, 'POST', '/api/v1/cferecibido/conciliar', body);
const scripted = (numero: number, over: Record<string, string> = {}) => ({
  rucEmisor: PROVEEDOR, rucReceptor: p.b.rut, tipoCfe: '111', serie: 'Z', nro: String(numero), fchEmis: today, tmstFirma: `${today}T10:00:00-03:00`,
  moneda: 'UYU', totalNeto: '100.00', totalIva: '22.00', montoTotal: '122.00', totalRetenido: '0.00', montoQr: '122.00', hash: 'aGFzaA==', recibidoEn: `${today}T10:05:00-03:00`, ...over,
});

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  p = await issuerAndReceiver(t, admin);
  const r1 = await issueToB(t, admin, p, { toDgi: true, mailed: true });
  got.ok = { receivedId: r1.receivedId, ...r1.issued };
  const r2 = await issueToB(t, admin, p, { toDgi: true, mailed: false });
  got.neverMailed = r2.issued;
  const r3 = await issueToB(t, admin, p, { toDgi: false, mailed: true });
  got.notAtDgi = { receivedId: r3.receivedId, ...r3.issued };
  // B holds two CFE of another supplier that DGI knows otherwise: another total, and rejected.
  const base = { companyId: p.b.id, canal: 'importacion' as const, xml: '<CFE/>', rutEmisor: PROVEEDOR, razonSocialEmisor: 'Proveedor Z', tipoCfe: 111, serie: 'Z', fechaEmision: today, moneda: 'UYU', estado: 'pendiente' as const, datos: { totales: { MntIVATasaBasica: '22.00', MntTotal: '122.00' } } };
  for (const [k, numero, secuencia, mnt] of [['otherAmount', 1, 901, '150.00'], ['rejectedAtDgi', 2, 902, '122.00']] as const) {
    const [row] = await t.db.insert(receivedCfes).values({ ...base, numero, secuencia, mntTotal: mnt }).returning();
    got[k] = { receivedId: row.id, numero, serie: 'Z' };
  }
  const sim = await simulatorOf(t);
  sim.control.addCfeRecibido(scripted(1));
  sim.control.addCfeRecibido(scripted(2, { estado: 'BE' }));
});
after(async () => t?.close());

describe('happy path: conciliar and exportarConciliacion', () => {
  let id: number;
  test('a month with one CFE never mailed, one DGI lacks, one with another total, one DGI rejected: each listed once', async () => {
    const r = await conciliar({ idEmpresa: p.b.id, desde: today.slice(0, 8) + '01', hasta: today });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    id = r.body.id;
    assert.deepEqual(r.body.conteos, { faltante_en_buzon: 1, no_registrado_en_dgi: 1, diferencia_estado: 1, diferencia_monto: 1 });
    assert.equal(r.body.cantidadDgi, 4);
    assert.equal(r.body.cantidadLocal, 4);
    assert.equal(r.body.consultasDgi, 1);
    const by = (c: string) => r.body.items.find((i: { categoria: string }) => i.categoria === c);
    assert.deepEqual([by('faltante_en_buzon').rutEmisor, by('faltante_en_buzon').numero, by('faltante_en_buzon').idCfeRecibido], [p.a.rut, got.neverMailed.numero, null]);
    assert.equal(by('no_registrado_en_dgi').idCfeRecibido, got.notAtDgi.receivedId);
    // A row missing here carries DGI's date (issue 42 point 6); one DGI lacks has none from DGI.
    assert.match(by('faltante_en_buzon').fechaDgi, /^\d{4}-\d{2}-\d{2}T/);
    assert.equal(by('no_registrado_en_dgi').fechaDgi, null);
    assert.deepEqual(by('diferencia_monto').diferencias, [{ campo: 'montoTotal', local: '150.00', dgi: '122.00' }]);
    assert.deepEqual([by('diferencia_estado').idCfeRecibido, by('diferencia_estado').estadoDgi], [got.rejectedAtDgi.receivedId, 'BE']);
    const again = await t.call(admin, 'GET', `/api/v1/cferecibido/conciliacion/${id}`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.items, r.body.items);
  });

  test('a period over 31 days is split into several DGI calls; rutEmisor narrows to one issuer', async () => {
    const sim = await simulatorOf(t);
    const before = sim.control.submissions().filter((s) => s.service === 'EFACCONSULTARCFERECIBIDOS').length;
    const desde = new Date(Date.parse(`${today}T00:00:00Z`) - 40 * 86_400_000).toISOString().slice(0, 10);
    const r = await conciliar({ idEmpresa: p.b.id, desde, hasta: today, rutEmisor: p.a.rut });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.consultasDgi, 2);
    assert.equal(sim.control.submissions().filter((s) => s.service === 'EFACCONSULTARCFERECIBIDOS').length - before, 2);
    assert.deepEqual(r.body.conteos, { faltante_en_buzon: 1, no_registrado_en_dgi: 1, diferencia_estado: 0, diferencia_monto: 0 });
  });

  test('exportarConciliacion: an xlsx with one row per item', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/cferecibido/exportarConciliacion', payload: { idConciliacion: id, idEmpresa: p.b.id }, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /spreadsheetml/);
    assert.equal(res.headers['x-total-count'], '4');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = wb.worksheets[0];
    assert.equal(sheet.getRow(1).getCell(1).value, 'Categoría');
    assert.equal(sheet.actualRowCount, 5);
    const categories = [2, 3, 4, 5].map((n) => sheet.getRow(n).getCell(1).value).sort();
    assert.deepEqual(categories, ['diferencia_estado', 'diferencia_monto', 'faltante_en_buzon', 'no_registrado_en_dgi']);
  });
});

describe('happy path: consultarQr', () => {
  test('a CFE DGI holds as printed: coincide; one DGI never received: no_encontrado; DGI shows another hash: difiere', async () => {
    const ids = [got.ok.receivedId!, got.notAtDgi.receivedId!];
    // Asked newest first: the answer lists them in the order asked, not in storage order.
    const asked = [...ids].sort((a, b) => b - a);
    const r = await t.call(admin, 'POST', '/api/v1/cferecibido/consultarQr', { idEmpresa: p.b.id, ids: [...asked, 99999999] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { solicitados: asked, noConsultables: [], noEncontrados: [99999999] });
    assert.equal((await detail(ids[0])).consultaQr.resultado, 'pendiente');
    for (const id of ids) await runQrJob(id);
    const ok = (await detail(ids[0])).consultaQr;
    assert.equal(ok.resultado, 'coincide', JSON.stringify(ok));
    assert.equal(ok.dgi.estado, 'AE');
    assert.equal(ok.dgi.hash.slice(0, 6), got.ok.codigoSeguridad);
    assert.equal((await detail(ids[1])).consultaQr.resultado, 'no_encontrado');
    // DGI is told of the same CFE with another hash and amount (say the issuer printed another copy).
    const sim = await simulatorOf(t);
    sim.control.addCfeRecibido(scripted(got.ok.numero, { rucEmisor: p.a.rut, serie: got.ok.serie, montoQr: '999.00', hash: 'b3Rybw==' }));
    await t.call(admin, 'POST', '/api/v1/cferecibido/consultarQr', { idEmpresa: p.b.id, ids: [ids[0]] });
    await runQrJob(ids[0]);
    const diff = (await detail(ids[0])).consultaQr;
    assert.equal(diff.resultado, 'difiere');
    assert.deepEqual(diff.diferencias.map((d: { campo: string }) => d.campo), ['monto', 'hash']);
  });

  test('DGI unreachable: retried by the queue, error_consulta after the last attempt; unreadable rows are noConsultables', async () => {
    const sim = await simulatorOf(t);
    const id = got.notAtDgi.receivedId!;
    await t.call(admin, 'POST', '/api/v1/cferecibido/consultarQr', { idEmpresa: p.b.id, ids: [id] });
    sim.control.setDown(true);
    try {
      await assert.rejects(runQrJob(id, 1, 5));
      assert.equal((await detail(id)).consultaQr.resultado, 'pendiente');
      await runQrJob(id, 5, 5);
    } finally {
      sim.control.setDown(false);
    }
    const q = (await detail(id)).consultaQr;
    assert.equal(q.resultado, 'error_consulta');
    assert.match(q.detalle, /No se pudo consultar a DGI/);
    const [bad] = await t.db.insert(receivedCfes).values({ companyId: p.b.id, canal: 'importacion', xml: 'x', secuencia: 950, estado: 'rechazado_formato' }).returning();
    const r = await t.call(admin, 'POST', '/api/v1/cferecibido/consultarQr', { idEmpresa: p.b.id, ids: [bad.id] });
    assert.deepEqual(r.body, { solicitados: [], noConsultables: [bad.id], noEncontrados: [] });
  });
});

describe('errors', () => {
  test('conciliar: bad periods 400, strict body 400, DGI down 503 and nothing stored', async () => {
    for (const body of [{ desde: today, hasta: '2020-01-01' }, { desde: '2020-01-01', hasta: '2021-06-01' }, { desde: '2010-01-01', hasta: '2010-01-05' }]) {
      const r = await conciliar({ idEmpresa: p.b.id, ...body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.code, 'PERIODO_CONCILIACION_INVALIDO');
    }
    assert.equal((await conciliar({ idEmpresa: p.b.id, desde: today, hasta: today, extra: 1 })).status, 400);
    assert.equal((await conciliar({ idEmpresa: p.b.id, desde: 'hoy', hasta: today })).status, 400);
    const sim = await simulatorOf(t);
    const count = async () => Number(((await t.db.execute('select count(*) as n from received_reconciliations' as never)) as { rows: Array<{ n: string }> }).rows[0].n);
    const n = await count();
    sim.control.setDown(true);
    try {
      const r = await conciliar({ idEmpresa: p.b.id, desde: today, hasta: today });
      assert.equal(r.status, 503);
      assert.equal(r.body.code, 'CONCILIACION_DGI_NO_DISPONIBLE');
    } finally {
      sim.control.setDown(false);
    }
    assert.equal(await count(), n);
  });

  test('consultarQr and exportarConciliacion: unknown ids 404, strict bodies 400', async () => {
    const r = await t.call(admin, 'POST', '/api/v1/cferecibido/consultarQr', { idEmpresa: p.b.id, ids: [99999999] });
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'CONSULTA_QR_SIN_CFE');
    assert.equal((await t.call(admin, 'POST', '/api/v1/cferecibido/consultarQr', { idEmpresa: p.b.id, ids: [] })).status, 400);
    const e = await t.call(admin, 'POST', '/api/v1/cferecibido/exportarConciliacion', { idConciliacion: 99999999 });
    assert.equal(e.status, 404);
    assert.equal(e.body.code, 'CONCILIACION_NO_ENCONTRADA');
    assert.equal((await t.call(admin, 'GET', '/api/v1/cferecibido/conciliacion/99999999')).status, 404);
  });
});

describe('access', () => {
  test('another company\'s received CFE and reconciliations are invisible; lectura may check QR but not reconcile', async () => {
    const mine = await conciliar({ idEmpresa: p.b.id, desde: today, hasta: today });
    assert.equal(mine.status, 200);
    const outsider = await createUser(t, admin, 'rc2-dgi-outsider@test.uy', [{ idEmpresa: p.a.id, rol: 'administrador' }]);
    assert.equal((await conciliar({ idEmpresa: p.b.id, desde: today, hasta: today }, outsider.token)).status, 404);
    assert.equal((await t.call(outsider.token, 'GET', `/api/v1/cferecibido/conciliacion/${mine.body.id}`)).status, 404);
    assert.equal((await t.call(outsider.token, 'POST', '/api/v1/cferecibido/exportarConciliacion', { idConciliacion: mine.body.id })).status, 404);
    assert.equal((await t.call(outsider.token, 'POST', '/api/v1/cferecibido/exportarConciliacion', { idConciliacion: mine.body.id, idEmpresa: p.a.id })).status, 404);
    // B's received CFE named with A's idEmpresa are simply not A's.
    const qr = await t.call(outsider.token, 'POST', '/api/v1/cferecibido/consultarQr', { idEmpresa: p.a.id, ids: [got.ok.receivedId] });
    assert.equal(qr.status, 404);
    assert.equal((await t.call(outsider.token, 'POST', '/api/v1/cferecibido/consultarQr', { idEmpresa: p.b.id, ids: [got.ok.receivedId] })).status, 404);
    const reader = await createUser(t, admin, 'rc2-dgi-reader@test.uy', [{ idEmpresa: p.b.id, rol: 'lectura' }]);
    assert.equal((await conciliar({ idEmpresa: p.b.id, desde: today, hasta: today }, reader.token)).status, 403);
    assert.equal((await t.call(reader.token, 'GET', `/api/v1/cferecibido/conciliacion/${mine.body.id}`)).status, 200);
    assert.equal((await t.call(reader.token, 'POST', '/api/v1/cferecibido/consultarQr', { idEmpresa: p.b.id, ids: [got.ok.receivedId] })).status, 200);
    assert.equal((await conciliar({ idEmpresa: p.b.id, desde: today, hasta: today }, '')).status, 401);
  });
});
