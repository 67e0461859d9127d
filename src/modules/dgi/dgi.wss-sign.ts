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
import { createHash, sign, type KeyObject } from 'node:crypto';
import { XmlC14NMode, XmlDocument, XmlElement } from '../../platform/xml/libxml2.ts';
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

/**
 * The exclusive C14N of the request's Body, or null when libxml2 does not parse or canonicalise it
 * (a relative namespace URI). The EnvioCFE travels as one escaped text (Datain/xmlData, ~1 MB):
 * libxml2 reads and canonicalises the request with a marker in its place (parsing and C14N of the
 * whole request held the event loop ~30 ms per envelope), and the text's canonical form, which
 * C14N defines character by character, is put back (canonicalText). Exported for its test, which
 * checks it against libxml2 on the whole request.
 */
export function exclusiveBody(xml: string, bodyStart: number, largeText = LARGE_TEXT): string | null {
  const text = largestText(xml, bodyStart);
  const canonical = text && text.end - text.start >= largeText ? canonicalText(xml.slice(text.start, text.end)) : null;
  const marked = canonical === null ? xml : xml.slice(0, text!.start) + TEXT_MARKER + xml.slice(text!.end);
  let body: string;
  try {
    // parseXmlText: libxml2 gets the UTF-8 bytes from Buffer.from, not from fromString's JS encoding loop.
    const doc = parseXmlText(marked);
    try {
      let element: XmlElement | undefined;
      for (let n = doc.root.firstChild; n; n = n.next) if (n instanceof XmlElement && n.name === 'Body') element = n;
      if (!element) return null;
      body = exclusive(element);
    } finally {
      doc.dispose();
    }
  } catch {
    return null; // not parsed or not canonicalisable by libxml2 (a relative namespace URI)
  }
  if (canonical === null) return body;
  const at = body.indexOf(TEXT_MARKER);
  return at < 0 ? null : body.slice(0, at) + canonical + body.slice(at + TEXT_MARKER.length);
}

/** Below this many characters a text is canonicalised by libxml2 with the rest. */
const LARGE_TEXT = 4096;
/** Stands for the large text while libxml2 reads the request: plain characters, canonically the same. */
const TEXT_MARKER = 'WSS-C14N-LARGE-TEXT-0b7f3c';

/** The longest run of character data after `from` (between the end of a tag and the next '<'). */
function largestText(xml: string, from: number): { start: number; end: number } | null {
  let best: { start: number; end: number } | null = null;
  for (let lt = xml.indexOf('<', from); lt >= 0; ) {
    let quote = '';
    let gt = lt + 1;
    for (; gt < xml.length; gt++) {
      const c = xml[gt];
      if (quote) quote = c === quote ? '' : quote;
      else if (c === '"' || c === "'") quote = c;
      else if (c === '>') break;
    }
    if (gt >= xml.length || xml.startsWith('<!', lt) || xml.startsWith('<?', lt)) return null; // comments, CDATA, PIs: libxml2's way
    const next = xml.indexOf('<', gt + 1);
    if (next < 0) break;
    if (!best || next - (gt + 1) > best.end - best.start) best = { start: gt + 1, end: next };
    lt = next;
  }
  return best && !xml.includes(TEXT_MARKER) ? best : null;
}

