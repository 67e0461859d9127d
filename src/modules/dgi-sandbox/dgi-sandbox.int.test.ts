/**
 * The sandbox of the simulated DGI through the HTTP app (issue 27 point 2): a test certificate and
 * signed CAE files a client gets over HTTP and imports with the ordinary endpoints; importar-manual
 * teaches the simulator its range; none of it exists, or is trusted, in DGI_MODE=real.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertBranch, insertCompany, insertEmissionPoint } from '../../../test/support/factories.js';
import { addDays, uyToday } from '../../lib/dates.js';
import { startDgiSimulator } from '../dgi/dgi.simulator.js';
import { startRunner, waitForState } from '../dgi-submission/dgi-submission.test-helpers.js';

let t: TestApp;
let admin: string;

before(async () => {
  t = await createTestApp({ DGI_WAKE_DEBOUNCE_MS: '0', DGI_RETRY_BASE_MS: '50', DGI_RETRY_MAX_MS: '200' });
  admin = await t.adminToken();
});
after(async () => t.close());

const simulator = async () => (await t.modules.services.lookups.simulator())!.control;

describe('happy path', () => {
  test('certificado: a PKCS#12 for the company RUT that importarCertificado takes as answered', async () => {
    const company = await insertCompany(t, { razonSocial: 'Almacén Sandbox S.A.' });
    const res = await t.call(admin, 'POST', '/api/v1/sandbox/dgi/certificado', { idEmpresa: company.id });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.rut, company.rut);
    assert.match(res.body.sujeto, new RegExp(`serialNumber=RUC${company.rut}`));
    assert.match(res.body.emisor, /Simulador DGI/);
    assert.ok(res.body.clave.length >= 8);
    const imported = await t.call(admin, 'POST', '/api/v1/empresa/importarCertificado', res.body);
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    assert.equal(imported.body.activo, true);
  });

  test('cae: a file in DGI\'s format, signed by the simulated DGI, that validar and importar accept and the simulator knows', async () => {
    const company = await insertCompany(t);
    const res = await t.call(admin, 'POST', '/api/v1/sandbox/dgi/cae', { idEmpresa: company.id, tipoCfe: 111, serie: 'A', desde: 1, hasta: 500 });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(res.body.xml, /^<\?xml[^>]*\?><ns0:CAE xmlns:ns0="http:\/\/cfe\.dgi\.gub\.uy"/);
    assert.match(res.body.xml, /<ds:Signature|<Signature/);
    assert.equal(res.body.fechaVencimiento, addDays(uyToday(), 365));
    const check = await t.call(admin, 'POST', '/api/v1/cae/validar', { idEmpresa: company.id, xml: res.body.xml });
    assert.equal(check.body.valido, true, JSON.stringify(check.body.problemas));
    assert.match(check.body.firmante.subject, /serialNumber=RUC219999830019/);
    const imported = await t.call(admin, 'POST', '/api/v1/cae/importar', res.body);
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    assert.deepEqual([imported.body.numeroCae, imported.body.tipoCfe, imported.body.desde, imported.body.hasta, imported.body.origen], [res.body.numeroCae, 111, 1, 500, 'xml']);
    assert.equal(imported.body.advertencias, undefined);
    const known = (await simulator()).caes().filter((c) => c.rucEmisor === company.rut);
    assert.deepEqual(known.map((c) => [c.tipoCfe, c.serie, c.desde, c.hasta, c.NA]), [['111', 'A', 1, 500, res.body.numeroCae]], 'recorded once');
  });

  test('importar-manual registers the range with the simulated DGI: its receipts are accepted, not E09', async () => {
    const company = await insertCompany(t);
    const branch = await insertBranch(t, company.id);
    const point = await insertEmissionPoint(t, branch);
    const cert = await t.call(admin, 'POST', '/api/v1/sandbox/dgi/certificado', { idEmpresa: company.id });
    const imported = await t.call(admin, 'POST', '/api/v1/empresa/importarCertificado', { ...cert.body, activar: true });
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    const manual = await t.call(admin, 'POST', '/api/v1/cae/importar-manual', { idEmpresa: company.id, tipoCfe: 101, serie: 'M', desde: 1, hasta: 50, numeroCae: '90261234567', fechaAutorizacion: uyToday(), fechaVencimiento: addDays(uyToday(), 200) });
    assert.equal(manual.status, 201, JSON.stringify(manual.body));
    assert.equal(manual.body.advertencias, undefined);
    assert.ok((await simulator()).caes().some((c) => c.rucEmisor === company.rut && c.NA === '90261234567' && c.serie === 'M' && c.hasta === 50));

    const emitted = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', {
      idEmpresa: company.id, codComercio: branch.codComercio, codTerminal: point.codTerminal,
      cfe: { idDoc: { tipoCfe: 101, fechaEmision: uyToday() }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '100' }] },
    });
    assert.equal(emitted.status, 200, JSON.stringify(emitted.body));
    assert.equal(emitted.body.serie, 'M');
    const runner = await startRunner(t);
    await t.modules.services.dgiSubmissionWaker.start();
    try {
      const final = await waitForState(t, admin, emitted.body.id, ['aceptado', 'rechazado', 'sobre_rechazado']);
      assert.equal(final.estado, 'aceptado', JSON.stringify(final.historial));
    } finally {
      await t.modules.services.dgiSubmissionWaker.stop();
      await runner.stop();
    }
  });

  test('the OpenAPI document marks both operations sandbox-only', async () => {
    const doc = (await t.call(undefined, 'GET', '/openapi.json')).body;
    for (const p of ['/api/v1/sandbox/dgi/certificado', '/api/v1/sandbox/dgi/cae']) {
      assert.match(doc.paths[p].post.description, /^SANDBOX ONLY: exists only with DGI_MODE=simulator/, p);
    }
  });
});

describe('errors', () => {
  test('a CAE importar would refuse is not signed: wrong type, too many numbers, inverted range, bad serie', async () => {
    const company = await insertCompany(t);
    const ask = (over: Record<string, unknown>) => t.call(admin, 'POST', '/api/v1/sandbox/dgi/cae', { idEmpresa: company.id, tipoCfe: 101, serie: 'A', desde: 1, hasta: 10, ...over });
    assert.equal((await ask({ tipoCfe: 201 })).body.code, 'CAE_TIPO_INVALIDO');
    assert.equal((await ask({ hasta: 1_000_001 })).body.code, 'CAE_RANGO_INVALIDO');
    assert.equal((await ask({ desde: 20 })).body.code, 'CAE_RANGO_INVALIDO');
    assert.equal((await ask({ fechaVencimiento: addDays(uyToday(), 3 * 365) })).body.code, 'CAE_RANGO_INVALIDO');
    const bad = await ask({ serie: 'a1' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'VALIDACION');
    assert.equal((await simulator()).caes().filter((c) => c.rucEmisor === company.rut).length, 0);
  });

  test('numbers the simulated DGI already authorized for that RUT, type and serie: 409 naming the next free number', async () => {
    const company = await insertCompany(t);
    const first = await t.call(admin, 'POST', '/api/v1/sandbox/dgi/cae', { idEmpresa: company.id, tipoCfe: 101, serie: 'A', desde: 1, hasta: 100 });
    assert.equal(first.status, 201);
    const again = await t.call(admin, 'POST', '/api/v1/sandbox/dgi/cae', { idEmpresa: company.id, tipoCfe: 101, serie: 'A', desde: 100, hasta: 200 });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'SANDBOX_CAE_SUPERPUESTO');
    assert.match(again.body.error, /desde 101/);
    assert.equal((await t.call(admin, 'POST', '/api/v1/sandbox/dgi/cae', { idEmpresa: company.id, tipoCfe: 101, serie: 'B', desde: 1, hasta: 100 })).status, 201);
  });
});

describe('access', () => {
  test('administrador of the company only; another company is invisible; a token is required', async () => {
    const mine = await insertCompany(t);
    const theirs = await insertCompany(t);
    const emisor = await createUser(t, admin, 'emisor-sandbox@test.uy', [{ idEmpresa: mine.id, rol: 'emisor' }]);
    const owner = await createUser(t, admin, 'admin-sandbox@test.uy', [{ idEmpresa: mine.id, rol: 'administrador' }]);
    for (const path of ['/api/v1/sandbox/dgi/certificado', '/api/v1/sandbox/dgi/cae']) {
      // Bodies are strict: the certificate takes only idEmpresa.
      const body = (idEmpresa: number) => (path.endsWith('/cae') ? { idEmpresa, tipoCfe: 101, serie: 'Z', desde: 1, hasta: 10 } : { idEmpresa });
      assert.equal((await t.call(emisor.token, 'POST', path, body(mine.id))).body.code, 'SIN_PERMISO', path);
      assert.equal((await t.call(owner.token, 'POST', path, body(theirs.id))).status, 404, path);
      assert.equal((await t.call(undefined, 'POST', path, body(mine.id))).status, 401, path);
      assert.equal((await t.call(owner.token, 'POST', path, body(mine.id))).status, 201, path);
    }
  });
});

describe('other modes', () => {
  test('DGI_MODE=real: no sandbox routes (404), the simulator\'s CAE signer is not trusted, importar-manual registers nothing', async () => {
    const real = await createTestApp({ DGI_MODE: 'real' });
    const sim = await startDgiSimulator();
    try {
      const token = await real.adminToken();
      const company = await insertCompany(real);
      for (const path of ['/api/v1/sandbox/dgi/certificado', '/api/v1/sandbox/dgi/cae']) {
        const res = await real.call(token, 'POST', path, { idEmpresa: company.id, tipoCfe: 101, serie: 'A', desde: 1, hasta: 10 });
        assert.equal(res.status, 404, path);
        assert.equal(res.body.code, 'RUTA_NO_ENCONTRADA', path);
      }
      const doc = (await real.call(undefined, 'GET', '/openapi.json')).body;
      assert.equal(Object.keys(doc.paths).filter((p) => p.includes('sandbox')).length, 0);
      const { xml } = sim.control.issueCae({ rucEmisor: company.rut, tipoCfe: 101, serie: 'A', desde: 1, hasta: 10, fechaVencimiento: addDays(uyToday(), 100) });
      const imported = await real.call(token, 'POST', '/api/v1/cae/importar', { idEmpresa: company.id, xml });
      assert.equal(imported.status, 400);
      assert.equal(imported.body.code, 'CAE_FIRMANTE_NO_CONFIABLE');
      const manual = await real.call(token, 'POST', '/api/v1/cae/importar-manual', { idEmpresa: company.id, tipoCfe: 101, serie: 'A', desde: 1, hasta: 10, numeroCae: '90260000001', fechaAutorizacion: uyToday(), fechaVencimiento: addDays(uyToday(), 100) });
      assert.equal(manual.status, 201);
      assert.equal(manual.body.advertencias, undefined);
      assert.equal(await real.modules.services.lookups.simulator(), undefined, 'no simulator was started');
    } finally {
      await sim.close();
      await real.close();
    }
  });

  test('NODE_ENV=production in simulator mode: no sandbox routes, the simulator\'s CAE signer is not trusted', async () => {
    const prod = await createTestApp({ NODE_ENV: 'production', MASTER_KEY: 'ab'.repeat(32) });
    try {
      const token = await prod.adminToken();
      const company = await insertCompany(prod);
      assert.equal((await prod.call(token, 'POST', '/api/v1/sandbox/dgi/certificado', { idEmpresa: company.id })).status, 404);
      const sim = (await prod.modules.services.lookups.simulator())!;
      const { xml } = sim.control.issueCae({ rucEmisor: company.rut, tipoCfe: 101, serie: 'A', desde: 1, hasta: 10, fechaVencimiento: addDays(uyToday(), 100) });
      assert.equal((await prod.call(token, 'POST', '/api/v1/cae/importar', { idEmpresa: company.id, xml })).body.code, 'CAE_FIRMANTE_NO_CONFIABLE');
    } finally {
      await prod.close();
    }
  });

  test('an external simulator (DGI_SIMULATOR_URL): no sandbox routes; importar-manual says its receipts will be E09 and what to do', async () => {
    const ext = await createTestApp({ DGI_SIMULATOR_URL: 'http://127.0.0.1:9' });
    try {
      const token = await ext.adminToken();
      const company = await insertCompany(ext);
      assert.equal((await ext.call(token, 'POST', '/api/v1/sandbox/dgi/cae', { idEmpresa: company.id, tipoCfe: 101, serie: 'A', desde: 1, hasta: 10 })).status, 404);
      const manual = await ext.call(token, 'POST', '/api/v1/cae/importar-manual', { idEmpresa: company.id, tipoCfe: 101, serie: 'A', desde: 1, hasta: 10, numeroCae: '90260000002', fechaAutorizacion: uyToday(), fechaVencimiento: addDays(uyToday(), 100) });
      assert.equal(manual.status, 201);
      assert.equal(manual.body.advertencias.length, 1);
      assert.match(manual.body.advertencias[0], /rechazará sus comprobantes con E09/);
      assert.match(manual.body.advertencias[0], /POST \/api\/v1\/sandbox\/dgi\/cae/);
    } finally {
      await ext.close();
    }
  });
});
