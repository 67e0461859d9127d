/** Certification paths (chain.ts) with a local PKI, and the shipped Uruguayan anchors (trust-store.ts). */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { checkChain, signingUseProblem } from './chain.ts';
import { createSelfSignedCertificate, createTestCa, issueTestCertificate } from './test-ca.ts';
import { builtInTrustAnchors, loadTrustAnchors, TrustStoreError } from './trust-store.ts';

const x = (pem: string) => new X509Certificate(pem);
const RUT = '210000000012';
const DAY = 86_400_000;

const root = createTestCa({ name: 'Raiz de Prueba', notBefore: new Date(Date.now() - 1000 * DAY) });
const intermediate = createTestCa({ name: 'CA Intermedia de Prueba', issuer: root });
const leaf = issueTestCertificate(intermediate, { rut: RUT, name: 'Empresa SA' });

describe('checkChain', () => {
  test('leaf → intermediate (from the file) → trusted root', () => {
    const r = checkChain(x(leaf.certPem), { anchors: [x(root.certPem)], intermediates: [x(intermediate.certPem)] });
    assert.equal(r.problem, undefined);
    assert.deepEqual(r.path.map((c) => c.subject.split('\n').at(-1)), ['CN=Empresa SA', 'CN=CA Intermedia de Prueba', 'CN=Raiz de Prueba']);
  });

  test('an intermediate in the trust store is an anchor by itself', () => {
    assert.equal(checkChain(x(leaf.certPem), { anchors: [x(intermediate.certPem)] }).problem, undefined);
  });

  test('intermediate missing: ISSUER_MISSING names the absent issuer', () => {
    const r = checkChain(x(leaf.certPem), { anchors: [x(root.certPem)] });
    assert.equal(r.problem?.code, 'ISSUER_MISSING');
    assert.match(r.problem!.detail, /CA Intermedia de Prueba/);
  });

  test('self-signed leaf: SELF_SIGNED; trusted only when pinned as an anchor', () => {
    const self = createSelfSignedCertificate({ rut: RUT, name: 'Autofirmada SA' });
    assert.equal(checkChain(x(self.certPem), { anchors: [x(root.certPem)] }).problem?.code, 'SELF_SIGNED');
    assert.equal(checkChain(x(self.certPem), { anchors: [x(self.certPem)] }).problem, undefined);
  });

  test('a complete chain to a root that is not trusted: UNTRUSTED_ROOT', () => {
    const other = createTestCa({ name: 'Otra Raiz' });
    const r = checkChain(x(leaf.certPem), { anchors: [x(other.certPem)], intermediates: [x(intermediate.certPem), x(root.certPem)] });
    assert.equal(r.problem?.code, 'UNTRUSTED_ROOT');
    assert.match(r.problem!.detail, /Raiz de Prueba/);
  });

  test('an impostor CA with the trusted name: BAD_SIGNATURE', () => {
    const impostor = createTestCa({ name: 'Raiz de Prueba' });
    const forged = issueTestCertificate(impostor, { rut: RUT, name: 'Empresa SA' });
    assert.equal(checkChain(x(forged.certPem), { anchors: [x(root.certPem)] }).problem?.code, 'BAD_SIGNATURE');
  });

  test('expired intermediate: CA_NOT_VALID (the leaf itself is checked by the caller)', () => {
    const old = createTestCa({ name: 'CA Vencida', issuer: root, notBefore: new Date(Date.now() - 800 * DAY), notAfter: new Date(Date.now() - DAY) });
    const fromOld = issueTestCertificate(old, { rut: RUT, name: 'Empresa SA' });
    const r = checkChain(x(fromOld.certPem), { anchors: [x(root.certPem)], intermediates: [x(old.certPem)] });
    assert.equal(r.problem?.code, 'CA_NOT_VALID');
    assert.equal(checkChain(x(fromOld.certPem), { anchors: [x(root.certPem)], intermediates: [x(old.certPem)], at: new Date(Date.now() - 2 * DAY) }).problem, undefined);
  });
});

describe('signingUseProblem', () => {
  test('signing key usage passes; keyEncipherment only or a CA certificate does not', () => {
    assert.equal(signingUseProblem(x(leaf.certPem)), undefined);
    const encipherOnly = issueTestCertificate(root, { rut: RUT, name: 'Cifrado SA', signing: false });
    assert.equal(signingUseProblem(x(encipherOnly.certPem))?.code, 'NOT_FOR_SIGNING');
    assert.equal(signingUseProblem(x(intermediate.certPem))?.code, 'NOT_FOR_SIGNING');
  });
});

describe('built-in Uruguayan trust store (resources/trust/uy)', () => {
  const anchors = builtInTrustAnchors();
  const bySubject = (cn: string) => anchors.find((a) => a.subject.includes(`CN=${cn}`))!;

  test('holds the national root and the accredited CAs, each verified', () => {
    const root = bySubject('Autoridad Certificadora Raíz Nacional de Uruguay');
    assert.equal(root.fingerprint256, '55:33:A0:40:1F:61:2C:68:8E:BC:E5:BF:53:F2:EC:14:A7:34:EB:17:8B:FA:E0:0E:50:E8:5D:AE:67:23:07:8A');
    assert.ok(root.verify(root.publicKey), 'the national root is self-signed');
    for (const cn of ['Autoridad Certificadora del Ministerio del Interior', 'Correo Uruguayo - CA']) {
      const issued = anchors.filter((a) => a.subject.includes(`CN=${cn}`) && a.issuer === root.subject);
      assert.equal(issued.length, 1, cn);
      assert.equal(checkChain(issued[0], { anchors: [root] }).path.length, 2, `${cn} chains to the national root`);
    }
    assert.equal(anchors.length, 4);
  });

  test("DGI's own 2016 sample certificate chains to the 2008 Correo Uruguayo CA at its signing time", () => {
    const sample = fs.readFileSync(new URL('../../modules/dgi/fixtures/Sob_219999830019_Ej_Mod_19072016.xml', import.meta.url), 'latin1');
    const b64 = /<(?:\w+:)?X509Certificate>([^<]+)</.exec(sample)![1];
    const dgi = new X509Certificate(Buffer.from(b64, 'base64'));
    assert.match(dgi.subject, /serialNumber=RUC219999830019/);
    assert.equal(checkChain(dgi, { anchors, at: new Date('2016-07-19T12:00:00Z') }).problem, undefined);
    assert.equal(checkChain(dgi, { anchors: [bySubject('Autoridad Certificadora Raíz Nacional de Uruguay')] }).problem?.code, 'ISSUER_MISSING');
  });
});

describe('loadTrustAnchors', () => {
  test('a folder of PEM and DER files; a bad file or an empty folder is an error naming it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trust-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.pem'), `# comment\n${root.certPem}${intermediate.certPem}`);
      fs.writeFileSync(path.join(dir, 'b.cer'), x(leaf.certPem).raw);
      fs.writeFileSync(path.join(dir, 'notes.txt'), 'ignored');
      assert.equal(loadTrustAnchors(dir).length, 3);
      assert.equal(loadTrustAnchors(path.join(dir, 'b.cer')).length, 1);
      fs.writeFileSync(path.join(dir, 'c.crt'), 'not a certificate');
      assert.throws(() => loadTrustAnchors(dir), (e: Error) => e instanceof TrustStoreError && e.message.includes('c.crt'));
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'trust-'));
      assert.throws(() => loadTrustAnchors(empty), TrustStoreError);
      fs.rmSync(empty, { recursive: true });
      assert.throws(() => loadTrustAnchors(path.join(dir, 'missing.pem')), TrustStoreError);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
