import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCfeXml, totalesInXsdOrder } from './cfe-xml.ts';
import { SAMPLE_TYPES, sampleCfe } from './sample-cfes.ts';

describe('totalesInXsdOrder', () => {
  it('orders the keys as the XML writes them, for every type, whatever order they came in', () => {
    for (const tipo of SAMPLE_TYPES) {
      const { Totales } = sampleCfe(tipo, { lines: 2 });
      const shuffled = Object.fromEntries(Object.entries(Totales).sort(([a], [b]) => a.length - b.length || (a < b ? -1 : 1)));
      const ordered = totalesInXsdOrder(tipo, shuffled);
      const xml = buildCfeXml(sampleCfe(tipo, { lines: 2 }));
      const inXml = [...xml.slice(xml.indexOf('<Totales>') + 9, xml.indexOf('</Totales>')).matchAll(/<(\w+)>/g)].map((m) => m[1]);
      const top = inXml.filter((name, i) => inXml.indexOf(name) === i && name in Totales);
      assert.deepEqual(Object.keys(ordered), top, `type ${tipo}`);
      assert.deepEqual(ordered, Totales);
    }
  });

  it('keeps keys the XSD does not know, at the end', () => {
    assert.deepEqual(Object.keys(totalesInXsdOrder(101, { MntTotal: '1', extra: 2, TpoMoneda: 'UYU' })), ['TpoMoneda', 'MntTotal', 'extra']);
  });
});
