/**
 * XMLDSig for CFEs (BRIEF 3): enveloped, inclusive C14N 1.0, one Reference URI="" with the
 * enveloped-signature and C14N transforms, KeyInfo/X509Data/X509IssuerSerial (CFEType.xsd header),
 * Signature as the last child of CFE with a default-namespace `<Signature xmlns=…>`.
 *
 * The template signer digests the already-canonical bytes from cfe-xml.ts and signs a fixed
 * SignedInfo template: no DOM, ~93 % of raw RSA speed (STACK.md 4b). Documents we did not build
 * are canonicalized with xml-crypto first (signXmlDocument).
 */
import { X509Certificate, createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { C14nCanonicalization, SignedXml } from 'xml-crypto';
import { readCertificate, type CertificateInfo } from '../../platform/crypto/pki.ts';
import { buildCfeXml, escapeC14nText } from './cfe-xml.ts';
import type { Cfe } from './cfe.model.ts';

export const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';

/** sha256 is the default: DGI no longer accepts SHA-1 since 2018 per FAQ 4.15 [S]; sha1 kept for compatibility. */
export type SignatureHash = 'sha256' | 'sha1';

const ALGORITHMS: Record<SignatureHash, { signature: string; digest: string }> = {
  sha256: { signature: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', digest: 'http://www.w3.org/2001/04/xmlenc#sha256' },
  sha1: { signature: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1', digest: 'http://www.w3.org/2000/09/xmldsig#sha1' },
};

export class SignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SignatureError';
  }
}

/** Everything that depends only on the certificate and algorithm, computed once per certificate. */
export interface SigningContext {
  readonly hash: SignatureHash;
  readonly privateKey: KeyObject;
  readonly certificate: CertificateInfo;
  readonly signedInfoHead: string;
  readonly signedInfoTail: string;
  readonly keyInfo: string;
}

/** What signing itself uses: can cross to a worker thread (KeyObject is cloneable, the rest are strings). */
export type SigningKeyMaterial = Pick<SigningContext, 'hash' | 'privateKey' | 'signedInfoHead' | 'signedInfoTail' | 'keyInfo'>;

export interface SigningContextInput {
  privateKey: string | KeyObject;
  certificate: string | Uint8Array | X509Certificate;
  hash?: SignatureHash;
  /** Also embed X509Certificate in KeyInfo. DGI's CFEs carry only X509IssuerSerial; off by default. */
  includeCertificate?: boolean;
}

export function createSigningContext(input: SigningContextInput): SigningContext {
  const hash = input.hash ?? 'sha256';
  const privateKey = typeof input.privateKey === 'string' ? createPrivateKey(input.privateKey) : input.privateKey;
  const x509 = input.certificate instanceof X509Certificate ? input.certificate : new X509Certificate(input.certificate);
  if (!x509.checkPrivateKey(privateKey)) throw new SignatureError('The private key does not belong to the certificate');
  const certificate = readCertificate(x509);
  const alg = ALGORITHMS[hash];
  const signedInfoHead =
    `<CanonicalizationMethod Algorithm="${C14N}"></CanonicalizationMethod>` +
    `<SignatureMethod Algorithm="${alg.signature}"></SignatureMethod>` +
    `<Reference URI=""><Transforms><Transform Algorithm="${ENVELOPED}"></Transform>` +
    `<Transform Algorithm="${C14N}"></Transform></Transforms>` +
    `<DigestMethod Algorithm="${alg.digest}"></DigestMethod><DigestValue>`;
  const keyInfo =
    '<KeyInfo><X509Data>' +
    (input.includeCertificate ? `<X509Certificate>${certificate.der.toString('base64')}</X509Certificate>` : '') +
    `<X509IssuerSerial><X509IssuerName>${escapeC14nText(certificate.issuer)}</X509IssuerName>` +
    `<X509SerialNumber>${certificate.serialNumber}</X509SerialNumber></X509IssuerSerial></X509Data></KeyInfo>`;
  return { hash, privateKey, certificate, signedInfoHead, signedInfoTail: '</DigestValue></Reference>', keyInfo };
}

export interface SignedXmlResult {
  xml: string;
  /** base64 DigestValue of the Reference: the CFE "hash"; its first 6 chars are the security code (BRIEF 4). */
  digestValue: string;
  signatureValue: string;
}

/**
 * Signs a document that is ALREADY in inclusive-C14N form (the output of buildCfeXml). Its bytes
 * are exactly what the enveloped-signature + C14N transforms yield once the Signature is removed.
 */
export function signCanonicalXml(canonicalXml: string, ctx: SigningKeyMaterial): SignedXmlResult {
  if (canonicalXml.charCodeAt(0) !== 0x3c || canonicalXml.startsWith('<?')) {
    throw new SignatureError('Expected a canonical document starting with the root element (no XML declaration)');
  }
  const rootEnd = canonicalXml.lastIndexOf('</');
  if (rootEnd < 0) throw new SignatureError('Root element has no end tag');
  const digestValue = createHash(ctx.hash).update(canonicalXml, 'utf8').digest('base64');
  const signedInfoBody = ctx.signedInfoHead + digestValue + ctx.signedInfoTail;
  // Inclusive C14N renders every namespace in scope at SignedInfo: the xmldsig default from
  // <Signature> plus any prefixed declaration on the root (DGI's samples: xmlns:ns0).
  const canonicalSignedInfo = `<SignedInfo${signedInfoNamespaces(canonicalXml)}>${signedInfoBody}</SignedInfo>`;
  const signatureValue = sign(ctx.hash, Buffer.from(canonicalSignedInfo, 'utf8'), ctx.privateKey).toString('base64');
  const signature =
    `<Signature xmlns="${DSIG_NS}"><SignedInfo>${signedInfoBody}</SignedInfo>` +
    `<SignatureValue>${signatureValue}</SignatureValue>${ctx.keyInfo}</Signature>`;
  return { xml: canonicalXml.slice(0, rootEnd) + signature + canonicalXml.slice(rootEnd), digestValue, signatureValue };
}

/** Builds and signs a CFE: the emission hot path (no DOM). */
export function signCfe(cfe: Cfe, ctx: SigningKeyMaterial): SignedXmlResult {
  return signCanonicalXml(buildCfeXml(cfe), ctx);
}

const DEFAULT_ROOT_NS = ` xmlns="${DSIG_NS}"`;
let lastRootTag = '';
let lastRootNs = DEFAULT_ROOT_NS;

/** Namespace declarations of canonical SignedInfo for a document whose root start tag is given. */
function signedInfoNamespaces(canonicalXml: string): string {
  const end = canonicalXml.indexOf('>');
  const rootTag = canonicalXml.slice(0, end);
  if (rootTag === lastRootTag) return lastRootNs;
  const prefixed: Array<[string, string]> = [];
  for (const m of rootTag.matchAll(/\sxmlns:([^\s=]+)="([^"]*)"/g)) prefixed.push([m[1], m[2]]);
  // C14N order: default namespace first, then prefixes by name (REC-xml-c14n §2.2).
  prefixed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  lastRootTag = rootTag;
  lastRootNs = DEFAULT_ROOT_NS + prefixed.map(([p, uri]) => ` xmlns:${p}="${uri}"`).join('');
  return lastRootNs;
}

function parseXml(xml: string): Document {
  const errors: string[] = [];
  const doc = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') errors.push(message);
    },
  }).parseFromString(xml, 'text/xml');
  if (errors.length > 0 || !doc.documentElement) throw new SignatureError(`Malformed XML: ${errors.join('; ') || 'no root element'}`);
  return doc as unknown as Document;
}

