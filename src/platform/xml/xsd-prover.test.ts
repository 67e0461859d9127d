import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ParseOption, XmlDocument, XsdValidator } from 'libxml2-wasm';
import { scanXml } from './xml-scan.ts';
import { compileSchemaModel } from './xsd-model.ts';
import { compileXsdPattern } from './xsd-pattern.ts';
import { proveXsdValid } from './xsd-prover.ts';

const SCHEMA = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:t="urn:t" targetNamespace="urn:t" elementFormDefault="qualified">
  <xs:simpleType name="Monto"><xs:restriction base="xs:decimal"><xs:totalDigits value="5"/><xs:fractionDigits value="2"/><xs:minInclusive value="-100"/><xs:maxInclusive value="999.99"/></xs:restriction></xs:simpleType>
  <xs:simpleType name="Tasa"><xs:restriction base="xs:decimal"><xs:enumeration value="10.000"/><xs:enumeration value="22.000"/></xs:restriction></xs:simpleType>
  <xs:simpleType name="Serie"><xs:restriction base="xs:string"><xs:pattern value="[A-Z]"/><xs:pattern value="[1-9][A-Z]"/></xs:restriction></xs:simpleType>
  <xs:simpleType name="Fecha"><xs:restriction base="xs:date"><xs:minInclusive value="2011-10-01"/><xs:maxInclusive value="2050-12-31"/></xs:restriction></xs:simpleType>
  <xs:simpleType name="Hora"><xs:restriction base="xs:dateTime"><xs:maxInclusive value="2050-12-31T23:59:59-03:00"/></xs:restriction></xs:simpleType>
  <xs:simpleType name="Corto"><xs:restriction base="xs:string"><xs:maxLength value="3"/><xs:whiteSpace value="collapse"/></xs:restriction></xs:simpleType>
  <xs:element name="r"><xs:complexType><xs:sequence>
    <xs:element name="m" type="t:Monto" minOccurs="0" maxOccurs="3"/>
    <xs:choice minOccurs="0"><xs:element name="s" type="t:Serie"/><xs:element name="f" type="t:Fecha"/></xs:choice>
    <xs:element name="h" type="t:Hora" minOccurs="0"/>
    <xs:element name="c" type="t:Corto" minOccurs="0"/>
    <xs:element name="i" type="xs:positiveInteger" minOccurs="0"/>
    <xs:element name="b" type="xs:base64Binary" minOccurs="0"/>
    <xs:element name="x" type="t:Tasa" minOccurs="0"/>
  </xs:sequence><xs:attribute name="v" type="xs:string" fixed="1.0"/></xs:complexType></xs:element>
