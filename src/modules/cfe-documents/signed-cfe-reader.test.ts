import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCfeXml, SAMPLE_TYPES, sampleCfe } from '../emission/index.ts';
import { readSignedCfe, SignedCfeReadError } from './signed-cfe-reader.ts';

/** The model without undefined properties (JSON drops them, as the XML does). */
const plain = (v: unknown) => JSON.parse(JSON.stringify(v));

describe('readSignedCfe', () => {
  it('reads back exactly the model the XML was built from, for every sample type', () => {
    for (const tipo of SAMPLE_TYPES) {
      const cfe = sampleCfe(tipo, { lines: 3 });
      assert.deepEqual(readSignedCfe(buildCfeXml(cfe)), plain(cfe), `tipo ${tipo}`);
    }
  });

  it('ignores the Signature and keeps escaped text and decimals as written', () => {
    const cfe = sampleCfe(111, { lines: 1 });
    cfe.Detalle[0].NomItem = 'Tornillos <3/4"> & tuercas';
    const xml = buildCfeXml(cfe).replace('</CFE>', '<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo></SignedInfo></Signature></CFE>');
    const read = readSignedCfe(xml);
    assert.equal(read.Detalle[0].NomItem, 'Tornillos <3/4"> & tuercas');
    assert.equal(typeof read.Totales.MntTotal, 'string');
    assert.equal(read.Totales.MntTotal, cfe.Totales.MntTotal);
    assert.equal(read.Receptor?.RznSocRecep, 'Cliente <Mayorista> S.R.L.');
  });

  it('refuses a document that is not a CFE', () => {
    assert.throws(() => readSignedCfe('<Otro/>'), SignedCfeReadError);
  });
});
