/** Daily report end to end: stored CFEs → signed Reporte (XSD + xmllint) → simulator's EFACRECEPCIONREPORTE → stored ACK. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { verifyXmlSignature } from '../emission/index.js';
import { loadPatchedXsdSet, validateXml } from '../../platform/xml/xsd.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';
import { dayBefore } from './daily-report.source.js';
import { uyToday } from '../../lib/dates.js';

let t: TestApp;
let admin: string;
let company: { id: number; rut: string };
let other: { id: number; rut: string };
let certPem: string;
const today = uyToday();
const yesterday = dayBefore(today);

const line = { indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 2, precioUnitario: '100.00' };
async function emit(tipoCfe: number, extra: Record<string, unknown> = {}) {
  const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', { idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe, fechaEmision: yesterday }, detalles: [line], ...extra } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { id: number; numero: number; serie: string };
}

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  company = await insertCompany(t);
  other = await insertCompany(t);
  ({ certPem } = await setUpIssuer(t.db, t.call, admin, company));
  await setUpIssuer(t.db, t.call, admin, other);
  // Yesterday's activity: 3 e-Tickets (one in USD), one rejected by DGI, one CFC, one voided number.
  const a = await emit(101);
  await emit(101);
  await emit(101, { totales: { tipoMoneda: 'USD', tipoCambio: '40.000' } });
  const rejected = await emit(101);
  await t.db.execute(sql`update issued_cfes set estado = 'rechazado' where id = ${rejected.id}`);
  await t.db.execute(sql`insert into issued_cfe_state_history (issued_cfe_id, company_id, lado, estado_anterior, estado, codigo) values (${rejected.id}, ${company.id}, 'dgi', 'sobre_recibido', 'rechazado', 'E04')`);
  // A transcribed contingency e-Ticket (201): stored like any issued CFE (lead's transcription endpoint).
  await t.db.execute(sql`insert into issued_cfes (company_id, branch_id, emission_point_id, cae_range_id, tipo_cfe, serie, numero, fecha_emision, tmst_firma, firmado_en, moneda, totales, xml, digest_value, codigo_seguridad, url_qr)
    select company_id, branch_id, emission_point_id, cae_range_id, 201, 'XA', 953001, fecha_emision, tmst_firma, firmado_en, moneda, totales, xml, digest_value, codigo_seguridad, url_qr from issued_cfes where id = ${a.id}`);
  await t.db.execute(sql`update issued_cfes set firmado_en = firmado_en - interval '1 day', tmst_firma = ${yesterday} || substring(tmst_firma from 11) where company_id = ${company.id}`);
  const range = (await t.db.execute(sql`select id from cae_ranges where company_id = ${company.id} and tipo_cfe = 101`)).rows[0] as { id: number };
  await t.db.execute(sql`update cae_ranges set next_number = next_number + 1 where id = ${range.id}`);
  await t.modules.services.cae.voidNumber(t.db, { companyId: company.id, caeRangeId: range.id, tipoCfe: 101, serie: 'A', numero: rejected.numero + 1, fecha: yesterday });
});
after(async () => t.close());

describe('happy path', () => {
  test('regenerar builds yesterday\'s report from the stored CFEs, signed, XSD-valid, sent and accepted (AR)', async () => {
    const r = await t.call(admin, 'POST', '/api/v1/reportediario/regenerar', { idEmpresa: company.id, fecha: yesterday });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.estado, 'aceptado', JSON.stringify(r.body));
    assert.equal(r.body.estadoDgi, 'AR');
    assert.equal(r.body.secEnvio, 1);
    assert.equal(r.body.nombreArchivo, `Rep_${company.rut}_${yesterday.replace(/-/g, '')}_01.xml`);
    const tck = r.body.resumen.find((b: { tipoComp: number }) => b.tipoComp === 101);
    assert.deepEqual(tck, { tipoComp: 101, cantDocsUtil: 5, cantDocsAnulados: 2, cantDocsEmi: 3 });
    assert.deepEqual(r.body.resumen.find((b: { tipoComp: number }) => b.tipoComp === 201), { tipoComp: 201, cantCfcEmi: 1 });
    assert.equal(r.body.cantComprobantes, 6);

    const full = await t.call(admin, 'GET', `/api/v1/reportediario/${r.body.id}`);
    assert.equal(full.status, 200);
    assert.match(full.body.ackXml, /ACKRepDiario/);
    const xml = await t.app.inject({ method: 'GET', url: `/api/v1/reportediario/${r.body.id}/xml`, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(xml.statusCode, 200);
    assert.match(xml.headers['content-disposition'] as string, /Rep_/);
    assert.deepEqual(validateXml('Reporte', xml.body), { ok: true });
    assert.equal(verifyXmlSignature(xml.body, { certificate: certPem }).valid, true);
    assert.match(xml.body, /<Rsmn_Tck_Cont><TipoComp>201<\/TipoComp>/);
    assert.match(xml.body, /<RngDocsAnulados><RDA_Item><Serie>A<\/Serie>/);
    assert.match(xml.body, new RegExp(`<FechaResumen>${yesterday}</FechaResumen>`));

    const dir = mkdtempSync(path.join(tmpdir(), 'reporte-'));
    for (const [name, content] of loadPatchedXsdSet()) writeFileSync(path.join(dir, name), content);
    writeFileSync(path.join(dir, 'rep.xml'), xml.body);
    try { execFileSync('which', ['xmllint'], { stdio: 'pipe' }); } catch { assert.fail('xmllint not found: install the Debian package libxml2-utils'); }
    execFileSync('xmllint', ['--noout', '--nonet', '--schema', path.join(dir, 'ReporteDiarioCFE.xsd'), path.join(dir, 'rep.xml')], { stdio: 'pipe' });
  });

  test('a correction resends the complete report with SecEnvio + 1 and DGI accepts it', async () => {
    const r = await t.call(admin, 'POST', '/api/v1/reportediario/regenerar', { idEmpresa: company.id, fecha: yesterday });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.secEnvio, 2);
    assert.equal(r.body.estado, 'aceptado', JSON.stringify(r.body));
    const list = await t.call(admin, 'GET', `/api/v1/reportediario?idEmpresa=${company.id}&fechaDesde=${yesterday}&fechaHasta=${yesterday}`);
    assert.equal(list.status, 200);
    assert.equal(list.body.total, 2);
    assert.deepEqual(list.body.data.map((d: { secEnvio: number }) => d.secEnvio), [2, 1]);
    assert.equal(list.body.data[0].xml, undefined);
  });

  test('the daily task sends yesterday\'s report for every company with a certificate, a zero report when nothing was issued', async () => {
    const result = await t.modules.services.dailyReport.generateYesterday();
    assert.ok(result.skipped.includes(company.id)); // already has yesterday's report
    assert.equal(result.generated.length, 1);
    const [row] = (await t.db.execute(sql`select id, estado, cant_comprobantes from daily_reports where company_id = ${other.id} and fecha_resumen = ${yesterday}`)).rows as Array<{ id: number; estado: string; cant_comprobantes: number }>;
    assert.equal(row.estado, 'pendiente');
    assert.equal(row.cant_comprobantes, 0);
    const job = (await t.db.execute(sql`select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'dailyReport.send' and j.key = ${`daily-report-${row.id}`}`)).rows[0] as { n: number };
    assert.equal(job.n, 1);
    // What the worker does with the queued job:
    const handler = t.modules.jobs.find((j) => j.job.name === 'dailyReport.send')!;
    await handler.handle({ id: Number(row.id) }, { logger: t.app.log as never, attempt: 1, maxAttempts: 12 });
    const sent = await t.call(admin, 'GET', `/api/v1/reportediario/${row.id}`);
    assert.equal(sent.body.estado, 'aceptado', JSON.stringify(sent.body));
    assert.match(sent.body.xml, /<CantComprobantes>0<\/CantComprobantes><\/Caratula><Signature/);
    // Running it again does not duplicate.
    const again = await t.modules.services.dailyReport.generateYesterday();
    assert.ok(!again.generated.length);
  });
});

describe('errors', () => {
  test('today or a future day is refused (R06), unknown report 404, an answered report is not resent', async () => {
    const r = await t.call(admin, 'POST', '/api/v1/reportediario/regenerar', { idEmpresa: company.id, fecha: today });
    assert.equal(r.status, 422);
    assert.equal(r.body.code, 'REPORTE_FECHA_INVALIDA');
    assert.equal((await t.call(admin, 'GET', '/api/v1/reportediario/999999')).body.code, 'REPORTE_NO_ENCONTRADO');
    const [first] = (await t.call(admin, 'GET', `/api/v1/reportediario?idEmpresa=${company.id}`)).body.data;
    const resend = await t.call(admin, 'POST', `/api/v1/reportediario/${first.id}/reenviar`);
    assert.equal(resend.status, 409);
    assert.equal(resend.body.code, 'REPORTE_NO_REENVIABLE');
    const bad = await t.call(admin, 'POST', '/api/v1/reportediario/regenerar', { idEmpresa: company.id, fecha: '2026-13-01x' });
    assert.equal(bad.status, 400);
  });
});

describe('access', () => {
  test('another company\'s reports are invisible; lectura cannot regenerate', async () => {
    const [mine] = (await t.call(admin, 'GET', `/api/v1/reportediario?idEmpresa=${company.id}`)).body.data;
    await createUser(t, admin, 'otro-rep@test.uy', [{ idEmpresa: other.id, rol: 'administrador' }]);
    const token = await t.login('otro-rep@test.uy', 'password-123');
    assert.equal((await t.call(token, 'GET', `/api/v1/reportediario/${mine.id}`)).status, 404);
    assert.equal((await t.call(token, 'GET', `/api/v1/reportediario?idEmpresa=${company.id}`)).status, 404);
    await createUser(t, admin, 'lector-rep@test.uy', [{ idEmpresa: company.id, rol: 'lectura' }]);
    const reader = await t.login('lector-rep@test.uy', 'password-123');
    assert.equal((await t.call(reader, 'GET', `/api/v1/reportediario/${mine.id}`)).status, 200);
    assert.equal((await t.call(reader, 'POST', '/api/v1/reportediario/regenerar', { idEmpresa: company.id, fecha: yesterday })).status, 403);
  });
});
