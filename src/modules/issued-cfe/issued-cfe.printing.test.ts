import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCfeXml, createSigningContext, signCfe } from '../emission/index.js';
import { SAMPLE_TYPES, sampleCfe } from '../emission/sample-cfes.js';
import { createTestCa, issueTestCertificate } from '../../platform/crypto/pki.js';
import { printingBlock, readXml, referenceParser } from './issued-cfe.printing.js';

const ca = createTestCa();
const cert = issueTestCertificate(ca, { rut: '219999830019', name: 'Printing SA' });
const ctx = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem });

describe('printing block reader', () => {
  it('reads every signed sample CFE type exactly like fast-xml-parser', () => {
    for (const tipo of SAMPLE_TYPES) {
      for (const lines of [1, 3]) {
        const { xml } = signCfe(sampleCfe(tipo, { lines }), ctx);
        assert.deepEqual(readXml(xml), referenceParser.parse(xml), `type ${tipo}, ${lines} lines`);
      }
    }
  });

  it('decodes entities, keeps repeated names as arrays, self-closing as empty string, prefixes removed', () => {
    const xml = '<a:R xmlns:a="urn:x" v="1"><a:N>A &amp; B &lt;c&gt;</a:N><Sub>1</Sub><Sub>2</Sub><E/><Item><X> t </X></Item></a:R>';
    assert.deepEqual(readXml(xml), referenceParser.parse(xml));
    assert.deepEqual(readXml(xml), { R: { N: 'A & B <c>', Sub: ['1', '2'], E: '', Item: [{ X: 't' }] } });
    // Character references are decoded (fast-xml-parser leaves them as written); a declaration is skipped.
    assert.deepEqual(readXml('<?xml version="1.0"?><R><N>&#233;&#x41;&#xD;</N></R>'), { R: { N: 'éA\r' } });
  });

  it('gives up (undefined) on comments, CDATA and unbalanced input, and printingBlock then uses the generic parser', () => {
    assert.equal(readXml('<a><!-- c --><b>1</b></a>'), undefined);
    assert.equal(readXml('<a><b>1</a>'), undefined);
    const xml = `<CFE xmlns="http://cfe.dgi.gub.uy"><eTck><Encabezado><Emisor><RznSoc><![CDATA[X & Y]]></RznSoc></Emisor></Encabezado></eTck></CFE>`;
    assert.deepEqual(printingBlock(xml).emisor, { RznSoc: 'X & Y' });
  });

  it('unsigned documents built by the emission library read the same way too', () => {
    const xml = buildCfeXml(sampleCfe(111, { lines: 2 }));
    assert.deepEqual(readXml(xml), referenceParser.parse(xml));
  });
});
