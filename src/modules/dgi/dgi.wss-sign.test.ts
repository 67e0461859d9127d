/**
 * The WS-Security signature made on the request's bytes: the Body's canonical form with the large
 * xmlData text put back by canonicalText must be libxml2's own C14N of the whole request, byte for
 * byte, and the signed request must pass the simulated DGI's check (libxml2, as xmlsec1).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { XmlC14NMode } from 'libxml2-wasm';
import { xmlEscape } from 'soap/lib/utils.js';
import { createTestCa, issueTestCertificate } from '../../platform/crypto/pki.ts';
import { parseXmlText } from '../../platform/xml/standalone-signature.ts';
import { escapeC14nText as escapeText } from '../emission/index.ts';
import { escapeXml, soapEnvelope } from './dgi.soap.ts';
import { canonicalText, exclusiveBody, signWsSecurity } from './dgi.wss-sign.ts';
import { verifyWsSecurity } from './simulator/wss-verify.ts';

const SAMPLE = readFileSync(new URL('./fixtures/Sob_219999830019_Ej_Mod_19072016.xml', import.meta.url), 'latin1');
const WSU = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';

/** libxml2's exclusive C14N of the text of `<a>`, read from the document. */
function libxml2Text(raw: string): string {
  const doc = parseXmlText(`<a xmlns="urn:x">${raw}</a>`);
  try {
    return doc.root.canonicalizeToString({ mode: XmlC14NMode.XML_C14N_EXCLUSIVE_1_0 }).replace(/^<a xmlns="urn:x">|<\/a>$/g, '');
  } finally {
    doc.dispose();
  }
}

/** A request as the soap library writes EFACRECEPCIONSOBRE, with the Body's wsu:Id already added. */
function request(xmlData: string): { xml: string; bodyStart: number } {
  const xml =
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:tns="http://dgi.gub.uy">` +
    `<soap:Header></soap:Header><soap:Body xmlns:wsu="${WSU}" wsu:Id="_0"><tns:WS_eFactura.EFACRECEPCIONSOBRE><tns:Datain>` +
    `<tns:xmlData>${xmlData}</tns:xmlData></tns:Datain></tns:WS_eFactura.EFACRECEPCIONSOBRE></soap:Body></soap:Envelope>`;
  return { xml, bodyStart: xml.indexOf('<soap:Body') };
}

const tricky = ['a & b < c > d', 'comillas " y \' simples', 'tab\tlf\ncr\rcrlf\r\n', 'ñandú € 𝄞 \u2028 \u0085', ']] > ]>', '&amp;quot;'];

describe('canonicalText', () => {
  it('escapeC14nText writes text already canonical: canonicalText gives it back as is, and it is what libxml2 writes', () => {
    for (const value of tricky) {
      const text = escapeText(value);
      assert.equal(canonicalText(text), text, JSON.stringify(value));
      assert.equal(libxml2Text(text), text, JSON.stringify(value));
    }
  });

  it('is libxml2 C14N of the text for what the soap library, escapeXml and hand-written XML produce', () => {
    const written = ['raw > and " and \' kept', '&#x9;&#xA;&#xD;&#9;&#10;&#13;', 'line\r\nend\rend', '&quot;&apos;&lt;&gt;&amp;'];
    for (const raw of [...tricky.map(xmlEscape), ...tricky.map(escapeXml), ...written]) {
      assert.equal(canonicalText(raw), libxml2Text(raw), JSON.stringify(raw));
    }
  });

  it('leaves to libxml2 what it does not read: other references, characters XML 1.0 refuses, "]]>", lone surrogates', () => {
    for (const raw of ['&#65;', '&#xa;', '&nbsp;', 'a & b', 'bell \x07', ']]>', 'half \ud800 pair']) assert.equal(canonicalText(raw), null, JSON.stringify(raw));
  });
});

describe('exclusiveBody', () => {
  it("an EnvioCFE of ~1 MB in xmlData: the same bytes as libxml2's C14N of the whole request", () => {
    let envio = SAMPLE;
    while (envio.length < 1_000_000) envio += SAMPLE.replace('<?xml version="1.0" encoding="UTF-8"?>', '') + tricky.join('');
    for (const escape of [escapeText, xmlEscape, escapeXml]) {
      const { xml, bodyStart } = request(escape(envio));
      const fast = exclusiveBody(xml, bodyStart);
      assert.ok(fast !== null);
      assert.equal(fast, exclusiveBody(xml, bodyStart, Infinity));
    }
  });

  it('a text it does not read, or a comment in the Body, goes through libxml2 whole', () => {
    const large = 'x'.repeat(5000);
    for (const xmlData of [`${large}&#65;`, `${large}<!-- c -->`, `${large}<![CDATA[<a>]]>`]) {
      const { xml, bodyStart } = request(xmlData);
      assert.equal(exclusiveBody(xml, bodyStart), exclusiveBody(xml, bodyStart, Infinity), xmlData.slice(-12));
    }
  });
});

describe('signWsSecurity', () => {
  it('a request with a ~1 MB EnvioCFE passes the simulated DGI check (rsa-sha1 and rsa-sha256), and fails it once the text changes', () => {
    const cert = issueTestCertificate(createTestCa(), { rut: '219999830019', name: 'Empresa Demo S.A.' });
    const credentials = { privateKeyPem: cert.keyPem, certificatePem: cert.certPem };
    let envio = SAMPLE;
    while (envio.length < 1_000_000) envio += tricky.join('') + SAMPLE;
    const body = `<tns:WS_eFactura.EFACRECEPCIONSOBRE xmlns:tns="http://dgi.gub.uy"><tns:Datain><tns:xmlData>${escapeText(envio)}</tns:xmlData></tns:Datain></tns:WS_eFactura.EFACRECEPCIONSOBRE>`;
    for (const [signature, digest] of [
      ['http://www.w3.org/2000/09/xmldsig#rsa-sha1', 'http://www.w3.org/2000/09/xmldsig#sha1'],
      ['http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', 'http://www.w3.org/2001/04/xmlenc#sha256'],
    ]) {
      const signed = signWsSecurity(soapEnvelope(body), 'soapenv', credentials, { signature, digest }, 'x509-test');
      assert.ok(signed !== null);
      const checked = verifyWsSecurity(signed);
      assert.ok(checked.ok, checked.ok ? '' : checked.reason);
      assert.equal(checked.operation?.texts.get('xmlData'), envio);
      const changed = verifyWsSecurity(signed.replace('&lt;ns0:Serie&gt;', '&lt;ns0:Serie &gt;'));
      assert.equal(changed.ok, false);
    }
  });
});
