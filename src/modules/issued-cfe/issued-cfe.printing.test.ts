import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCfeXml, createSigningContext, signCfe } from '../emission/index.js';
import { SAMPLE_TYPES, sampleCfe } from '../emission/sample-cfes.js';
import { createTestCa, issueTestCertificate } from '../../platform/crypto/pki.js';
import { printingBlock, printingBlockOf, readXml, referenceParser } from './issued-cfe.printing.js';

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

describe('printing block from the CFE it was built from (the emitir response)', () => {
  // JSON text, not deepEqual: the key order is what a client sees.
  const same = (cfe: ReturnType<typeof sampleCfe>, what: string) =>
    assert.equal(JSON.stringify(printingBlockOf(cfe)), JSON.stringify(printingBlock(signCfe(cfe, ctx).xml)), what);

  it('equals reading the signed XML back, for every sample type', () => {
    for (const tipo of SAMPLE_TYPES) for (const lines of [1, 3]) same(sampleCfe(tipo, { lines }), `type ${tipo}, ${lines} lines`);
  });

  it('a note prints its references (the zone and its entries are both named Referencia)', () => {
    const note = sampleCfe(112, { lines: 1 });
    assert.deepEqual(printingBlock(buildCfeXml(note)).referencias, [
      { NroLinRef: '1', TpoDocRef: '111', Serie: 'A', NroCFERef: '10', RazonRef: 'Devolución parcial', FechaCFEref: '2026-07-01' },
    ]);
  });

  it('equals it for text that is trimmed or escaped, one or several phones, codes and references, and an empty receiver', () => {
    const base = sampleCfe(111, { lines: 2 });
    const odd = {
      ...base,
      Emisor: { ...base.Emisor, RznSoc: '  Pérez & Hijos <SA>  ', Telefono: ['099 123 456'] },
      Receptor: { ...base.Receptor!, RznSocRecep: '\r Lado A\r', DirRecep: ' \r' },
      Detalle: base.Detalle.map((it, i) => ({ ...it, NomItem: i ? 'a\tb ' : '', CodItem: [{ TpoCod: 'EAN', Cod: '1' }, { TpoCod: 'INT1', Cod: ' 2 ' }] })),
    };
    same(odd, 'odd text');
    same({ ...base, Emisor: { ...base.Emisor, Telefono: ['1', '2'] } }, 'two phones');
    same({ ...sampleCfe(101, { lines: 1 }), Receptor: {} as never }, 'empty receiver');
    same(sampleCfe(112, { lines: 1 }), 'one reference');
  });
});
