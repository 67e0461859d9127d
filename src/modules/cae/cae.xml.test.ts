/** CAE file checks without I/O: signer trust (chain to an anchor), incomplete DA, DGI rules (BRIEF 3, 10). */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { createTestCa, issueTestCertificate } from '../../platform/crypto/test-ca.js';
import { pemToBase64, signEnveloped } from '../dgi/simulator/xmldsig.js';
import { caeRuleProblems } from './cae.rules.js';
import { CORREO_URUGUAYO_CA_PEM } from './cae.trust.js';
import { checkCaeXml } from './cae.xml.js';

const SAMPLES = path.resolve(import.meta.dirname, '../../../test/fixtures/dgi/cae');
const sample = (name: string) => fs.readFileSync(path.join(SAMPLES, name), 'utf8');
const REAL = 'CAE_215071660012_90160134272_e-Factura.xml';
const TODAY = '2026-11-21';
const codes = (xml: string, anchors: string[]) => checkCaeXml(xml, anchors, TODAY).problems.map((p) => p.code);

function signedCae(signer: { keyPem: string; certPem: string }, da = '<ns0:RucE>215071660012</ns0:RucE><ns0:TCFE>111</ns0:TCFE><ns0:Serie>A</ns0:Serie><ns0:DNro>1</ns0:DNro><ns0:HNro>1000</ns0:HNro><ns0:TA>E</ns0:TA><ns0:NA>90260000013</ns0:NA><ns0:FA>2026-11-20</ns0:FA><ns0:FVD>2028-11-20</ns0:FVD>') {
  const unsigned = `<ns0:CAE xmlns:ns0="http://cfe.dgi.gub.uy" version="1.0"><ns0:TmstFrma>2026-11-20T10:00:00-03:00</ns0:TmstFrma><ns0:DA>${da}</ns0:DA></ns0:CAE>`;
  return signEnveloped(unsigned, signer.keyPem, signer.certPem);
}

// An attacker's CA and a certificate with DGI's subject (serialNumber=RUC214844360018).
const evilCa = createTestCa({ name: 'Correo Uruguayo - CA', notBefore: new Date('2025-01-01') });
const forgedDgi = issueTestCertificate(evilCa, { rut: '214844360018', name: 'DIRECCION GENERAL IMPOSITIVA', notBefore: new Date('2026-01-01') });

describe('signer trust', () => {
  test('the real DGI files chain to the built-in Correo Uruguayo CA, and only through it', () => {
    for (const f of fs.readdirSync(SAMPLES)) {
      const xml = sample(f);
      assert.ok(!codes(xml, [CORREO_URUGUAYO_CA_PEM]).includes('CAE_FIRMANTE_NO_CONFIABLE'), f);
      assert.ok(codes(xml, []).includes('CAE_FIRMANTE_NO_CONFIABLE'), f);
    }
  });

  test('a certificate with DGI subject from another CA is not trusted, unless that CA is an anchor (simulator)', () => {
    const xml = signedCae(forgedDgi);
    const check = checkCaeXml(xml, [CORREO_URUGUAYO_CA_PEM], TODAY);
    assert.deepEqual(check.problems.map((p) => p.code), ['CAE_FIRMANTE_NO_CONFIABLE']);
    assert.match(check.problems[0].message, /no encadena/);
    assert.deepEqual(codes(xml, [CORREO_URUGUAYO_CA_PEM, evilCa.certPem]), []);
  });

  test('a self-signed DGI look-alike, an untrusted CA sent as intermediate or a real certificate in a comment do not help', () => {
    const selfCa = createTestCa({ name: 'DIRECCION GENERAL IMPOSITIVA', notBefore: new Date('2025-01-01') });
    const selfSigned = signedCae({ keyPem: selfCa.keyPem, certPem: selfCa.certPem });
    assert.ok(codes(selfSigned, [CORREO_URUGUAYO_CA_PEM]).includes('CAE_FIRMANTE_NO_CONFIABLE'));
    // KeyInfo is outside the signed content: extra certificates can be added without breaking the signature.
    const withIntermediate = signedCae(forgedDgi).replace('</X509Certificate>', `</X509Certificate><X509Certificate>${pemToBase64(evilCa.certPem)}</X509Certificate>`);
    assert.deepEqual(codes(withIntermediate, [CORREO_URUGUAYO_CA_PEM]), ['CAE_FIRMANTE_NO_CONFIABLE']);
    const realB64 = /<X509Certificate>([^<]+)</.exec(sample(REAL))![1];
    const withComment = signedCae(forgedDgi).replace('<ns0:TmstFrma>', `<!-- <X509Certificate>${realB64}</X509Certificate> --><ns0:TmstFrma>`);
    assert.deepEqual(codes(withComment, [CORREO_URUGUAYO_CA_PEM]), ['CAE_FIRMANTE_NO_CONFIABLE']);
  });

  test('a signer whose subject is not DGI is refused even from a trusted CA', () => {
    const ca = createTestCa({ notBefore: new Date('2025-01-01') });
    const company = issueTestCertificate(ca, { rut: '215071660012', name: 'Empresa', notBefore: new Date('2026-01-01') });
    const check = checkCaeXml(signedCae(company), [ca.certPem], TODAY);
    assert.deepEqual(check.problems.map((p) => p.code), ['CAE_FIRMANTE_NO_CONFIABLE']);
    assert.match(check.problems[0].message, /no es DGI/);
  });
});

