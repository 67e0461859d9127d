/**
 * DGI's registry of electronic issuers (issue 35 point 1) on a real database against the in-process
 * simulator: the sync job (compressed by default, plain on request, incremental after the first
 * run), and the exchange with receivers using it (a customer the registry lists is an electronic
 * receiver, with the registry's MAIL when it has no emailIntercambio; the flag stays an override).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { validRut } from '../../../test/support/factories.js';
import { createLogger } from '../../platform/logger.js';
import type { DgiSimulator } from '../dgi/dgi.simulator.js';
import { setUpDgiIssuer, simulatorOf, today } from '../dgi-submission/dgi-submission.test-helpers.js';
import { createIssuerRegistryService } from './issuer-registry.service.js';

let t: TestApp;
let admin: string;
let sim: DgiSimulator;
let company: { id: number; rut: string };
const RECEIVER = validRut(7301);
const REGISTRY_MAIL = 'intercambio@receptor-registro.uy';

const entries = async () => (await t.db.execute(sql`select ruc, denominacion, fecha_inicio::text, fecha_fin::text, mail, read_at from dgi_electronic_issuers order by ruc`)).rows as Array<{ ruc: string; denominacion: string; fecha_inicio: string | null; fecha_fin: string | null; mail: string | null }>;
const registryCalls = () => sim.control.submissions().filter((s) => s.service.startsWith('EFACCONSULTARRUCEMISORES'));
const runJob = async () => {
  const handler = t.modules.jobs.find((j) => j.job.name === 'issuerRegistry_sync')!;
  await handler.handle({}, { logger: t.app.log as never, attempt: 1, maxAttempts: 5 });
};

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  ({ company } = await setUpDgiIssuer(t, admin));
  sim = await simulatorOf(t);
  sim.control.registry.set({ RUC: RECEIVER, DENOMINACION: 'RECEPTOR DEL REGISTRO SA', FECHA_INICIO: '2020-01-01', FECHA_FIN_TRANSICION: null, FECHA_FIN: null, MAIL: REGISTRY_MAIL });
});
after(async () => t?.close());

describe('happy path: sync', () => {
  test('the scheduled job downloads the whole registry first (compressed variant), then only changes', async () => {
    assert.ok(t.modules.cron.some((c) => c.includes('issuerRegistry_sync')), 'crontab entry');
    // Never synced: startup queues the sync at once (issue 42 point 7), not at the next :17.
    const queued = async () => ((await t.db.execute(sql`select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'issuerRegistry_sync'`)).rows[0] as { n: number }).n;
    assert.equal(await t.modules.services.issuerRegistry.queueInitialSync(), true);
    assert.equal(await queued(), 1);
    assert.equal(await t.modules.services.issuerRegistry.queueInitialSync(), true);
    assert.equal(await queued(), 1, 'one job, by its key');
    await runJob();
    const first = registryCalls();
    assert.equal(first.length, 1);
    assert.equal(first[0].service, 'EFACCONSULTARRUCEMISORESCOMPRIMIDO');
    assert.equal(first[0].xmlData, '2000-01-01T00:00:00');
    const rows = await entries();
    const dgi = rows.find((r) => r.ruc === '219999830019');
    assert.deepEqual({ ...dgi, read_at: undefined }, { ruc: '219999830019', denominacion: 'DGI-RUC PRUEBA CEDE', fecha_inicio: '2011-10-01', fecha_fin: null, mail: 'cfe.219999830019@example.com.uy', read_at: undefined });
    assert.equal(rows.find((r) => r.ruc === '210094030014')?.fecha_fin, '2024-12-31');
    assert.equal(rows.find((r) => r.ruc === company.rut)?.fecha_inicio, today, 'the company the simulator issued CAEs to is an issuer since then');
    assert.equal(rows.find((r) => r.ruc === RECEIVER)?.mail, REGISTRY_MAIL);

    assert.equal(await t.modules.services.issuerRegistry.queueInitialSync(), false, 'synced once: startup queues nothing');
    // Due again only at the configured hour or after a day: the next hourly run is a no-op.
    await runJob();
    assert.equal(registryCalls().length, 1);
    // A forced run asks for the changes since shortly before the previous run, and applies them.
    sim.control.registry.set({ RUC: '219999820013', DENOMINACION: 'DGI RUC PRUEBA NO CEDE', FECHA_INICIO: '2011-10-01', FECHA_FIN_TRANSICION: null, FECHA_FIN: null, MAIL: 'nuevo@dgi.uy' });
    const outcome = await t.modules.services.issuerRegistry.sync();
    assert.equal(outcome.status, 'ok');
    const second = registryCalls().at(-1)!;
    assert.notEqual(second.xmlData, '2000-01-01T00:00:00');
    assert.ok(outcome.status === 'ok' && outcome.count < rows.length, 'incremental: fewer entries than the full download');
    assert.equal((await entries()).find((r) => r.ruc === '219999820013')?.mail, 'nuevo@dgi.uy');
  });

  test('the plain variant (ISSUER_REGISTRY_COMPRESSED=false) stores the same entries', async () => {
    await t.db.execute(sql`delete from dgi_electronic_issuers`);
    const plain = createIssuerRegistryService({
      db: t.db, logger: createLogger(t.config), settings: { compressed: false },
      signers: async () => [company.id],
      clientFor: async (id) => t.modules.services.lookups.registryClient((await t.modules.services.certificates.signingContextOf(id))!),
    });
    await t.db.execute(sql`update dgi_issuer_registry_sync set changed_since = null`);
    const outcome = await plain.sync();
    assert.equal(registryCalls().at(-1)!.service, 'EFACCONSULTARRUCEMISORES');
    assert.ok(outcome.status === 'ok' && outcome.count >= 10);
    assert.equal((await entries()).find((r) => r.ruc === RECEIVER)?.mail, REGISTRY_MAIL);
  });
});

describe('happy path: the exchange uses the registry', () => {
  test('a customer the registry lists is an electronic receiver and gets the envelope at the registry MAIL', async () => {
    const cust = await t.call(admin, 'POST', '/api/v1/cliente/crear', { idEmpresa: company.id, tipoDocumento: 2, documento: RECEIVER, razonSocial: 'Receptor SA', direccion: 'Calle 1', ciudad: 'Montevideo', email: 'compras@receptor.uy' });
    assert.equal(cust.status, 201, JSON.stringify(cust.body));
    assert.equal(cust.body.emisorElectronico, false, 'not flagged: the registry decides');
    const e = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', {
      idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1',
      cfe: { idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { idCliente: cust.body.id }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '100' }] },
    });
    assert.equal(e.status, 200, JSON.stringify(e.body));
    const w = t.modules.services.dgiSubmissionWorker;
    const env = await w.createEnvelope(company.id);
    if (env) assert.equal(await w.sendEnvelope(env.id), 'recibido');
    const sobre = await t.call(admin, 'POST', '/api/v1/cfeemitido/generarSobreReceptor', { idEmpresa: company.id, idsCfe: [e.body.id], enviarPorCorreo: true });
    assert.equal(sobre.status, 200, JSON.stringify(sobre.body));
    const [row] = (await t.db.execute(sql`select email from receiver_envelopes where company_id = ${company.id} order by id desc limit 1`)).rows as Array<{ email: string }>;
    assert.equal(row.email, REGISTRY_MAIL);

    // The customer's own emailIntercambio wins over the registry.
    await t.call(admin, 'POST', '/api/v1/cliente/editar', { idCliente: cust.body.id, emailIntercambio: 'propio@receptor.uy' });
    let receivers = await t.modules.services.customers.electronicReceivers(t.db, company.id);
    assert.equal(receivers.find((r) => r.id === cust.body.id)?.email, 'propio@receptor.uy');

    // Once the registry says it stopped being an issuer, it is not one any more ...
    await t.db.execute(sql`update dgi_electronic_issuers set fecha_fin = '2020-06-30' where ruc = ${RECEIVER}`);
    receivers = await t.modules.services.customers.electronicReceivers(t.db, company.id);
    assert.equal(receivers.some((r) => r.id === cust.body.id), false);
    // ... unless the customer is flagged (the override).
    await t.call(admin, 'POST', '/api/v1/cliente/editar', { idCliente: cust.body.id, emisorElectronico: true });
    receivers = await t.modules.services.customers.electronicReceivers(t.db, company.id);
    assert.equal(receivers.some((r) => r.id === cust.body.id), true);
  });
});

describe('errors', () => {
  test('without any company certificate the sync records why and asks nothing', async () => {
    const none = createIssuerRegistryService({ db: t.db, logger: createLogger(t.config), settings: { compressed: true }, signers: async () => [], clientFor: async () => undefined });
    const calls = registryCalls().length;
    assert.deepEqual(await none.sync(), { status: 'sin_certificado' });
    assert.equal(registryCalls().length, calls);
    assert.match((await none.syncState())?.lastError ?? '', /certificado/);
  });

  test('a fresh install without any certificate retries the first sync in minutes, not at the next :17', async () => {
    const fresh = await createTestApp();
    try {
      const jobs = async () => (await fresh.db.execute(sql`select j.run_at from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'issuerRegistry_sync'`)).rows as Array<{ run_at: Date }>;
      const handler = fresh.modules.jobs.find((j) => j.job.name === 'issuerRegistry_sync')!;
      await handler.handle({}, { logger: fresh.app.log as never, attempt: 1, maxAttempts: 5 });
      const [next] = await jobs();
      assert.ok(next, 'queued again');
      const inMs = new Date(next.run_at).getTime() - Date.now();
      assert.ok(inMs > 60_000 && inMs <= 5 * 60_000, `retry in ${inMs} ms`);
      assert.match((await fresh.modules.services.issuerRegistry.syncState())?.lastError ?? '', /certificado/);
    } finally {
      await fresh.close();
    }
  });

  test('DGI down: the job fails (to be retried) and the previous copy stays', async () => {
    const before = (await entries()).length;
    sim.control.setDown('503');
    try {
      await assert.rejects(t.modules.services.issuerRegistry.sync());
    } finally {
      sim.control.setDown(false);
    }
    assert.equal((await entries()).length, before);
  });
});
