/**
 * The proving XSD validator (platform/xml/xsd-prover.ts) against libxml2 on the CFEs this module
 * writes (issue 5 point 4). Soundness is the property that matters: whatever the prover accepts,
 * libxml2 accepts too, on every CFE type and on thousands of mutations of them (bad values for
 * every leaf, elements removed, repeated, swapped, foreign attributes, comments, text in
 * element-only content…). It must also prove the unmutated documents, or it would save nothing.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ParseOption } from 'libxml2-wasm';
import { createTestCa, issueTestCertificate } from '../../platform/crypto/pki.ts';
import { compileSchemaModel } from '../../platform/xml/xsd-model.ts';
import { proveXsdValid } from '../../platform/xml/xsd-prover.ts';
import { loadPatchedXsdSet, validateOwnXml, validateXml } from '../../platform/xml/xsd.ts';
import { sampleCfe, SAMPLE_TYPES } from './sample-cfes.ts';
import { createSigningContext, signCfe } from './signer.ts';

const ROOT = '{http://cfe.dgi.gub.uy}CFE';
const model = compileSchemaModel('CFEDGI.xsd', loadPatchedXsdSet(), ParseOption.XML_PARSE_NONET);
const ca = createTestCa();
const cert = issueTestCertificate(ca, { rut: '219999830019', name: 'Prueba SA' });
const ctx = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem });
const withCert = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem, includeCertificate: true });

const proved = (xml: string) => proveXsdValid(model, ROOT, xml);
const libxml2 = (xml: string) => validateXml('CFE', xml).ok;

/** [start, end) of every element of a document with no comments or CDATA, with its own text span. */
function elements(xml: string): Array<{ start: number; end: number; name: string; textStart: number; textEnd: number; leaf: boolean }> {
  const out: Array<{ start: number; end: number; name: string; textStart: number; textEnd: number; leaf: boolean }> = [];
  const stack: Array<{ start: number; name: string; openEnd: number; leaf: boolean }> = [];
  const tag = /<(\/?)([\w:.-]+)[^>]*?(\/?)>/g;
  for (let m = tag.exec(xml); m; m = tag.exec(xml)) {
    if (m[1]) {
      const open = stack.pop()!;
      out.push({ start: open.start, end: m.index + m[0].length, name: open.name, textStart: open.openEnd, textEnd: m.index, leaf: open.leaf });
    } else if (m[3]) {
      if (stack.length) stack[stack.length - 1].leaf = false;
      out.push({ start: m.index, end: m.index + m[0].length, name: m[2], textStart: -1, textEnd: -1, leaf: false });
    } else {
      if (stack.length) stack[stack.length - 1].leaf = false;
      stack.push({ start: m.index, name: m[2], openEnd: m.index + m[0].length, leaf: true });
    }
  }
  return out;
}

const TRICKY_VALUES = [
  '', ' ', '0', '-1', '1', '+1', '01', '1.5', '1.50', '1.234', '-0.001', '12345678901234567890', '99999999999999999.99', '1e3', 'abc', 'A', 'AB', '1A', 'a',
  'N/A', 'N\\A', 'USD', 'UYU', '2026-02-29', '2024-02-29', '2026-13-01', '2010-01-01', '2051-01-01', '2026-07-08T18:06:51-03:00', '2026-07-08T25:00:00-03:00',
  '2026-07-08T18:06:51', '2051-07-08T18:06:51-03:00', '2026-07-08Z', '&amp;', '&#x9;', '&#1;', ' x ', 'x  y', 'é', '\u{1F600}', 'x'.repeat(31), 'x'.repeat(151),
  '9'.repeat(12), '21999983001', 'AQAB', 'AQA=', 'AQ==', 'A===', 'http://www.w3.org/2000/09/xmldsig#sha1', 'http ://x', '%zz', '700', '701', '5000000',
];

