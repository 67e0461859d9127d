/** Certificate import / assign / list, with certificates from a local test CA generated here. */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import forge from 'node-forge';
import { createTestCa, issueTestCertificate, toPkcs12, type TestCa } from '../../platform/crypto/pki.js';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';

let t: TestApp;
let admin: string;
let ca: TestCa;
let company: { id: number; rut: string };

const p12 = (rut: string, opts: { notBefore?: Date; notAfter?: Date } = {}, password = 'secreto') => {
  const c = issueTestCertificate(ca, { rut, name: 'Empresa de Prueba SA', ...opts });
  return toPkcs12(c.keyPem, c.certPem, password, [ca.certPem]).toString('base64');
};
/**
 * A PKCS#12 holding an EC (P-256) key, as `openssl pkcs12 -export` makes from an EC certificate.
 * node-forge cannot write one (toPkcs12Asn1 wraps RSA keys only), so the PFX is put together here:
 * one SafeContents with the encrypted EC PrivateKeyInfo and the certificate, no MAC.
 */
function ecPkcs12(certPem: string, password: string): Buffer {
  const { asn1, pki, util } = forge;
  const der = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'der', type: 'pkcs8' });
  const seq = (items: forge.asn1.Asn1[]) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, items);
  const oid = (o: string) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(o).getBytes());
  const explicit = (v: forge.asn1.Asn1) => asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [v]);
  const octets = (v: forge.asn1.Asn1) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, asn1.toDer(v).getBytes());
  const keyInfo = asn1.fromDer(util.createBuffer(der.toString('binary')));
  const keyBag = seq([oid(pki.oids.pkcs8ShroudedKeyBag), explicit(pki.encryptPrivateKeyInfo(keyInfo, password, { algorithm: '3des' }))]);
  const certDer = asn1.toDer(pki.certificateToAsn1(pki.certificateFromPem(certPem))).getBytes();
  const certBag = seq([oid(pki.oids.certBag), explicit(seq([oid(pki.oids.x509Certificate), explicit(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, certDer))]))]);
  const contents = seq([seq([oid(pki.oids.data), explicit(octets(seq([keyBag, certBag])))])]);
  const pfx = seq([asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, util.hexToBytes('03')), seq([oid(pki.oids.data), explicit(octets(contents))])]);
  return Buffer.from(asn1.toDer(pfx).getBytes(), 'binary');
}
const importBody = (archivo: string, clave = 'secreto', idEmpresa = company.id) => ({ idEmpresa, clave, archivo });

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  ca = createTestCa();
  company = await insertCompany(t);
});
after(async () => t.close());

