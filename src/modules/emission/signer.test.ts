/**
 * Build + sign every CFE family, then check the result three independent ways: the in-process XSD
 * validator, Debian's xmllint against the (patched) DGI schemas, and xmlsec1. xmllint and xmlsec1
 * are required (packages libxml2-utils, xmlsec1): a missing binary fails the test, never skips it.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { DOMParser } from '@xmldom/xmldom';
import { C14nCanonicalization } from 'xml-crypto';
import { createTestCa, issueTestCertificate, type TestCa, type TestCertificate } from '../../platform/crypto/pki.ts';
import { loadPatchedXsdSet, validateXml } from '../../platform/xml/xsd.ts';
import { buildCfeXml } from './cfe-xml.ts';
import { extractEnvelopeCfes } from './envelope-cfes.ts';
import { SAMPLE_TYPES, sampleCfe } from './sample-cfes.ts';
import { createSigningContext, signCfe, signXmlDocument, verifyXmlSignature, type SigningContext } from './signer.ts';

const FIXTURES = new URL('../../../test/fixtures/dgi/dgi/', import.meta.url);

function requireBinary(name: string, pkg: string): void {
  const probe = spawnSync(name, ['--version'], { encoding: 'utf8' });
  if (probe.error) assert.fail(`${name} is not installed (Debian package ${pkg}); it is required by this test: ${probe.error.message}`);
}

function xmlsecVerify(file: string, args: string[]): { ok: boolean; output: string } {
  const r = spawnSync('xmlsec1', ['--verify', ...args, file], { encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}

describe('CFE build + template signer', () => {
  let dir: string;
  let ca: TestCa;
  let cert: TestCertificate;
  let ctx: SigningContext;
  const signed = new Map<number, { xml: string; digestValue: string; file: string }>();

  before(() => {
    requireBinary('xmllint', 'libxml2-utils');
    requireBinary('xmlsec1', 'xmlsec1');
    dir = mkdtempSync(join(tmpdir(), 'cfe-sign-'));
    ca = createTestCa();
    cert = issueTestCertificate(ca, { rut: '219999830019', name: 'Empresa Demo SA' });
    ctx = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem });
    writeFileSync(join(dir, 'ca.pem'), ca.certPem);
    writeFileSync(join(dir, 'cert.pem'), cert.certPem);
    for (const [name, content] of loadPatchedXsdSet()) writeFileSync(join(dir, name), content);
    for (const tipo of SAMPLE_TYPES) {
      const result = signCfe(sampleCfe(tipo), ctx);
      const file = join(dir, `cfe-${tipo}.xml`);
      writeFileSync(file, result.xml);
      signed.set(tipo, { ...result, file });
    }
  });

  for (const tipo of SAMPLE_TYPES) {
    it(`type ${tipo}: valid against CFEDGI.xsd in-process and signature verifies`, () => {
      const { xml, digestValue } = signed.get(tipo)!;
      assert.deepEqual(validateXml('CFE', xml), { ok: true });
      assert.deepEqual(verifyXmlSignature(xml, { certificate: cert.certPem }), { valid: true, digestValue });
      assert.ok(xml.endsWith('</Signature></CFE>'), 'Signature is the last child of CFE');
    });
  }

  it('every type validates with the xmllint CLI against a patched copy of CFEDGI.xsd', () => {
    const files = SAMPLE_TYPES.map((t) => signed.get(t)!.file);
    const r = spawnSync('xmllint', ['--noout', '--nonet', '--schema', join(dir, 'CFEDGI.xsd'), ...files], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal((r.stderr.match(/ validates$/gm) ?? []).length, files.length, r.stderr);
  });

  it('every type verifies with xmlsec1, resolving X509IssuerSerial to the certificate and chaining to the CA', () => {
    for (const tipo of SAMPLE_TYPES) {
      const r = xmlsecVerify(signed.get(tipo)!.file, ['--untrusted-pem', join(dir, 'cert.pem'), '--trusted-pem', join(dir, 'ca.pem')]);
      assert.ok(r.ok && /^OK$/m.test(r.output), `type ${tipo}: ${r.output}`);
    }
    const r = xmlsecVerify(signed.get(101)!.file, ['--pubkey-cert-pem', join(dir, 'cert.pem'), '--enabled-key-data', 'key-name']);
    assert.ok(r.ok && /^OK$/m.test(r.output), r.output);
  });

  it('one tampered amount makes xmlsec1 and our verifier fail', () => {
    const { xml } = signed.get(111)!;
    const tampered = xml.replace(/<MntPagar>([\d.]+)<\/MntPagar>/, (_, v: string) => `<MntPagar>${(Number(v) + 1).toFixed(2)}</MntPagar>`);
    assert.notEqual(tampered, xml);
    const file = join(dir, 'tampered.xml');
    writeFileSync(file, tampered);
    const r = xmlsecVerify(file, ['--untrusted-pem', join(dir, 'cert.pem'), '--trusted-pem', join(dir, 'ca.pem')]);
    assert.equal(r.ok, false, r.output);
    assert.match(r.output, /SignedInfo References \(ok\/all\): 0\/1/);
    const ours = verifyXmlSignature(tampered, { certificate: cert.certPem });
    assert.equal(ours.valid, false);
    assert.match(ours.reason ?? '', /digest/);
  });

  it('a certificate from another key does not verify', () => {
    const other = issueTestCertificate(ca, { rut: '210000000012', name: 'Otra SA' });
    assert.equal(verifyXmlSignature(signed.get(101)!.xml, { certificate: other.certPem }).valid, false);
  });

  it('safety net: the unsigned XML equals xml-crypto C14nCanonicalization of the same document', () => {
    for (const tipo of SAMPLE_TYPES) {
      const unsigned = buildCfeXml(sampleCfe(tipo));
      const doc = new DOMParser().parseFromString(unsigned, 'text/xml');
      const canonical = new C14nCanonicalization().process(doc.documentElement as unknown as Node, {});
      assert.equal(canonical, unsigned, `type ${tipo}`);
    }
  });

  it('escapes &, <, > and \\r exactly as C14N does', () => {
    const cfe = sampleCfe(111);
    cfe.Receptor = { ...cfe.Receptor, RznSocRecep: 'A & B <c> "d" \'e\'', InfoAdicional: 'línea 1\r\nlínea 2' };
    const unsigned = buildCfeXml(cfe);
    assert.match(unsigned, /<RznSocRecep>A &amp; B &lt;c&gt; "d" 'e'<\/RznSocRecep>/);
    assert.match(unsigned, /línea 1&#xD;\nlínea 2/);
    const doc = new DOMParser().parseFromString(unsigned, 'text/xml');
    assert.equal(new C14nCanonicalization().process(doc.documentElement as unknown as Node, {}), unsigned);
    const result = signCfe(cfe, ctx);
    assert.equal(verifyXmlSignature(result.xml, { certificate: cert.certPem }).valid, true);
    assert.deepEqual(validateXml('CFE', result.xml), { ok: true });
  });

  it('rsa-sha1 compatibility mode signs and verifies, also with xmlsec1', () => {
    const sha1 = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem, hash: 'sha1', includeCertificate: true });
    const result = signCfe(sampleCfe(101), sha1);
    assert.match(result.xml, /xmldsig#rsa-sha1/);
    assert.equal(Buffer.from(result.digestValue, 'base64').length, 20);
    assert.equal(verifyXmlSignature(result.xml).valid, true, 'embedded X509Certificate is used when none is given');
    const file = join(dir, 'sha1.xml');
    writeFileSync(file, result.xml);
    const r = xmlsecVerify(file, ['--trusted-pem', join(dir, 'ca.pem')]);
    assert.ok(r.ok, r.output);
  });

  it('signXmlDocument signs client XML that is not canonical (prefix, whitespace, declaration)', () => {
    const unsigned = buildCfeXml(sampleCfe(111));
    const messy =
      '<?xml version="1.0" encoding="UTF-8"?>\n<!-- client comment -->\n' +
      unsigned
        .replace('<CFE xmlns="http://cfe.dgi.gub.uy" version="1.0">', "<ns0:CFE version='1.0'   xmlns:ns0=\"http://cfe.dgi.gub.uy\" >")
        .replace('</CFE>', '</ns0:CFE>')
        .replace(/<(\/?)(?!ns0:)([A-Za-z_]+)/g, '<$1ns0:$2')
        .replace('<ns0:Detalle>', '\n  <ns0:Detalle>')
        .replace('<ns0:CdgDGISucur>1</ns0:CdgDGISucur>', '<ns0:CdgDGISucur>1</ns0:CdgDGISucur><!-- x -->');
    const result = signXmlDocument(messy, ctx);
    assert.ok(result.xml.startsWith('<ns0:CFE xmlns:ns0="http://cfe.dgi.gub.uy" version="1.0">'));
    assert.deepEqual(verifyXmlSignature(result.xml, { certificate: cert.certPem }), { valid: true, digestValue: result.digestValue });
    assert.deepEqual(validateXml('CFE', result.xml), { ok: true });
    const file = join(dir, 'client.xml');
    writeFileSync(file, result.xml);
    assert.ok(xmlsecVerify(file, ['--untrusted-pem', join(dir, 'cert.pem'), '--trusted-pem', join(dir, 'ca.pem')]).ok);
    assert.throws(() => signXmlDocument(result.xml, ctx), /already signed/);
  });

  it('xmllint itself confirms the template output is already canonical (exc=false, c14n 1.0)', () => {
    const { file, xml } = signed.get(101)!;
    const canon = execFileSync('xmllint', ['--c14n', file]).toString();
    assert.equal(canon, xml);
  });
});

describe('verifyXmlSignature on DGI sample envelopes', () => {
  const envelopes = readdirSync(FIXTURES).filter((f) => f.startsWith('Sob_'));

  it('finds the sample envelopes', () => assert.equal(envelopes.length, 3));

  for (const name of envelopes) {
    it(`every CFE in ${name} verifies standalone with the Caratula certificate`, () => {
      const { certificate, cfes } = extractEnvelopeCfes(readFileSync(new URL(name, FIXTURES), 'latin1'));
      assert.ok(certificate, 'Caratula/X509Certificate present');
      assert.ok(cfes.length > 0);
      for (const cfe of cfes) {
        const r = verifyXmlSignature(cfe, { certificate: Buffer.from(certificate, 'base64') });
        assert.equal(r.valid, true, r.reason);
        assert.equal(Buffer.from(r.digestValue!, 'base64').length, 20, 'DGI samples are rsa-sha1');
      }
    });
  }

  it('reproduces the DigestValue BRIEF 3 recomputed for CFE 1 of the model envelope', () => {
    const { cfes } = extractEnvelopeCfes(readFileSync(new URL('Sob_219999830019_Ej_Mod_19072016.xml', FIXTURES), 'latin1'));
    assert.equal(verifyXmlSignature(cfes[0]).digestValue, 'xpXiLtg0nWejadP44Gm7ArFMk7Y=');
    assert.equal(verifyXmlSignature(cfes[0]).valid, false, 'no certificate in KeyInfo and none given');
  });
});