describe('incomplete files', () => {
  test('a DA without its fields or with a repeated field gives no data (no NaN) and CAE_XML_INVALIDO', () => {
    for (const xml of ['<CAE><DA><RucE>1</RucE></DA></CAE>', '<CAE><DA><RucE>1</RucE><RucE>2</RucE></DA></CAE>', '<CAE><DA/><DA/></CAE>', '<CAE>x</CAE>']) {
      const check = checkCaeXml(xml, [CORREO_URUGUAYO_CA_PEM], TODAY);
      assert.equal(check.data, undefined, xml);
      assert.ok(check.problems.length > 0 && check.problems.every((p) => p.code === 'CAE_XML_INVALIDO'), xml);
    }
    const repeated = checkCaeXml('<CAE><DA><RucE>1</RucE><RucE>2</RucE></DA></CAE>', [], TODAY);
    assert.match(repeated.problems.at(-1)!.message, /RucE, TCFE, Serie, DNro, HNro, NA, FA, FVD/);
  });

  test('an expired CAE is valid with a warning', () => {
    const check = checkCaeXml(sample(REAL), [CORREO_URUGUAYO_CA_PEM], TODAY);
    assert.deepEqual(check.problems, []);
    assert.ok(check.warnings.some((w) => /venció el 2018-08-10/.test(w)));
  });
});

describe('DGI rules (BRIEF 1, 10)', () => {
  const ok = { tipoCfe: 111, dNro: 1, hNro: 1000, fa: '2026-01-31', fvd: '2028-01-31' };
  const rule = (over: Partial<typeof ok>) => caeRuleProblems({ ...ok, ...over }, TODAY).map((p) => p.code);

  test('limits hold at their edges', () => {
    assert.deepEqual(rule({}), []);
    assert.deepEqual(rule({ dNro: 8_999_999, hNro: 9_999_998 }), []); // exactly 1,000,000 numbers
    assert.deepEqual(rule({ fa: TODAY, fvd: '2028-11-21' }), []); // exactly 24 months, authorized today
    assert.deepEqual(rule({ tipoCfe: 182 }), []);
  });

  test('contingency and unknown types, too many numbers, numbers beyond 7 digits, long validity, future FA', () => {
    assert.deepEqual(rule({ tipoCfe: 211 }), ['CAE_TIPO_INVALIDO']);
    assert.deepEqual(rule({ tipoCfe: 999 }), ['CAE_TIPO_INVALIDO']);
    assert.deepEqual(rule({ hNro: 1_000_001 }), ['CAE_RANGO_INVALIDO']);
    assert.deepEqual(rule({ dNro: 9_000_000, hNro: 10_000_000 }), ['CAE_RANGO_INVALIDO']);
    assert.deepEqual(rule({ fvd: '2028-02-01' }), ['CAE_RANGO_INVALIDO']);
    assert.deepEqual(rule({ fa: '2026-11-22', fvd: '2027-11-22' }), ['CAE_RANGO_INVALIDO']);
    assert.deepEqual(rule({ fa: '2026-02-30' }), ['CAE_RANGO_INVALIDO']);
  });
});
