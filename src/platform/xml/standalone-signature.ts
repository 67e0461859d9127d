/**
 * How a receiver of CFEs checks a CFE signature (BRIEF 3), used by the simulated DGI and by our own
 * intake of received CFEs: each CFE is cut out of the received envelope as the very bytes it was sent with, read as a document of its own by libxml2 (the
 * parser and C14N of xmlsec1), and the enveloped signature is checked on that document.
 *
 * Nothing is re-serialised: a DOM round trip (xmldom) wrote a decoded carriage return raw, which a
 * second parse turns into a line feed (XML 1.0 §2.11), and read U+0085 / U+2028 / U+2029 as line
 * ends (XML 1.1 rules), so a receipt that xmlsec1 verifies came back E04 and its number was voided.
 */
import { createHash, createPublicKey, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { ParseOption, XmlDocument, XmlElement } from './libxml2.ts';

const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
/** XMLDSig algorithm URIs → node:crypto hash names (also used by the simulator's WS-Security check). */
export const SIGNATURE_HASH: Readonly<Record<string, string>> = {
  'http://www.w3.org/2000/09/xmldsig#rsa-sha1': 'sha1',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256': 'sha256',
};
export const DIGEST_HASH: Readonly<Record<string, string>> = {
  'http://www.w3.org/2000/09/xmldsig#sha1': 'sha1',
  'http://www.w3.org/2001/04/xmlenc#sha256': 'sha256',
};
// No network, no entity expansion (libxml2's defaults); a DOCTYPE is refused before parsing.
const PARSE_OPTIONS = ParseOption.XML_PARSE_NONET;

/**
 * libxml2 reading of a text, as `XmlDocument.fromString` but cheaper: fromString encodes the string to UTF-8 in a JS
 * loop (emscripten's stringToUTF8, 6 % of the simulator thread with its ~1 MB requests), Buffer.from natively. The
 * bytes handed to libxml2 are the same for every well-formed string; one with a lone surrogate (never text decoded
 * from bytes) goes through fromString, whose encoding of it libxml2 refuses.
 */
export function parseXmlText(xml: string): XmlDocument {
  const wellFormed = (xml as string & { isWellFormed(): boolean }).isWellFormed();
  return wellFormed ? XmlDocument.fromBuffer(Buffer.from(xml, 'utf8'), { option: PARSE_OPTIONS }) : XmlDocument.fromString(xml, { option: PARSE_OPTIONS });
}

export interface ElementSpan {
  /** Qualified name as written (prefix included). */
  name: string;
  start: number;
  end: number;
}

/**
 * The child elements of the root of a document, as offsets into the text. Comments, CDATA sections
 * and processing instructions are skipped; attribute values may hold '>'. Null when the text holds a
 * DOCTYPE or an unterminated comment, CDATA section, processing instruction or end tag. Only a text that
 * parses is well delimited: a caller that cuts before parsing must parse it too.
 */
export function rootChildSpans(xml: string): ElementSpan[] | null {
  return childSpans(xml, 0);
}

/** The child elements of the first element starting at or after `from` (see rootChildSpans). */
export function childSpans(xml: string, from: number): ElementSpan[] | null {
  const spans: ElementSpan[] = [];
  let depth = 0;
  let current: ElementSpan | null = null;
  let i = xml.indexOf('<', from);
  while (i >= 0 && i < xml.length) {
    // Dispatched on the character after '<' (most are tags): a chain of startsWith per tag was ~30 % of this scan.
    const next = xml.charCodeAt(i + 1);
    if (next === 0x21 /* ! */) {
      if (xml.startsWith('<!--', i)) i = past(xml, '-->', i + 4);
      else if (xml.startsWith('<![CDATA[', i)) i = past(xml, ']]>', i + 9);
      else return null; // a DOCTYPE or another declaration
    } else if (next === 0x3f /* ? */) i = past(xml, '?>', i + 2);
    else if (next === 0x2f /* / */) {
      const end = past(xml, '>', i);
      if (end < 0) return null; // an unterminated end tag
      depth--;
      if (depth === 1 && current) {
        current.end = end;
        spans.push(current);
        current = null;
      }
      if (depth === 0) return spans;
      i = end;
    } else {
      let j = i + 1;
      for (let quote = 0; j < xml.length; j++) {
        const c = xml.charCodeAt(j);
        if (quote) {
          if (c === quote) quote = 0;
        } else if (c === 0x22 || c === 0x27) quote = c;
        else if (c === 0x3e) break;
      }
      const empty = xml.charCodeAt(j - 1) === 0x2f;
      // Only the children's names are wanted (a CFE has ~80 elements below them).
      if (depth === 1) current = { name: /^[^\s/>]+/.exec(xml.slice(i + 1, j))?.[0] ?? '', start: i, end: -1 };
      if (!empty) depth++;
      else if (depth === 1 && current) {
        current.end = j + 1;
        spans.push(current);
        current = null;
      }
      i = j + 1;
    }
    if (i < 0) return null; // an unterminated comment, CDATA section or processing instruction
    i = xml.indexOf('<', i);
  }
  return spans;
}

/** The offset just past the next `end` from `from`; -1 when there is none. */
const past = (xml: string, end: string, from: number) => {
  const at = xml.indexOf(end, from);
  return at < 0 ? -1 : at + end.length;
};

export type SignatureCheck = { ok: true; digestValue: string } | { ok: false; reason: string };

/** The XMLDSig-namespace element children of `parent` by local name, in document order (one walk of its children). */
function dsigChildren(parent: XmlElement): Map<string, XmlElement[]> {
  const out = new Map<string, XmlElement[]>();
  for (let n = parent.firstChild; n; n = n.next) {
    if (!(n instanceof XmlElement) || n.namespaceUri !== DSIG_NS) continue;
    const name = n.name;
    const list = out.get(name);
    if (list) list.push(n);
    else out.set(name, [n]);
  }
  return out;
}
const algorithmOf = (el: XmlElement | undefined): string => el?.attr('Algorithm')?.value ?? '';
const first = (children: Map<string, XmlElement[]>, name: string): XmlElement | undefined => children.get(name)?.[0];

// The certificate of a base64 DER text (an envelope's Caratula, a WS-Security token, a CFE's KeyInfo), read once
// (~0.12 ms each): every envelope of a company carries the same one. A text that is no certificate throws.
const certificates = new Map<string, X509Certificate>();
export function certificateOf(base64: string): X509Certificate {
  let cert = certificates.get(base64);
  if (!cert) {
    cert = new X509Certificate(Buffer.from(base64, 'base64'));
    if (certificates.size >= 256) certificates.delete(certificates.keys().next().value!);
    certificates.set(base64, cert);
  }
  return cert;
}

// An envelope's CFEs (up to 250) share one certificate: its public key is read once, not per CFE.
const keys = new Map<string, KeyObject>();
function keyOf(certificate: string | KeyObject): KeyObject {
  if (typeof certificate !== 'string') return certificate;
  let key = keys.get(certificate);
  if (!key) {
    key = createPublicKey(certificate);
    if (keys.size >= 64) keys.delete(keys.keys().next().value!);
    keys.set(certificate, key);
  }
  return key;
}

/**
 * Verifies the one enveloped signature (Reference URI="", transforms enveloped-signature and
 * inclusive C14N 1.0, rsa-sha1 or rsa-sha256) of a standalone document with `certificate`.
 * Integrity only, like xmlsec1 with a given key: trust in the certificate is the caller's.
 */
export function verifyStandaloneSignature(xml: string, certificate: string | KeyObject): SignatureCheck {
  if (/<!DOCTYPE/i.test(xml)) return { ok: false, reason: 'DOCTYPE no admitido' };
  let doc: XmlDocument;
  try {
    doc = parseXmlText(xml);
  } catch (error) {
    return { ok: false, reason: `XML mal formado: ${(error as Error).message}` };
  }
  try {
    const signatures = dsigChildren(doc.root).get('Signature') ?? [];
    if (signatures.length !== 1) return { ok: false, reason: `se esperaba una Signature hija de la raíz, hay ${signatures.length}` };
    const signature = signatures[0];
    const inSignature = dsigChildren(signature);
    const signedInfo = first(inSignature, 'SignedInfo');
    const signatureValue = first(inSignature, 'SignatureValue');
    if (!signedInfo || !signatureValue) return { ok: false, reason: 'Signature sin SignedInfo o SignatureValue' };
    const inSignedInfo = dsigChildren(signedInfo);
    if (algorithmOf(first(inSignedInfo, 'CanonicalizationMethod')) !== C14N) return { ok: false, reason: 'CanonicalizationMethod no es C14N 1.0 inclusivo' };
    const signatureHash = SIGNATURE_HASH[algorithmOf(first(inSignedInfo, 'SignatureMethod'))];
    if (!signatureHash) return { ok: false, reason: 'SignatureMethod no admitido' };
    const references = inSignedInfo.get('Reference') ?? [];
    if (references.length !== 1 || references[0].attr('URI')?.value !== '') return { ok: false, reason: 'se esperaba una Reference URI=""' };
    const inReference = dsigChildren(references[0]);
    const transformsEl = first(inReference, 'Transforms');
    const transforms = (transformsEl ? dsigChildren(transformsEl).get('Transform') ?? [] : []).map(algorithmOf);
    if (transforms[0] !== ENVELOPED || transforms.length > 2 || (transforms[1] !== undefined && transforms[1] !== C14N)) {
      return { ok: false, reason: 'Transforms deben ser enveloped-signature y C14N 1.0' };
    }
    const digestHash = DIGEST_HASH[algorithmOf(first(inReference, 'DigestMethod'))];
    if (!digestHash) return { ok: false, reason: 'DigestMethod no admitido' };
    const digestValue = (first(inReference, 'DigestValue')?.content ?? '').trim();
    // Canonical SignedInfo first (it carries the namespaces in scope), then the document without it.
    const canonicalSignedInfo = canonicalSignedInfoOf(xml, doc.root, signature, signedInfo);
    const signatureBytes = Buffer.from(signatureValue.content.replace(/\s+/g, ''), 'base64');
    signature.remove();
    const canonical = doc.canonicalizeToString();
    const computed = createHashBase64(digestHash, canonical);
    if (computed !== digestValue) return { ok: false, reason: 'el DigestValue no corresponde al contenido firmado' };
    if (!verify(signatureHash, Buffer.from(canonicalSignedInfo, 'utf8'), keyOf(certificate), signatureBytes)) {
      return { ok: false, reason: 'SignatureValue no verifica con el certificado' };
    }
    return { ok: true, digestValue };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  } finally {
    doc.dispose();
  }
}

const localName = (qname: string) => qname.slice(qname.indexOf(':') + 1);
const escapeAttr = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/**
 * Inclusive C14N of the SignedInfo subset. libxml2-wasm canonicalises a subtree through a JS
 * visibility callback per node of the whole document (~1 ms a CFE); the same output comes from
 * SignedInfo's own bytes read as a document with every namespace in scope declared on it
 * (REC-xml-c14n §2.4: the apex of a subset carries all its namespace nodes). xml:* attributes of
 * ancestors would be inherited too (§2.4): then the slow path.
 */
function canonicalSignedInfoOf(xml: string, root: XmlElement, signature: XmlElement, signedInfo: XmlElement): string {
  const rootStart = xml.indexOf('<', xml.search(/<[^?!]/));
  const sigSpan = (childSpans(xml, 0) ?? []).filter((s) => localName(s.name) === 'Signature').at(-1);
  const siSpan = sigSpan && (childSpans(xml, sigSpan.start) ?? []).find((s) => localName(s.name) === 'SignedInfo');
  const startTag = (at: number) => xml.slice(at, xml.indexOf('>', at));
  if (!sigSpan || !siSpan || /\sxml:/.test(startTag(rootStart)) || /\sxml:/.test(startTag(sigSpan.start))) return signedInfo.canonicalizeToString();
  // In scope at SignedInfo: its ancestors' declarations (Signature is a child of the root), inner ones winning.
  const inScope: Record<string, string> = { ...root.nsDeclarations, ...signature.nsDeclarations };
  const own = signedInfo.nsDeclarations;
  let declarations = '';
  for (const [prefix, uri] of Object.entries(inScope)) {
    if (prefix in own || (prefix === '' && uri === '')) continue;
    declarations += prefix === '' ? ` xmlns="${escapeAttr(uri)}"` : ` xmlns:${prefix}="${escapeAttr(uri)}"`;
  }
  const bytes = xml.slice(siSpan.start, siSpan.end);
  const nameEnd = 1 + siSpan.name.length;
  const standalone = parseXmlText(bytes.slice(0, nameEnd) + declarations + bytes.slice(nameEnd));
  try {
    return standalone.canonicalizeToString();
  } finally {
    standalone.dispose();
  }
}

function createHashBase64(algorithm: string, text: string): string {
  return createHash(algorithm).update(text, 'utf8').digest('base64');
}
