/**
 * A new company's first emission through the API alone (issue 27 point 4): each refusal names the
 * endpoint and field that fix it, and doing exactly that leads to the next step, up to an issued CFE.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { createTestCa, issueTestCertificate, toPkcs12 } from '../../platform/crypto/pki.js';
import { addDays, uyToday } from '../../lib/dates.js';

let t: TestApp;
let admin: string;
let company: { id: number; rut: string };

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  company = await insertCompany(t);
});
after(async () => t.close());

describe('errors that say the next step', () => {
  test('branch code, then certificate, then CAE: each message names the endpoint that fixes it', async () => {
    const branch = await t.call(admin, 'POST', '/api/v1/sucursal/crear', { idEmpresa: company.id, codComercio: 'CENTRO', nombre: 'Casa Central' });
    assert.equal(branch.status, 201, JSON.stringify(branch.body));
    assert.equal((await t.call(admin, 'POST', '/api/v1/puntoemision/crear', { idSucursal: branch.body.id, codTerminal: 'CAJA1' })).status, 201);
    const emit = () => t.call(admin, 'POST', '/api/v1/comprobante/emitir', {
      idEmpresa: company.id, codComercio: 'CENTRO', codTerminal: 'CAJA1',
      cfe: { idDoc: { tipoCfe: 101, fechaEmision: uyToday() }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '189.90' }] },
    });

    const noCode = await emit();
    assert.equal(noCode.status, 422);
    assert.equal(noCode.body.code, 'CODIGO_DGI_NO_DEFINIDO');
    for (const hint of ['"CENTRO"', `idSucursal ${branch.body.id}`, 'CodigoCasaDgi', 'POST /api/v1/sucursal/editar', 'CodigoCasaDgiPorDefecto', 'POST /api/v1/empresa/editar']) {
      assert.ok(noCode.body.error.includes(hint), `${hint} in: ${noCode.body.error}`);
    }
    assert.equal((await t.call(admin, 'POST', '/api/v1/sucursal/editar', { idSucursal: branch.body.id, CodigoCasaDgi: 1 })).status, 200);

    const noCertificate = await emit();
    assert.equal(noCertificate.status, 422);
    assert.equal(noCertificate.body.code, 'SIN_CERTIFICADO');
    assert.match(noCertificate.body.error, /POST \/api\/v1\/empresa\/importarCertificado .*\.p12/);
    assert.match(noCertificate.body.error, /POST \/api\/v1\/empresa\/asignarCertificado/);
    const ca = createTestCa();
    const c = issueTestCertificate(ca, { rut: company.rut, name: 'Empresa de Prueba SA' });
    const archivo = toPkcs12(c.keyPem, c.certPem, 'secreto', [ca.certPem]).toString('base64');
    assert.equal((await t.call(admin, 'POST', '/api/v1/empresa/importarCertificado', { idEmpresa: company.id, clave: 'secreto', archivo })).status, 201);

    const noCae = await emit();
    assert.equal(noCae.status, 409);
    assert.equal(noCae.body.code, 'CAE_SIN_NUMEROS');
    assert.match(noCae.body.error, /tipo 101/);
    assert.match(noCae.body.error, /POST \/api\/v1\/cae\/importar \(/);
    assert.match(noCae.body.error, /POST \/api\/v1\/cae\/importar-manual/);
    const manual = { idEmpresa: company.id, tipoCfe: 101, serie: 'A', desde: 1, hasta: 100, numeroCae: '90260000001', fechaAutorizacion: uyToday(), fechaVencimiento: addDays(uyToday(), 365) };
    const cae = await t.call(admin, 'POST', '/api/v1/cae/importar-manual', manual);
    assert.equal(cae.status, 201, JSON.stringify(cae.body));

    const issued = await emit();
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    assert.equal(issued.body.numero, 1);
  });

  test('the catalogue messages (used without a request context) name the same endpoints', async () => {
    await assert.rejects(t.modules.services.certificates.getSigningContext(company.id + 1_000_000), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'EMPRESA_SIN_CERTIFICADO');
      assert.match(err.message, /POST \/api\/v1\/empresa\/importarCertificado/);
      return true;
    });
  });
});
