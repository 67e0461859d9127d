/**
 * Enveloped XMLDSig with DGI's profile (BRIEF §3): inclusive C14N 1.0, one Reference URI="",
 * transforms enveloped-signature + C14N, rsa-sha1 like DGI's own ACK/CAE signatures, KeyInfo with
 * X509Certificate + X509IssuerSerial. Local to the simulator: emission/signer.ts (another engineer)
 * signs our CFEs; this file only signs what the simulated DGI answers, and verifies what it receives.
 */
import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { ParseOption, XmlDocument } from '../../../platform/xml/libxml2.ts';
import { SignedXml } from 'xml-crypto';
import { createSigningContext, signCanonicalXml, type SigningKeyMaterial } from '../../emission/signer.ts';

const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
const ALGORITHMS = {
  sha1: { signature: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1', digest: 'http://www.w3.org/2000/09/xmldsig#sha1' },
  sha256: {
    signature: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    digest: 'http://www.w3.org/2001/04/xmlenc#sha256',
  },
} as const;

/** RFC 2253 order ("CN=…, O=…, C=UY") as in DGI's X509IssuerName; Node gives the reverse, one per line. */
export function issuerNameRfc2253(cert: X509Certificate): string {
  return cert.issuer.split('\n').reverse().join(', ');
}

export function serialDecimal(cert: X509Certificate): string {
  return BigInt(`0x${cert.serialNumber}`).toString(10);
}

export function pemToBase64(pem: string): string {
  return pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
}

export function base64ToPem(b64: string): string {
  const body = b64.replace(/\s+/g, '').match(/.{1,64}/g)?.join('\n') ?? '';
  return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
}

/** `serialNumber=RUC<12 digits>` in the subject (BRIEF §3); `null` when absent. */
export function rucFromCertificate(cert: X509Certificate): string | null {
  const match = /(?:^|\n)serialNumber=RUC(\d{12})(?:\n|$)/.exec(cert.subject);
  return match ? match[1] : null;
}

/** Appends an enveloped signature as the last child of the root element. */
export function signEnveloped(
  xml: string,
  privateKeyPem: string,
  certificatePem: string,
  algorithm: 'sha1' | 'sha256' = 'sha1',
): string {
  const cert = new X509Certificate(certificatePem);
  const alg = ALGORITHMS[algorithm];
  const sig = new SignedXml({
    privateKey: privateKeyPem,
    publicCert: certificatePem,
    signatureAlgorithm: alg.signature,
    canonicalizationAlgorithm: C14N,
    getKeyInfoContent: () =>
      `<X509Data><X509Certificate>${pemToBase64(certificatePem)}</X509Certificate><X509IssuerSerial>` +
      `<X509IssuerName>${issuerNameRfc2253(cert)}</X509IssuerName>` +
      `<X509SerialNumber>${serialDecimal(cert)}</X509SerialNumber></X509IssuerSerial></X509Data>`,
  });
  sig.addReference({ xpath: '/*', isEmptyUri: true, digestAlgorithm: alg.digest, transforms: [ENVELOPED, C14N] });
  sig.computeSignature(xml, { location: { reference: '/*', action: 'append' } });
  return sig.getSignedXml();
}

const answerKeys = new Map<string, SigningKeyMaterial>();

/**
 * The same enveloped signature as `signEnveloped` (KeyInfo included) for the simulator's own
 * answers, made the way emission signs CFEs: libxml2's inclusive C14N of the document, then the
 * template signer (emission/signer.ts). xml-crypto's parse, XPath and C14N of each ACKCFE took
 * ~8 % of the embedded default's main thread (issue 29). The answer is the canonical form (no XML
 * declaration) with the Signature appended.
 */
export function signAnswer(xml: string, privateKeyPem: string, certificatePem: string, algorithm: 'sha1' | 'sha256' = 'sha1'): string {
  const key = `${algorithm}\n${privateKeyPem}`;
  let material = answerKeys.get(key);
  if (!material) {
    const cert = new X509Certificate(certificatePem);
    const context = createSigningContext({ privateKey: privateKeyPem, certificate: cert, hash: algorithm });
    const keyInfo =
      `<KeyInfo><X509Data><X509Certificate>${pemToBase64(certificatePem)}</X509Certificate><X509IssuerSerial>` +
      `<X509IssuerName>${issuerNameRfc2253(cert)}</X509IssuerName>` +
      `<X509SerialNumber>${serialDecimal(cert)}</X509SerialNumber></X509IssuerSerial></X509Data></KeyInfo>`;
    material = { ...context, keyInfo };
    answerKeys.set(key, material);
  }
  const doc = XmlDocument.fromString(xml, { option: ParseOption.XML_PARSE_NONET });
  let canonical: string;
  try {
    canonical = doc.canonicalizeToString();
  } finally {
    doc.dispose();
  }
  return signCanonicalXml(canonical, material).xml;
}

export type VerifyResult = { ok: true } | { ok: false; reason: string };

/**
 * Verifies the single enveloped signature of a standalone document with `certificatePem` (or, when
 * omitted, the X509Certificate in its KeyInfo). The reference must be URI="" (the whole document).
 */
export function verifyEnveloped(xml: string, certificatePem?: string): VerifyResult {
  try {
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    const root = doc.documentElement;
    if (!root) return { ok: false, reason: 'not well-formed' };
    const signatures = Array.from(root.childNodes).filter(
      (n) => n.nodeType === 1 && n.localName === 'Signature' && n.namespaceURI === DSIG_NS,
    ) as unknown as Element[];
    if (signatures.length !== 1) return { ok: false, reason: `expected 1 enveloped Signature, found ${signatures.length}` };
    const sig = new SignedXml({
      publicCert: certificatePem,
      getCertFromKeyInfo: certificatePem ? () => null : SignedXml.getCertFromKeyInfo,
    });
    const refs = signatures[0].getElementsByTagNameNS(DSIG_NS, 'Reference');
    if (refs.length !== 1 || refs[0].getAttribute('URI') !== '') return { ok: false, reason: 'Reference must be URI=""' };
    sig.loadSignature(signatures[0] as unknown as Node);
    return sig.checkSignature(xml) ? { ok: true } : { ok: false, reason: 'signature does not verify' };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}