</xs:schema>`;

const model = compileSchemaModel('t.xsd', new Map([['t.xsd', Buffer.from(SCHEMA)]]), ParseOption.XML_PARSE_NONET);
const schemaDoc = XmlDocument.fromString(SCHEMA);
const libxml2 = XsdValidator.fromDoc(schemaDoc);
schemaDoc.dispose();

const prove = (body: string, attrs = '') => proveXsdValid(model, '{urn:t}r', `<r xmlns="urn:t"${attrs}>${body}</r>`);
function libxml2Valid(body: string, attrs = ''): boolean {
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromString(`<r xmlns="urn:t"${attrs}>${body}</r>`);
  } catch {
    return false;
  }
  try {
    libxml2.validate(doc);
    return true;
  } catch {
    return false;
  } finally {
    doc.dispose();
  }
}

describe('proving validator on a small schema, against libxml2', () => {
  const cases: Array<[string, string]> = [
    ['m', '1'], ['m', '999.99'], ['m', '999.990'], ['m', '1000'], ['m', '-100'], ['m', '-100.01'], ['m', '12.345'], ['m', '0012.30'], ['m', '+5'], ['m', '.5'], ['m', '5.'], ['m', '-0'], ['m', ' 7 '], ['m', '1e2'], ['m', ''],
    ['x', '10'], ['x', '10.000'], ['x', '22.0'], ['x', '11'],
    ['s', 'A'], ['s', '1A'], ['s', 'AA'], ['s', 'a'], ['s', ' A'],
    ['f', '2011-10-01'], ['f', '2011-09-30'], ['f', '2024-02-29'], ['f', '2023-02-29'], ['f', '2026-07-08Z'], ['f', '2050-12-31'],
    ['h', '2050-12-31T23:59:59-03:00'], ['h', '2051-01-01T02:59:59Z'], ['h', '2051-01-01T03:00:00Z'], ['h', '2026-07-08T24:00:00Z'], ['h', '2026-07-08T10:00:00'],
    ['c', 'abc'], ['c', ' a  b '], ['c', 'abcd'], ['c', '\u{1F600}\u{1F600}\u{1F600}'],
    ['i', '1'], ['i', '0'], ['i', '-0'], ['i', '+3'],
    ['b', 'AQAB'], ['b', 'AQ=='], ['b', 'AR=='], ['b', 'AQA'], ['b', 'AQ AB'],
  ];
  for (const [el, value] of cases) {
    it(`<${el}>${value}</${el}>: proved only if valid`, () => {
      const body = `<${el}>${value}</${el}>`;
      const lib = libxml2Valid(body);
      const proved = prove(body);
      assert.ok(!proved || lib, 'proved but libxml2 rejects');
      // Plain, canonical values must be proved, or the fast path would rarely apply.
      if (lib && /^[\w.-]+$/.test(value) && !value.endsWith('Z') && !/^[+0]\d|^-0$|\.$|^\./.test(value) && el !== 'x') assert.equal(proved, true, 'valid but not proved');
    });
  }

  it('content model: occurrences, choice, order', () => {
    for (const body of ['', '<m>1</m><m>2</m><m>3</m>', '<m>1</m><m>2</m><m>3</m><m>4</m>', '<s>A</s><f>2020-01-01</f>', '<f>2020-01-01</f><m>1</m>', '<i>1</i><c>a</c>', '<c>a</c><i>1</i>']) {
      const lib = libxml2Valid(body);
      assert.equal(prove(body), lib, body);
    }
  });

  it('attributes: fixed value, undeclared, xsi', () => {
    assert.equal(prove('', ' v="1.0"'), true);
    assert.equal(libxml2Valid('', ' v="2.0"'), false);
    assert.equal(prove('', ' v="2.0"'), false);
    assert.equal(prove('', ' w="1"'), false);
    assert.equal(prove('<m>1</m>', ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:nil="true"'), false);
  });

  it('the reader gives up on what it does not model, and on malformed XML', () => {
    for (const xml of ['<?xml version="1.0"?><r/>', '<!DOCTYPE r><r/>', '<r><!-- c --></r>', '<r><![CDATA[x]]></r>', '<r>a\r\nb</r>', '<r a="1\tb"/>', '<r>&nbsp;</r>', '<r>&#0;</r>', '<r></s>', '<r><s></r></s>', '<r/><r/>', '<r a="1" a="2"/>', '<p:r/>', '<r>]]></r>', '<r', 'texto<r/>']) {
      assert.equal(scanXml(xml), undefined, xml);
    }
    assert.equal(scanXml('<r xmlns="urn:t"><s a="&amp;&#x41;">x &lt; y</s></r>')?.children[0].attrs[0].value, '&A');
  });

  it('XSD patterns: | inside a class is a character, ^ and $ are literal, the rest refuses', () => {
    assert.equal(compileXsdPattern('([a-z|A-Z]){1,3}').test('a|B'), true);
    assert.equal(compileXsdPattern('[N][\\\\/][A]').test('N/A'), true);
    assert.equal(compileXsdPattern('[N][\\\\/][A]').test('N\\A'), true);
    assert.equal(compileXsdPattern('a^b$').test('a^b$'), true);
    assert.equal(compileXsdPattern('[0-9]{12}').test('123456789012\n'), false);
    for (const p of ['\\d+', 'a.b', '[a-z-[aeiou]]', '\\p{L}', 'a**']) assert.throws(() => compileXsdPattern(p), p);
  });
});

describe('schema constructs the model leaves to libxml2', () => {
  const compile = (xsd: string) => compileSchemaModel('u.xsd', new Map([['u.xsd', Buffer.from(xsd)]]), ParseOption.XML_PARSE_NONET);
  const head = '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:t="urn:t" targetNamespace="urn:t" elementFormDefault="qualified">';

  it('identity constraints, abstract types, groups, lists and other built-ins are never proved', () => {
    const schemas = [
      `${head}<xs:element name="r"><xs:complexType><xs:sequence><xs:element name="a" type="xs:string" maxOccurs="2"/></xs:sequence></xs:complexType><xs:unique name="u"><xs:selector xpath="t:a"/><xs:field xpath="."/></xs:unique></xs:element></xs:schema>`,
      `${head}<xs:complexType name="A" abstract="true"><xs:sequence><xs:element name="a" type="xs:string" maxOccurs="2"/></xs:sequence></xs:complexType><xs:element name="r" type="t:A"/></xs:schema>`,
      `${head}<xs:group name="g"><xs:sequence><xs:element name="a" type="xs:string" maxOccurs="2"/></xs:sequence></xs:group><xs:element name="r"><xs:complexType><xs:group ref="t:g"/></xs:complexType></xs:element></xs:schema>`,
      `${head}<xs:element name="r"><xs:complexType><xs:sequence><xs:element name="a" maxOccurs="2"><xs:simpleType><xs:list itemType="xs:string"/></xs:simpleType></xs:element></xs:sequence></xs:complexType></xs:element></xs:schema>`,
      `${head}<xs:element name="r"><xs:complexType><xs:sequence><xs:element name="a" type="xs:token" maxOccurs="2"/></xs:sequence></xs:complexType></xs:element></xs:schema>`,
    ];
    // A required group inside a sequence: leaving its element out must not be proved.
    const nested = `${head}<xs:group name="g"><xs:sequence><xs:element name="b" type="xs:string"/></xs:sequence></xs:group><xs:element name="r"><xs:complexType><xs:sequence><xs:element name="a" type="xs:string" maxOccurs="2"/><xs:group ref="t:g"/></xs:sequence></xs:complexType></xs:element></xs:schema>`;
    assert.equal(proveXsdValid(compile(nested), '{urn:t}r', '<r xmlns="urn:t"><a>x</a><a>x</a></r>'), false);
    for (const xsd of schemas) assert.equal(proveXsdValid(compile(xsd), '{urn:t}r', '<r xmlns="urn:t"><a>x</a><a>x</a></r>'), false, xsd);
    // The same document against a plain schema is proved, so the refusals above come from the constructs.
    const plain = `${head}<xs:element name="r"><xs:complexType><xs:sequence><xs:element name="a" type="xs:string" maxOccurs="2"/></xs:sequence></xs:complexType></xs:element></xs:schema>`;
    assert.equal(proveXsdValid(compile(plain), '{urn:t}r', '<r xmlns="urn:t"><a>x</a><a>x</a></r>'), true);
  });
});
