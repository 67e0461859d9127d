/**
 * DGI's testing set against the in-process simulated DGI (issue 47 point 1): a company set up like a
 * new customer (certificate and CAE from the simulator) runs the set; the stored report is compared
 * with the receipts and the daily report in the database. The real set: 50 of each type
 * (DGI_TESTING_TEST_COUNT lowers it when iterating). The preflight refuses a company that is not
 * ready, issuing nothing; the operator endpoint runs the same as a job.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { setUpDgiIssuer, startRunner, waitFor } from '../dgi-submission/dgi-submission.test-helpers.js';
import type { JobRunner } from '../../platform/jobs/runner.js';
import type { TestingReport } from './dgi-testing.report.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDgiSimulator } from '../dgi/dgi.simulator.js';
import { createTestCa } from '../../platform/crypto/test-ca.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';

const COUNT = Number(process.env.DGI_TESTING_TEST_COUNT ?? 50);
let t: TestApp;
let runner: JobRunner;
let admin: string;

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  runner = await startRunner(t);
  await t.modules.services.dgiSubmissionWaker.start();
});
after(async () => {
  await t.modules.services.dgiSubmissionWaker.stop();
  await runner.stop();
  await t.close();
});

describe('happy path', () => {
  test(`the set (${COUNT} of each of 101, 102, 103, 111, 112, 113) is received by DGI, the daily report processed, the report matches the database`, { timeout: 600_000 }, async () => {
    const { company } = await setUpDgiIssuer(t, admin);
    const lines: string[] = [];
    const run = await t.modules.services.dgiTesting.run(company.id, { cantidad: COUNT, onProgress: (l) => lines.push(l), pollMs: 200 });
    assert.equal(run.estado, 'completado', run.error ?? JSON.stringify(run.reporte));
    const report = run.reporte as TestingReport;
    assert.ok(lines.some((l) => /e-Ticket 101: \d+\/\d+ emitidos/.test(l)), 'progress lines are printed');

    // Every receipt of the run, per type and state, as the database has them.
    const rows = (await t.db.execute(sql`select tipo_cfe as "tipoCfe", estado, count(*)::int as n from issued_cfes where company_id = ${company.id} group by 1, 2`)).rows as Array<{ tipoCfe: number; estado: string; n: number }>;
    const db: Record<string, Record<string, number>> = {};
    for (const r of rows) (db[String(r.tipoCfe)] ??= {})[r.estado] = r.n;
    assert.deepEqual(report.porTipo, db);
    for (const tipo of ['101', '102', '103', '111', '112', '113']) assert.equal(report.porTipo[tipo].aceptado, COUNT, `${tipo}: ${JSON.stringify(report.porTipo[tipo])} ${JSON.stringify(report.rechazos.slice(0, 5))}`);
    assert.deepEqual(report.rechazos, []);

    // The daily report of that day: DGI's answer AR, and it is the one stored.
    const [daily] = (await t.db.execute(sql`select id, estado, ack_estado as "ackEstado", fecha_resumen::text as fecha from daily_reports where company_id = ${company.id}`)).rows as Array<{ id: number; estado: string; ackEstado: string; fecha: string }>;
    assert.equal(daily.ackEstado, 'AR');
    assert.deepEqual({ id: report.reporteDiario!.id, ackEstado: report.reporteDiario!.ackEstado, fecha: report.reporteDiario!.fecha }, { id: Number(daily.id), ackEstado: 'AR', fecha: daily.fecha });
    // Below DGI's 50 per type the requirement is not met, and the report says so per type.
    assert.equal(report.requisitosCumplidos, COUNT >= 50);
    assert.equal(report.declaraciones.length >= 7, true);
    assert.ok(report.declaraciones.some((d) => /e-Tickets en el sitio web/.test(d.declaracion)));
  });
});

describe('errors', () => {
  test('a company without certificate nor CAE is not ready: the preflight names what is missing and nothing is issued', async () => {
    const company = await insertCompany(t);
    const lines: string[] = [];
    const run = await t.modules.services.dgiTesting.run(company.id, { cantidad: 2, onProgress: (l) => lines.push(l) });
    assert.equal(run.estado, 'no_listo');
    const text = lines.join('\n');
    assert.match(text, /✖ certificado: La empresa no tiene certificado activo/);
    assert.match(text, /✖ CAE 101: 0 números disponibles/);
    assert.match(text, /✖ sucursal y domicilio/);
    const [{ n }] = (await t.db.execute(sql`select count(*)::int as n from issued_cfes where company_id = ${company.id}`)).rows as Array<{ n: number }>;
    assert.equal(n, 0);
  });

  test('a rejection is reported with DGI\'s code and the receipt, never corrected', async () => {
    const { company } = await setUpDgiIssuer(t, admin);
    const sim = (await t.modules.services.lookups.simulator())!;
    sim.control.rejectNext({ tipoCFE: 111, nro: 2 }, ['E05']);
    const run = await t.modules.services.dgiTesting.run(company.id, { cantidad: 2, pollMs: 200 });
    const report = run.reporte as TestingReport;
    assert.deepEqual(report.rechazos.map((r) => [r.tipoCfe, r.numero, r.estado, r.codigo]), [[111, 2, 'rechazado', 'E05']]);
    assert.equal(report.porTipo['111'].rechazado, 1);
    // The rejected receipt is reported annulled, so the daily report still adds up for DGI.
    assert.equal(report.reporteDiario?.ackEstado, 'AR', JSON.stringify(report.reporteDiario));
    assert.equal(report.requisitosCumplidos, false);
  });
});

describe('operator endpoint', () => {
  test('POST /api/v1/dgi/testing queues the run as a job; GET follows it to its report (soloVerificar: preflight only)', async () => {
    const { company } = await setUpDgiIssuer(t, admin);
    const started = await t.call(admin, 'POST', '/api/v1/dgi/testing', { idEmpresa: company.id, soloVerificar: true });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    assert.equal(started.body.estado, 'en_curso');
    const again = await t.call(admin, 'POST', '/api/v1/dgi/testing', { idEmpresa: company.id });
    assert.deepEqual([again.status, again.body.code], [409, 'PRUEBA_EN_CURSO']);
    const done = await waitFor('the run to end', async () => {
      const r = await t.call(admin, 'GET', `/api/v1/dgi/testing/${started.body.id}`);
      return r.body.estado !== 'en_curso' && r.body;
    }, 120_000);
    assert.equal(done.estado, 'completado', JSON.stringify(done));
    assert.equal(done.reporte.dryRun, true);
    assert.ok(done.reporte.preflight.checks.every((c: { ok: boolean }) => c.ok));
    const [{ n }] = (await t.db.execute(sql`select count(*)::int as n from issued_cfes where company_id = ${company.id}`)).rows as Array<{ n: number }>;
    assert.equal(n, 0, 'a dry run issues nothing');
    const list = await t.call(admin, 'GET', `/api/v1/dgi/testing?idEmpresa=${company.id}`);
    assert.deepEqual(list.body.map((r: { id: number }) => r.id), [started.body.id]);
  });

  test('access: another company\'s run is not found and it cannot start one; lectura cannot start one', async () => {
    const { company } = await setUpDgiIssuer(t, admin);
    const mine = await t.call(admin, 'POST', '/api/v1/dgi/testing', { idEmpresa: company.id, soloVerificar: true });
    const other = await insertCompany(t);
    await createUser(t, admin, 'lectora@test.uy', [{ idEmpresa: other.id, rol: 'lectura' }, { idEmpresa: company.id, rol: 'lectura' }]);
    await createUser(t, admin, 'ajeno@test.uy', [{ idEmpresa: other.id, rol: 'administrador' }]);
    const lectora = await t.login('lectora@test.uy', 'password-123');
    const ajeno = await t.login('ajeno@test.uy', 'password-123');
    assert.equal((await t.call(ajeno, 'GET', `/api/v1/dgi/testing/${mine.body.id}`)).status, 404);
    assert.equal((await t.call(lectora, 'GET', `/api/v1/dgi/testing/${mine.body.id}`)).status, 200);
    assert.equal((await t.call(lectora, 'POST', '/api/v1/dgi/testing', { idEmpresa: company.id })).status, 403);
    // Another company is invisible: not found, as if it did not exist.
    assert.equal((await t.call(ajeno, 'POST', '/api/v1/dgi/testing', { idEmpresa: company.id })).status, 404);
  });
});

describe('DGI_MODE=real: the dry run', () => {
  test('checks certificate, CAE, addresses and the RUT with DGI\'s RUT service, and sends nothing', { timeout: 120_000 }, async () => {
    // "DGI" here is a standalone simulator at the addresses DGI_MODE=real is given; the certificate's CA is trusted by configuration.
    const dgi = await startDgiSimulator({ port: 0 });
    const ca = createTestCa();
    const anchors = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dgi-real-')), 'ca.pem');
    fs.writeFileSync(anchors, ca.certPem);
    const real = await createTestApp({ DGI_MODE: 'real', DGI_RUT_URL: dgi.urls.rut, DGI_EFACTURA_URL: dgi.urls.efactura, DGI_CONSULTAS_URL: dgi.urls.consultas, CERT_TRUST_ANCHORS: anchors });
    try {
      const token = await real.adminToken();
      const company = await insertCompany(real);
      await setUpIssuer(real.db, real.call, token, company, { ca });
      dgi.control.addRut({ RUT: company.rut, Denominacion: 'EMPRESA REAL SA', NombreFantasia: null, TipoEntidad: '3', DescripcionTipoEntidad: 'SOCIEDAD ANONIMA', EstadoActividad: 'AA', FechaInicioActividad: '2020-01-01', address: null, activities: [] });
      const lines: string[] = [];
      const run = await real.modules.services.dgiTesting.run(company.id, { dryRun: true, onProgress: (l) => lines.push(l) });
      assert.equal(run.estado, 'completado', lines.join('\n'));
      assert.equal(run.destino, 'dgi_testing');
      assert.match(lines.join('\n'), /✔ RUT en DGI: EMPRESA REAL SA, estado AA/);
      const services = dgi.control.submissions().map((x) => x.service);
      assert.ok(services.includes('RUT'), services.join(','));
      assert.ok(!services.includes('EFACRECEPCIONSOBRE') && !services.includes('EFACRECEPCIONREPORTE'), 'nothing sent');
      // A RUT DGI does not know is not ready.
      const unknown = await insertCompany(real);
      await setUpIssuer(real.db, real.call, token, unknown, { ca });
      const refused = await real.modules.services.dgiTesting.run(unknown.id, { dryRun: true, onProgress: (l) => lines.push(l) });
      assert.equal(refused.estado, 'no_listo');
    } finally {
      await real.close();
      await dgi.close();
    }
  });
});