function* mutations(xml: string): Generator<string> {
  const els = elements(xml);
  for (const el of els) {
    const before = xml.slice(0, el.start);
    const after = xml.slice(el.end);
    const whole = xml.slice(el.start, el.end);
    if (el.leaf) for (const v of TRICKY_VALUES) yield xml.slice(0, el.textStart) + v + xml.slice(el.textEnd);
    yield before + after; // removed
    yield before + whole + whole + after; // repeated
    const next = els.find((o) => o.start === el.end);
    if (next) yield before + xml.slice(next.start, next.end) + whole + xml.slice(next.end); // swapped
    const openEnd = xml.indexOf('>', el.start);
    const selfClosing = xml[openEnd - 1] === '/';
    const at = selfClosing ? openEnd - 1 : openEnd;
    yield `${xml.slice(0, at)} extra="1"${xml.slice(at)}`;
    yield `${xml.slice(0, at)} xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:nil="true"${xml.slice(at)}`;
    if (!el.leaf && !selfClosing) {
      yield `${xml.slice(0, openEnd + 1)}texto${xml.slice(openEnd + 1)}`;
      yield `${xml.slice(0, openEnd + 1)}\n  ${xml.slice(openEnd + 1)}`;
      yield `${xml.slice(0, openEnd + 1)}<!-- c -->${xml.slice(openEnd + 1)}`;
      yield `${xml.slice(0, openEnd + 1)}<Otro/>${xml.slice(openEnd + 1)}`;
    }
    if (el.leaf) yield `${xml.slice(0, el.textStart)}<![CDATA[1]]>${xml.slice(el.textEnd)}`;
  }
}

describe('proving XSD validator', () => {
  it('proves every CFE type the emission module writes, as libxml2 accepts them', () => {
    for (const tipo of SAMPLE_TYPES) {
      for (const lines of [1, 3, 12]) {
        for (const key of [ctx, withCert]) {
          const xml = signCfe(sampleCfe(tipo, { lines, Nro: 1000 + lines }), key).xml;
          assert.equal(libxml2(xml), true, `libxml2 ${tipo}`);
          assert.equal(proved(xml), true, `prover ${tipo} with ${lines} lines`);
        }
      }
    }
  });

  it('never proves what libxml2 rejects, over mutations of every CFE type', () => {
    let total = 0;
    let validByLibxml2 = 0;
    let provedCount = 0;
    for (const tipo of SAMPLE_TYPES) {
      const xml = signCfe(sampleCfe(tipo, { lines: 2 }), ctx).xml;
      for (const mutated of mutations(xml)) {
        total++;
        const lib = libxml2(mutated);
        const prove = proved(mutated);
        if (lib) validByLibxml2++;
        if (prove) provedCount++;
        if (prove && !lib) assert.fail(`proved but invalid (type ${tipo}): ${validateXml('CFE', mutated).ok || (validateXml('CFE', mutated) as { errors: string[] }).errors[0]}\n${mutated}`);
      }
    }
    assert.ok(total > 10_000, `${total} mutations`);
    // The prover is conservative, not useless: most mutations libxml2 accepts are proved too.
    assert.ok(provedCount > validByLibxml2 * 0.8, `proved ${provedCount} of ${validByLibxml2} valid`);
  });

  it('agrees with libxml2 on the CFEs inside DGI sample envelopes (prefixes, indentation, real data)', () => {
    let checked = 0;
    for (const file of ['Sob_219999830019_Ej_Mod_19072016.xml', 'Sob_219999830019_fac-Cta_Ajena-enc.xml', 'Sob_219999830019_fac-Cta_Ajena-no-enc.xml']) {
      const text = readFileSync(new URL(`../../../test/fixtures/dgi/dgi/${file}`, import.meta.url), 'latin1').replace(/\r\n/g, '\n');
      for (const m of text.matchAll(/<ns0:CFE[ >][\s\S]*?<\/ns0:CFE>/g)) {
        const cfe = m[0];
        const lib = libxml2(cfe);
        const prove = proved(cfe);
        assert.ok(!prove || lib, `${file}: proved but libxml2 rejects`);
        // xmlenc's types (an encrypted Compl_Fiscal) use complexContent, which the model leaves to libxml2.
        if (lib && !cfe.includes('EncryptedData')) assert.equal(prove, true, `${file}: valid CFE not proved`);
        checked++;
      }
    }
    assert.ok(checked >= 8, `${checked} sample CFEs`);
  });

  it('validateOwnXml reports libxml2 errors for what the prover does not prove', () => {
    const xml = signCfe(sampleCfe(101, { lines: 1 }), ctx).xml;
    assert.deepEqual(validateOwnXml('CFE', xml), { ok: true });
    const bad = xml.replace(/<Serie>A<\/Serie>/, '<Serie>a</Serie>');
    const r = validateOwnXml('CFE', bad);
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.errors[0], /Serie/);
  });
});
