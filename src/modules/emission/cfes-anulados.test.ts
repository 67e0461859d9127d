/**
 * CFEs_Anulados_x_RechazoDGI (BRIEF 8): canonical, signed with the CFE profile (certificate in
 * KeyInfo so the receiver can verify it standalone), valid in-process and with the xmllint CLI,
 * verified by xmlsec1 and by our own verifier. xmllint and xmlsec1 are required, never skipped.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { DOMParser } from '@xmldom/xmldom';
import { C14nCanonicalization } from 'xml-crypto';
import { createTestCa, issueTestCertificate, type TestCertificate } from '../../platform/crypto/pki.ts';
import { loadPatchedXsdSet, validateXml } from '../../platform/xml/xsd.ts';
import { CfeXmlError } from './cfe-xml.ts';
import { buildCfesAnulados, cfesAnuladosFileName, signCfesAnulados, type CfesAnuladosInput } from './cfes-anulados.ts';
import { createSigningContext, verifyXmlSignature, type SigningContext } from './signer.ts';

const RUC = '219999830019';
const input = (n = 2, extra: Partial<CfesAnuladosInput> = {}): CfesAnuladosInput => ({
  rucEmisor: RUC, rucReceptor: '214844360018', idComunicacion: 42, tmst: '2026-07-08T23:30:00-03:00',
  cfes: Array.from({ length: n }, (_, i) => ({ tipoCfe: i % 2 ? 112 : 111, serie: 'A', nro: 1000 + i, fechaCfe: '2026-07-07' })),
  ...extra,
});

describe('CFEs_Anulados_x_RechazoDGI builder', () => {
  let dir: string;
  let cert: TestCertificate;
  let ctx: SigningContext;

  before(() => {
    for (const [bin, pkg] of [['xmllint', 'libxml2-utils'], ['xmlsec1', 'xmlsec1']]) {
      const probe = spawnSync(bin, ['--version'], { encoding: 'utf8' });
      if (probe.error) assert.fail(`${bin} is not installed (Debian package ${pkg}): ${probe.error.message}`);
    }
    dir = mkdtempSync(join(tmpdir(), 'cfes-anulados-'));
    const ca = createTestCa();
    cert = issueTestCertificate(ca, { rut: RUC, name: 'Empresa Demo SA' });
    ctx = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem, includeCertificate: true });
    writeFileSync(join(dir, 'ca.pem'), ca.certPem);
    writeFileSync(join(dir, 'cert.pem'), cert.certPem);
    for (const [name, content] of loadPatchedXsdSet()) writeFileSync(join(dir, name), content);
  });

  const xmlsec = (file: string) => spawnSync('xmlsec1', ['--verify', '--trusted-pem', join(dir, 'ca.pem'), file], { encoding: 'utf8' });

  for (const [name, n, extra] of [['one CFE', 1, {}], ['250 CFEs', 250, {}], ['no IDComunicacion', 3, { idComunicacion: undefined }]] as const) {
    it(`${name}: canonical, valid in-process and with xmllint, verified by xmlsec1 and our verifier`, () => {
      const unsigned = buildCfesAnulados(input(n, extra));
      const doc = new DOMParser().parseFromString(unsigned, 'text/xml');
      assert.equal(new C14nCanonicalization().process(doc.documentElement as unknown as Node, {}), unsigned, 'already canonical');
      const { xml } = signCfesAnulados(unsigned, ctx);
      assert.ok(xml.endsWith('</Signature></CFEs_Anulados_x_RechazoDGI>'));
      assert.deepEqual(validateXml('CFEs_Anulados', xml), { ok: true });
      assert.equal(verifyXmlSignature(xml).valid, true, 'verifies with the certificate carried in KeyInfo');
      assert.equal(verifyXmlSignature(xml, { certificate: cert.certPem }).valid, true);
      const file = join(dir, `n${n}.xml`);
      writeFileSync(file, xml);
      const lint = spawnSync('xmllint', ['--noout', '--nonet', '--schema', join(dir, 'CFEs_Anulados_x_RechazoDGI.xsd'), file], { encoding: 'utf8' });
      assert.equal(lint.status, 0, lint.stderr);
      const sec = xmlsec(file);
      assert.equal(sec.status, 0, `${sec.stdout}${sec.stderr}`);
    });
  }

  it('writes the XSD elements in order, FechaCFE as given (FchEmis), RD and its fixed glosa', () => {
    const xml = buildCfesAnulados(input(1));
    assert.equal(
      xml,
      '<CFEs_Anulados_x_RechazoDGI xmlns="http://cfe.dgi.gub.uy" version="1.0"><Caratula><RUCEmisor>219999830019</RUCEmisor>' +
        '<RUCReceptor>214844360018</RUCReceptor><IDComunicacion>42</IDComunicacion><CantCFEAnulados>1</CantCFEAnulados>' +
        '<Tmst>2026-07-08T23:30:00-03:00</Tmst></Caratula><CFEAnulado><TipoCFE>111</TipoCFE><Serie>A</Serie><NroCFE>1000</NroCFE>' +
        '<FechaCFE>2026-07-07</FechaCFE><Motivo_Cod>RD</Motivo_Cod><Motivo_Glosa>Comprobante anulado por rechazo de DGI</Motivo_Glosa>' +
        '</CFEAnulado></CFEs_Anulados_x_RechazoDGI>',
    );
    assert.equal(cfesAnuladosFileName(RUC, 42), 'Rech_219999830019_42.xml');
  });

  it('a tampered CFE number fails xmlsec1 and our verifier', () => {
    const { xml } = signCfesAnulados(buildCfesAnulados(input(2)), ctx);
    const bad = xml.replace('<NroCFE>1001</NroCFE>', '<NroCFE>1002</NroCFE>');
    const file = join(dir, 'tampered.xml');
    writeFileSync(file, bad);
    assert.notEqual(xmlsec(file).status, 0);
    assert.equal(verifyXmlSignature(bad).valid, false);
  });

  it('refuses 0 or 251 CFEs, a CFC, a bad date or RUC', () => {
    assert.throws(() => buildCfesAnulados(input(0)), CfeXmlError);
    assert.throws(() => buildCfesAnulados(input(251)), CfeXmlError);
    assert.throws(() => buildCfesAnulados({ ...input(1), cfes: [{ tipoCfe: 211, serie: 'A', nro: 1, fechaCfe: '2026-07-07' }] }), CfeXmlError);
    assert.throws(() => buildCfesAnulados({ ...input(1), cfes: [{ tipoCfe: 111, serie: 'A', nro: 1, fechaCfe: '07/07/2026' }] }), CfeXmlError);
    assert.throws(() => buildCfesAnulados(input(1, { rucReceptor: '123' })), CfeXmlError);
  });
});