// What XML 1.0 text may not hold (§2.2), lone surrogates aside (isWellFormed).
const NOT_XML_CHAR = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/;
// What text in canonical form (emission's escapeC14nText) does not hold: it then decodes to itself.
const NOT_CANONICAL = /&(?!amp;|lt;|gt;|#xD;)|[>\r\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/;
// The references canonicalText reads; any other (a numeric reference of another character) goes to libxml2.
const OTHER_REFERENCE = /&(?!amp;|lt;|gt;|quot;|apos;|#x9;|#xA;|#xD;|#9;|#10;|#13;)/;

/**
 * Exclusive C14N of character data as written in the document (Canonical XML 1.0 §2.3 and the
 * text node rule of §1.1): references decoded, line ends normalised (XML 1.0 §2.11), then '&', '<',
 * '>' and carriage return written as &amp; &lt; &gt; &#xD;, everything else as itself. Null for
 * text this does not read (other references, characters XML 1.0 text may not hold).
 */
export function canonicalText(raw: string): string | null {
  if (!(raw as string & { isWellFormed(): boolean }).isWellFormed()) return null;
  if (!NOT_CANONICAL.test(raw)) return raw; // written by escapeC14nText: one scan
  if (OTHER_REFERENCE.test(raw) || NOT_XML_CHAR.test(raw) || raw.includes(']]>')) return null;
  let text = raw.includes('\r') ? raw.replace(/\r\n?/g, '\n') : raw;
  if (text.includes('>')) text = text.replace(/>/g, '&gt;');
  if (text.includes('&quot;')) text = text.replace(/&quot;/g, '"');
  if (text.includes('&apos;')) text = text.replace(/&apos;/g, "'");
  if (text.includes('&#')) text = text.replace(/&#x9;|&#9;/g, '\t').replace(/&#xA;|&#10;/g, '\n').replace(/&#13;/g, '&#xD;');
  return text;
}

/**
 * `privateKey`: the key already read (createWsSecurity reads it once per client). Signing with the PEM text made
 * OpenSSL decode and parse the key at every call: 0.94 against 0.28 ms a signature here, two per envelope.
 */
export function signWsSecurity(xml: string, envelopeKey: string, credentials: WsSecurityCredentials & { privateKey?: KeyObject }, algorithms: WssAlgorithms, tokenId: string): string | null {
  const headerEnd = xml.indexOf(`</${envelopeKey}:Header>`);
  const bodyTag = `<${envelopeKey}:Body`;
  const bodyStart = xml.indexOf(bodyTag);
  if (headerEnd < 0 || bodyStart < headerEnd || xml.includes('<wsse:Security') || /<!DOCTYPE/i.test(xml)) return null;
  const bodyOpenEnd = xml.indexOf('>', bodyStart);
  if (/\swsu:|\sId=/.test(xml.slice(bodyStart, bodyOpenEnd))) return null;
  const bodyAt = bodyStart + bodyTag.length;
  const withId = `${xml.slice(0, bodyAt)} xmlns:wsu="${WSU_NS}" wsu:Id="${BODY_ID}"${xml.slice(bodyAt)}`;

  const canonicalBody = exclusiveBody(withId, bodyStart);
  if (canonicalBody === null) return null;
  const digest = createHash(HASH[algorithms.digest]).update(canonicalBody, 'utf8').digest('base64');
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
  const signatureValue = sign(HASH[algorithms.signature], Buffer.from(canonicalSignedInfo, 'utf8'), credentials.privateKey ?? credentials.privateKeyPem).toString('base64');
  const token = credentials.certificatePem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  const security =
    `<wsse:Security xmlns:wsse="${WSSE_NS}" xmlns:wsu="${WSU_NS}" ${envelopeKey}:mustUnderstand="1">` +
    `<wsse:BinarySecurityToken EncodingType="${BASE64_BINARY}" ValueType="${X509_TOKEN}" wsu:Id="${tokenId}">${token}</wsse:BinarySecurityToken>` +
    `<ds:Signature xmlns:ds="${DSIG_NS}">${signedInfo}<ds:SignatureValue>${signatureValue}</ds:SignatureValue>` +
    `<ds:KeyInfo><wsse:SecurityTokenReference xmlns:wsse="${WSSE_NS}"><wsse:Reference URI="#${tokenId}" ValueType="${X509_TOKEN}"/>` +
    `</wsse:SecurityTokenReference></ds:KeyInfo></ds:Signature></wsse:Security>`;
  return withId.slice(0, headerEnd) + security + withId.slice(headerEnd);
}
