/**
 * The WS-Security signature of a SOAP request (BRIEF §6), made on the request's own bytes: the
 * same header the soap library's WSSecurityCert writes (BinarySecurityToken, ds:Signature with one
 * Reference to soapenv:Body by wsu:Id "_0", exclusive C14N, KeyInfo by SecurityTokenReference), its
 * Body digest from libxml2's exclusive C14N (the C14N of xmlsec1) and the RSA signature from
 * node:crypto. The library parsed the ~1 MB EnvioCFE request twice with xmldom and re-serialised
 * it (issue 29: ~11 % of the embedded default's main thread). Returns null when the request is not
 * what this expects (a Security header already there, a Body with an Id, namespace URIs libxml2's
 * C14N refuses): the caller then signs through the library.
 */
import { createHash, sign } from 'node:crypto';
import { XmlC14NMode, XmlDocument, XmlElement } from 'libxml2-wasm';
import { parseXmlText } from '../../platform/xml/standalone-signature.ts';
import type { WsSecurityCredentials } from './dgi.client.ts';

const OASIS = 'http://docs.oasis-open.org/wss/2004/01';
const WSSE_NS = `${OASIS}/oasis-200401-wss-wssecurity-secext-1.0.xsd`;
const WSU_NS = `${OASIS}/oasis-200401-wss-wssecurity-utility-1.0.xsd`;
const X509_TOKEN = `${OASIS}/oasis-200401-wss-x509-token-profile-1.0#X509v3`;
const BASE64_BINARY = `${OASIS}/oasis-200401-wss-soap-message-security-1.0#Base64Binary`;
const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const BODY_ID = '_0';

export interface WssAlgorithms {
  signature: string;
  digest: string;
}

const HASH: Readonly<Record<string, string>> = {
  'http://www.w3.org/2000/09/xmldsig#rsa-sha1': 'sha1',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256': 'sha256',
  'http://www.w3.org/2000/09/xmldsig#sha1': 'sha1',
  'http://www.w3.org/2001/04/xmlenc#sha256': 'sha256',
};

const exclusive = (node: XmlElement) => node.canonicalizeToString({ mode: XmlC14NMode.XML_C14N_EXCLUSIVE_1_0 });

export function signWsSecurity(xml: string, envelopeKey: string, credentials: WsSecurityCredentials, algorithms: WssAlgorithms, tokenId: string): string | null {
  const headerEnd = xml.indexOf(`</${envelopeKey}:Header>`);
  const bodyTag = `<${envelopeKey}:Body`;
  const bodyStart = xml.indexOf(bodyTag);
  if (headerEnd < 0 || bodyStart < headerEnd || xml.includes('<wsse:Security') || /<!DOCTYPE/i.test(xml)) return null;
  const bodyOpenEnd = xml.indexOf('>', bodyStart);
  if (/\swsu:|\sId=/.test(xml.slice(bodyStart, bodyOpenEnd))) return null;
  const bodyAt = bodyStart + bodyTag.length;
  const withId = `${xml.slice(0, bodyAt)} xmlns:wsu="${WSU_NS}" wsu:Id="${BODY_ID}"${xml.slice(bodyAt)}`;

  let digest: string;
  try {
    // parseXmlText: libxml2 gets the UTF-8 bytes from Buffer.from, not from fromString's JS encoding
    // loop (which was half of this function's time on a ~1 MB EnvioCFE request).
    const doc = parseXmlText(withId);
    try {
      let body: XmlElement | undefined;
      for (let n = doc.root.firstChild; n; n = n.next) if (n instanceof XmlElement && n.name === 'Body') body = n;
      if (!body) return null;
      digest = createHash(HASH[algorithms.digest]).update(exclusive(body), 'utf8').digest('base64');
    } finally {
      doc.dispose();
    }
  } catch {
    return null; // not parsed or not canonicalisable by libxml2 (a relative namespace URI)
  }
  const signedInfo =
    `<ds:SignedInfo><ds:CanonicalizationMethod Algorithm="${EXC_C14N}"/><ds:SignatureMethod Algorithm="${algorithms.signature}"/>` +
    `<ds:Reference URI="#${BODY_ID}"><ds:Transforms><ds:Transform Algorithm="${EXC_C14N}"/></ds:Transforms>` +
    `<ds:DigestMethod Algorithm="${algorithms.digest}"/><ds:DigestValue>${digest}</ds:DigestValue></ds:Reference></ds:SignedInfo>`;
  // Exclusive C14N of SignedInfo uses only the namespaces it shows (ds): the same alone as in the header.
  const alone = XmlDocument.fromString(`<ds:SignedInfo xmlns:ds="${DSIG_NS}"${signedInfo.slice('<ds:SignedInfo'.length)}`);
  let canonicalSignedInfo: string;
  try {
    canonicalSignedInfo = exclusive(alone.root);
  } finally {
    alone.dispose();
  }
  const signatureValue = sign(HASH[algorithms.signature], Buffer.from(canonicalSignedInfo, 'utf8'), credentials.privateKeyPem).toString('base64');
  const token = credentials.certificatePem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  const security =
    `<wsse:Security xmlns:wsse="${WSSE_NS}" xmlns:wsu="${WSU_NS}" ${envelopeKey}:mustUnderstand="1">` +
    `<wsse:BinarySecurityToken EncodingType="${BASE64_BINARY}" ValueType="${X509_TOKEN}" wsu:Id="${tokenId}">${token}</wsse:BinarySecurityToken>` +
    `<ds:Signature xmlns:ds="${DSIG_NS}">${signedInfo}<ds:SignatureValue>${signatureValue}</ds:SignatureValue>` +
    `<ds:KeyInfo><wsse:SecurityTokenReference xmlns:wsse="${WSSE_NS}"><wsse:Reference URI="#${tokenId}" ValueType="${X509_TOKEN}"/>` +
    `</wsse:SecurityTokenReference></ds:KeyInfo></ds:Signature></wsse:Security>`;
  return withId.slice(0, headerEnd) + security + withId.slice(headerEnd);
}
