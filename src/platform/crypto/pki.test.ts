import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  Pkcs12Error,
  certificateToBase64,
  createTestCa,
  issueTestCertificate,
  keyMatchesCertificate,
  loadPkcs12,
  readCertificate,
  toPkcs12,
} from './pki.ts';

describe('pki', () => {
  const ca = createTestCa({ name: 'CFE Test CA' });
  const issued = issueTestCertificate(ca, { rut: '219999830019', name: 'Empresa Demo SA' });
  const other = issueTestCertificate(ca, { rut: '210000000012', name: 'Otra, Empresa' });

  it('issues a certificate whose subject carries serialNumber=RUC<rut>', () => {
    const info = readCertificate(issued.certPem);
    assert.equal(info.subjectSerialNumber, 'RUC219999830019');
    assert.equal(info.rut, '219999830019');
    assert.equal(info.subject, 'CN=Empresa Demo SA, serialNumber=RUC219999830019, O=Empresa Demo SA, C=UY');
    assert.equal(info.issuer, 'CN=CFE Test CA, OU=Testing, O=CFE Test PKI, C=UY');
    assert.match(info.serialNumber, /^\d{30,}$/);
    assert.equal(BigInt(info.serialNumber).toString(16).toUpperCase(), info.serialNumberHex.replace(/^0+/, ''));
    assert.ok(info.notBefore < new Date() && info.notAfter > new Date());
    assert.equal(certificateToBase64(issued.certPem), issued.certDer.toString('base64'));
  });

  it('escapes RFC 2253 special characters', () => {
    assert.match(readCertificate(other.certPem).subject, /^CN=Otra\\, Empresa, /);
  });

  it('packs to PKCS#12 and loads it back, with chain', () => {
    const p12 = toPkcs12(issued.keyPem, issued.certPem, 'secreto', [ca.certPem]);
    const loaded = loadPkcs12(p12, 'secreto');
    assert.ok(keyMatchesCertificate(loaded.privateKeyPem, loaded.certificatePem));
    assert.equal(readCertificate(loaded.certificatePem).serialNumber, readCertificate(issued.certPem).serialNumber);
    assert.deepEqual(loaded.certificateDer, issued.certDer);
    assert.equal(loaded.chainPem.length, 1);
    assert.equal(readCertificate(loaded.chainPem[0]).subject, 'CN=CFE Test CA, OU=Testing, O=CFE Test PKI, C=UY');
  });

  it('tells a wrong password apart from a malformed file', () => {
    const p12 = toPkcs12(issued.keyPem, issued.certPem, 'secreto');
    assert.throws(() => loadPkcs12(p12, 'otra'), (e: unknown) => e instanceof Pkcs12Error && e.code === 'WRONG_PASSWORD');
    assert.throws(
      () => loadPkcs12(Buffer.from('not a p12 file'), 'x'),
      (e: unknown) => e instanceof Pkcs12Error && e.code === 'MALFORMED',
    );
  });

  it('detects a key that does not match the certificate', () => {
    assert.equal(keyMatchesCertificate(other.keyPem, issued.certPem), false);
  });

  it('produces a PKCS#12 that OpenSSL opens and a chain OpenSSL verifies', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pki-'));
    writeFileSync(join(dir, 'c.p12'), toPkcs12(issued.keyPem, issued.certPem, 'secreto'));
    writeFileSync(join(dir, 'ca.pem'), ca.certPem);
    writeFileSync(join(dir, 'leaf.pem'), issued.certPem);
    const out = execFileSync('openssl', ['pkcs12', '-in', join(dir, 'c.p12'), '-passin', 'pass:secreto', '-nokeys']);
    assert.match(out.toString(), /BEGIN CERTIFICATE/);
    const verify = execFileSync('openssl', ['verify', '-CAfile', join(dir, 'ca.pem'), join(dir, 'leaf.pem')]);
    assert.match(verify.toString(), /OK/);
  });
});