function rootSignatures(doc: Document): Element[] {
  const out: Element[] = [];
  for (let n = doc.documentElement.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as Element).localName === 'Signature' && (n as Element).namespaceURI === DSIG_NS) out.push(n as Element);
  }
  return out;
}

/**
 * Signs client-supplied XML (firmarXml). The client's bytes are not canonical, so they are parsed
 * and canonicalized with xml-crypto first; the result (what gets stored and sent) is the canonical
 * form plus the Signature. Comments and the XML declaration do not survive, as C14N drops them.
 */
export function signXmlDocument(xml: string, ctx: SigningContext): SignedXmlResult {
  const doc = parseXml(xml);
  if (rootSignatures(doc).length > 0) throw new SignatureError('The document is already signed');
  const canonical = new C14nCanonicalization().process(doc.documentElement as unknown as Node, {});
  return signCanonicalXml(canonical, ctx);
}

export interface VerifyOptions {
  /** Certificate to verify with (PEM/DER), e.g. from the envelope Caratula; preferred over KeyInfo. */
  certificate?: string | Uint8Array | X509Certificate;
}

export interface VerifyResult {
  valid: boolean;
  reason?: string;
  digestValue?: string;
}

/**
 * Verifies the enveloped signature of a standalone document (extract a CFE from its envelope
 * first: BRIEF 3, verifying in place fails). Accepts rsa-sha1 and rsa-sha256. Integrity only:
 * trust in the certificate's chain is the caller's decision.
 */
export function verifyXmlSignature(xml: string, options: VerifyOptions = {}): VerifyResult {
  let doc: Document;
  try {
    doc = parseXml(xml);
  } catch (err) {
    return { valid: false, reason: (err as Error).message };
  }
  const signatures = rootSignatures(doc);
  if (signatures.length !== 1) return { valid: false, reason: `Expected one Signature child of the root, found ${signatures.length}` };
  const digestNode = signatures[0].getElementsByTagNameNS(DSIG_NS, 'DigestValue')[0];
  const digestValue = digestNode?.textContent?.trim() || undefined;
  const embedded = signatures[0].getElementsByTagNameNS(DSIG_NS, 'X509Certificate')[0]?.textContent?.replace(/\s+/g, '');
  const source = options.certificate ?? (embedded ? Buffer.from(embedded, 'base64') : undefined);
  if (!source) return { valid: false, reason: 'No certificate: KeyInfo has none and none was given', digestValue };
  // The key is resolved here, not by xml-crypto, so exactly one certificate is ever used.
  try {
    const signed = new SignedXml({ publicCert: certificatePem(source), getCertFromKeyInfo: () => null });
    signed.loadSignature(signatures[0] as unknown as Node);
    const references = signed.getReferences();
    if (references.length !== 1 || references[0].uri !== '') {
      return { valid: false, reason: 'Expected exactly one Reference with URI="" (whole document)', digestValue };
    }
    if (!signed.checkSignature(xml)) {
      const refError = signed.getReferences().find((r) => r.validationError)?.validationError;
      return { valid: false, reason: refError?.message ?? 'Reference digest does not match', digestValue };
    }
    return { valid: true, digestValue };
  } catch (err) {
    return { valid: false, reason: (err as Error).message, digestValue };
  }
}

function certificatePem(cert: string | Uint8Array | X509Certificate): string {
  return (cert instanceof X509Certificate ? cert : new X509Certificate(cert)).toString();
}
