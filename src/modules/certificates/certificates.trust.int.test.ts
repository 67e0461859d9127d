/**
 * Certificate trust at import (BRIEF 3, issue 27 point 5) through the HTTP app: DGI_MODE=simulator
 * imports an untrusted certificate with `advertencias`, DGI_MODE=real refuses it with a 422 naming why.
 * CERT_TRUST_ANCHORS names a local test root, standing in for an accredited CA added by an operator.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createSelfSignedCertificate, createTestCa, issueTestCertificate, toPkcs12, type TestCa } from '../../platform/crypto/test-ca.js';
import { readCertificate } from '../../platform/crypto/pki.js';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { companyCertificates } from './certificates.tables.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';

const DAY = 86_400_000;
let sim: TestApp;
let real: TestApp;
let simAdmin: string;
let realAdmin: string;
let root: TestCa;
let intermediate: TestCa;
let anchorsDir: string;

const body = (idEmpresa: number, keyPem: string, certPem: string, chain: string[] = []) => ({
  idEmpresa, clave: 'secreto', archivo: toPkcs12(keyPem, certPem, 'secreto', chain).toString('base64'),
});
const importAs = (t: TestApp, token: string, b: unknown) => t.call(token, 'POST', '/api/v1/empresa/importarCertificado', b);

before(async () => {
  root = createTestCa({ name: 'Raiz Acreditada de Prueba', notBefore: new Date(Date.now() - 1000 * DAY) });
  intermediate = createTestCa({ name: 'CA Emisora de Prueba', issuer: root });
  anchorsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cert-anchors-'));
  fs.writeFileSync(path.join(anchorsDir, 'raiz.pem'), root.certPem);
  sim = await createTestApp({ CERT_TRUST_ANCHORS: anchorsDir });
  real = await createTestApp({ DGI_MODE: 'real', CERT_TRUST_ANCHORS: anchorsDir });
  simAdmin = await sim.adminToken();
  realAdmin = await real.adminToken();
});
after(async () => {
  await sim.close();
  await real.close();
  fs.rmSync(anchorsDir, { recursive: true, force: true });
});

describe('happy path', () => {
  test("simulator mode: the simulator's sandbox certificate imports without a warning", async () => {
    const company = await insertCompany(sim);
    const simulator = (await sim.modules.services.lookups.simulator())!;
    const issued = simulator.control.issueCompanyCertificate(company.rut, 'Empresa Sandbox SA');
    const res = await importAs(sim, simAdmin, { idEmpresa: company.id, clave: issued.password, archivo: issued.p12.toString('base64') });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.advertencias, []);
  });

  test('real mode: a chain through the intermediate in the file to a trusted root imports cleanly', async () => {
    const company = await insertCompany(real);
    const leaf = issueTestCertificate(intermediate, { rut: company.rut, name: 'Empresa Real SA' });
    const res = await importAs(real, realAdmin, body(company.id, leaf.keyPem, leaf.certPem, [intermediate.certPem]));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.advertencias, []);
  });

  test('simulator mode: a self-signed certificate is imported with a visible warning, kept on the list', async () => {
    const company = await insertCompany(sim);
    const self = createSelfSignedCertificate({ rut: company.rut, name: 'Autofirmada SA' });
    const res = await importAs(sim, simAdmin, body(company.id, self.keyPem, self.certPem));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.advertencias.map((a: { codigo: string }) => a.codigo), ['CERTIFICADO_AUTOFIRMADO']);
    assert.match(res.body.advertencias[0].mensaje, /E04.*CERT_TRUST_ANCHORS/);
    const list = await sim.call(simAdmin, 'GET', `/api/v1/empresa/${company.id}/certificados`);
    assert.deepEqual(list.body[0].advertencias, res.body.advertencias);
  });
});

describe('errors', () => {
  test('real mode refuses each untrusted certificate with a 422 naming why', async () => {
    const company = await insertCompany(real);
    const self = createSelfSignedCertificate({ rut: company.rut, name: 'Autofirmada SA' });
    const viaIntermediate = issueTestCertificate(intermediate, { rut: company.rut, name: 'Sin Intermedia SA' });
    const stranger = createTestCa({ name: 'CA Desconocida' });
    const fromStranger = issueTestCertificate(stranger, { rut: company.rut, name: 'Desconocida SA' });
    const noSign = issueTestCertificate(root, { rut: company.rut, name: 'Solo Cifrado SA', signing: false });
    const oldCa = createTestCa({ name: 'CA Vencida', issuer: root, notBefore: new Date(Date.now() - 900 * DAY), notAfter: new Date(Date.now() - DAY) });
    const fromOld = issueTestCertificate(oldCa, { rut: company.rut, name: 'CA Vencida SA' });
    const simulator = (await sim.modules.services.lookups.simulator())!;
    const sandbox = simulator.control.issueCompanyCertificate(company.rut, 'Sandbox SA');
    const cases: Array<[unknown, string]> = [
      [body(company.id, self.keyPem, self.certPem), 'CERTIFICADO_AUTOFIRMADO'],
      [body(company.id, viaIntermediate.keyPem, viaIntermediate.certPem), 'CERTIFICADO_CADENA_INCOMPLETA'],
      [body(company.id, fromStranger.keyPem, fromStranger.certPem, [stranger.certPem]), 'CERTIFICADO_CA_NO_CONFIABLE'],
      [body(company.id, noSign.keyPem, noSign.certPem), 'CERTIFICADO_USO_NO_FIRMA'],
      [body(company.id, fromOld.keyPem, fromOld.certPem, [oldCa.certPem]), 'CERTIFICADO_CA_NO_VIGENTE'],
      // The simulator's test CA is trusted in simulator mode only.
      [{ idEmpresa: company.id, clave: sandbox.password, archivo: sandbox.p12.toString('base64') }, 'CERTIFICADO_CA_NO_CONFIABLE'],
    ];
    for (const [b, code] of cases) {
      const res = await importAs(real, realAdmin, b);
      assert.equal(res.status, 422, `${code}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, code);
      assert.ok(res.body.error, 'a message');
    }
    assert.equal((await real.call(realAdmin, 'GET', `/api/v1/empresa/${company.id}/certificados`)).body.length, 0);
  });

  test('real mode: asignarCertificado refuses a certificate imported untrusted (e.g. in simulator mode)', async () => {
    const company = await insertCompany(real);
    const self = createSelfSignedCertificate({ rut: company.rut, name: 'Autofirmada SA' });
    const info = readCertificate(self.certPem);
    const [row] = await real.db.insert(companyCertificates).values({
      companyId: company.id, subject: info.subject, issuer: info.issuer, serialNumber: info.serialNumber, notBefore: info.notBefore, notAfter: info.notAfter,
      fingerprint256: info.fingerprint256, certificatePem: self.certPem, encryptedKey: 'not.used.here',
    }).returning();
    const res = await real.call(realAdmin, 'POST', '/api/v1/empresa/asignarCertificado', { idEmpresa: company.id, idCertificado: row.id });
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.code, 'CERTIFICADO_AUTOFIRMADO');
  });

  test('simulator mode lists every finding: a CA that may not sign is also untrusted', async () => {
    const company = await insertCompany(sim);
    const stranger = createTestCa({ name: 'CA Desconocida' });
    const noSign = issueTestCertificate(stranger, { rut: company.rut, name: 'Solo Cifrado SA', signing: false });
    const res = await importAs(sim, simAdmin, body(company.id, noSign.keyPem, noSign.certPem, [stranger.certPem]));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.advertencias.map((a: { codigo: string }) => a.codigo), ['CERTIFICADO_USO_NO_FIRMA', 'CERTIFICADO_CA_NO_CONFIABLE']);
  });
});

describe('access', () => {
  test("another company's certificate warnings are invisible", async () => {
    const company = await insertCompany(sim);
    const self = createSelfSignedCertificate({ rut: company.rut, name: 'Autofirmada SA' });
    assert.equal((await importAs(sim, simAdmin, body(company.id, self.keyPem, self.certPem))).status, 201);
    const mine = await insertCompany(sim);
    const user = await createUser(sim, simAdmin, `trust-${Date.now()}@test.uy`, [{ idEmpresa: mine.id, rol: 'administrador' }]);
    assert.equal((await sim.call(user.token, 'GET', `/api/v1/empresa/${company.id}/certificados`)).status, 404);
    assert.deepEqual((await sim.call(user.token, 'GET', `/api/v1/empresa/${mine.id}/certificados`)).body, []);
  });
});