describe('happy path', () => {
  test('import (JSON and multipart), list without the key, assign, signing context', async () => {
    const first = await t.call(admin, 'POST', '/api/v1/empresa/importarCertificado', importBody(p12(company.rut)));
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.activo, true);
    assert.match(first.body.sujeto, new RegExp(`serialNumber=RUC${company.rut}`));
    assert.match(first.body.numeroSerie, /^\d+$/);

    const c2 = issueTestCertificate(ca, { rut: company.rut, name: 'Empresa de Prueba SA', notAfter: new Date(Date.now() + 10 * 86_400_000) });
    const boundary = 'XBOUNDARY';
    const file = toPkcs12(c2.keyPem, c2.certPem, 'otra');
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="idEmpresa"\r\n\r\n${company.id}\r\n--${boundary}\r\nContent-Disposition: form-data; name="clave"\r\n\r\notra\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="archivo"; filename="cert.p12"\r\nContent-Type: application/x-pkcs12\r\n\r\n`),
      file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/empresa/importarCertificado', payload, headers: { authorization: `Bearer ${admin}`, 'content-type': `multipart/form-data; boundary=${boundary}` } });
    assert.equal(res.statusCode, 201, res.body);
    const second = res.json();
    assert.equal(second.activo, false);

    const assigned = await t.call(admin, 'POST', '/api/v1/empresa/asignarCertificado', { idEmpresa: company.id, idCertificado: second.id });
    assert.equal(assigned.status, 200);
    assert.equal(assigned.body.activo, true);
    assert.equal(assigned.body.porVencer, true);

    const list = await t.call(admin, 'GET', `/api/v1/empresa/${company.id}/certificados`);
    assert.equal(list.status, 200);
    assert.equal(list.body.length, 2);
    assert.equal(list.body.filter((c: { activo: boolean }) => c.activo).length, 1);
    assert.ok(!JSON.stringify(list.body).includes('PRIVATE'));

    const ctx = await t.modules.services.certificates.getSigningContext(company.id);
    assert.equal(ctx.certificateId, second.id);
    assert.equal(ctx.privateKey.type, 'private');
  });
});

describe('errors', () => {
  test('each import failure has its own code', async () => {
    const cases: Array<[unknown, string]> = [
      [importBody(p12(company.rut), 'equivocada'), 'CERTIFICADO_CLAVE_INCORRECTA'],
      [importBody(Buffer.from('no es un p12').toString('base64')), 'CERTIFICADO_ARCHIVO_INVALIDO'],
      [importBody(p12(company.rut, { notBefore: new Date(Date.now() - 800 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) })), 'CERTIFICADO_NO_VIGENTE'],
      [importBody(p12('219999830019')), 'CERTIFICADO_RUT_DISTINTO'],
    ];
    const a = issueTestCertificate(ca, { rut: company.rut, name: 'A' });
    const b = issueTestCertificate(ca, { rut: company.rut, name: 'B' });
    cases.push([importBody(toPkcs12(a.keyPem, b.certPem, 'secreto').toString('base64')), 'CERTIFICADO_CLAVE_NO_CORRESPONDE']);
    // A key that is there but is not RSA (DGI signs with RSA, BRIEF 3) is not "no key".
    cases.push([importBody(ecPkcs12(a.certPem, 'secreto').toString('base64')), 'CERTIFICADO_CLAVE_NO_RSA']);
    for (const [body, code] of cases) {
      const res = await t.call(admin, 'POST', '/api/v1/empresa/importarCertificado', body);
      assert.equal(res.status, 400, `${code}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, code);
    }
    // A company id beyond integer cannot exist: tenancy answers like any unknown company, without a query.
    const beyond = await t.call(admin, 'POST', '/api/v1/empresa/importarCertificado', importBody(toPkcs12(a.keyPem, a.certPem, 'secreto').toString('base64'), 'secreto', 3_000_000_000));
    assert.equal(beyond.status, 404, JSON.stringify(beyond.body));
    assert.equal(beyond.body.code, 'EMPRESA_NO_ENCONTRADA');
    const none = await t.call(admin, 'POST', '/api/v1/empresa/importarCertificado', { idEmpresa: company.id });
    assert.equal(none.status, 400);
    const noCtx = await insertCompany(t);
    await assert.rejects(t.modules.services.certificates.getSigningContext(noCtx.id), (err: { code?: string }) => err.code === 'EMPRESA_SIN_CERTIFICADO');
  });
});

describe('access', () => {
  test("another company's certificates are invisible", async () => {
    const mine = await insertCompany(t);
    const user = await createUser(t, admin, `cert-${Date.now()}@test.uy`, [{ idEmpresa: mine.id, rol: 'administrador' }]);
    assert.equal((await t.call(user.token, 'GET', `/api/v1/empresa/${company.id}/certificados`)).status, 404);
    assert.equal((await t.call(user.token, 'POST', '/api/v1/empresa/importarCertificado', importBody(p12(company.rut)))).status, 404);
    const foreign = (await t.call(admin, 'GET', `/api/v1/empresa/${company.id}/certificados`)).body[0].id;
    const res = await t.call(user.token, 'POST', '/api/v1/empresa/asignarCertificado', { idEmpresa: mine.id, idCertificado: foreign });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'CERTIFICADO_NO_ENCONTRADO');
  });
});
