/**
 * Certificates and PKCS#12 files for CFE signing.
 *
 * node-forge opens the .p12 (Node cannot export a key from a PFX, STACK.md 4b); Node's crypto
 * does the rest. Distinguished names are rendered in RFC 2253 order (most specific RDN first:
 * `CN=…, OU=…, O=…, C=UY`), which is how DGI writes X509IssuerName (BRIEF 3).
 */
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import forge from 'node-forge';

export type Pkcs12ErrorCode = 'WRONG_PASSWORD' | 'MALFORMED' | 'NO_KEY' | 'NO_CERT';

export class Pkcs12Error extends Error {
  constructor(
    readonly code: Pkcs12ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'Pkcs12Error';
  }
}

export interface Pkcs12Contents {
  privateKeyPem: string;
  certificatePem: string;
  certificateDer: Buffer;
  /** Other certificates in the file (intermediates/root), PEM, leaf excluded. */
  chainPem: string[];
}

export interface CertificateInfo {
  /** RFC 2253, e.g. `CN=Empresa SA, serialNumber=RUC210000000012, O=Empresa SA, C=UY`. */
  subject: string;
  issuer: string;
  /** Decimal, as X509SerialNumber requires (BRIEF 3). */
  serialNumber: string;
  serialNumberHex: string;
  notBefore: Date;
  notAfter: Date;
  /** The subject's `serialNumber` attribute (2.5.4.5); DGI requires `RUC<12-digit RUT>`. */
  subjectSerialNumber?: string;
  /** The RUT taken from `subjectSerialNumber` when it has the `RUC` prefix. */
  rut?: string;
  fingerprint256: string;
  pem: string;
  der: Buffer;
}

const bagOids = forge.pki.oids;

/** Opens a PKCS#12 file; throws Pkcs12Error telling apart password, format and content problems. */
export function loadPkcs12(buffer: Uint8Array, password: string): Pkcs12Contents {
  let asn1: forge.asn1.Asn1;
  try {
    asn1 = forge.asn1.fromDer(forge.util.createBuffer(Buffer.from(buffer).toString('binary')));
  } catch (err) {
    throw new Pkcs12Error('MALFORMED', `Not a DER-encoded PKCS#12 file: ${(err as Error).message}`);
  }
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(asn1, false, password);
  } catch (err) {
    const message = (err as Error).message ?? String(err);
    if (/Invalid password|MAC could not be verified/i.test(message)) {
      throw new Pkcs12Error('WRONG_PASSWORD', 'Wrong PKCS#12 password');
    }
    // Without a MAC a wrong password surfaces as garbage while decrypting the bags.
    if (/decrypt|padding|Too few bytes|Unparsed DER/i.test(message)) {
      throw new Pkcs12Error('WRONG_PASSWORD', `PKCS#12 could not be decrypted (wrong password?): ${message}`);
    }
    throw new Pkcs12Error('MALFORMED', `Unreadable PKCS#12 file: ${message}`);
  }
  const keyBags = [
    ...(p12.getBags({ bagType: bagOids.pkcs8ShroudedKeyBag })[bagOids.pkcs8ShroudedKeyBag] ?? []),
    ...(p12.getBags({ bagType: bagOids.keyBag })[bagOids.keyBag] ?? []),
  ];
  const keyBag = keyBags.find((b) => b.key);
  if (!keyBag?.key) throw new Pkcs12Error('NO_KEY', 'The PKCS#12 file holds no (RSA) private key');
  const certBags = (p12.getBags({ bagType: bagOids.certBag })[bagOids.certBag] ?? []).filter((b) => b.cert);
  if (certBags.length === 0) throw new Pkcs12Error('NO_CERT', 'The PKCS#12 file holds no certificate');

  const privateKeyPem = forge.pki.privateKeyToPem(keyBag.key);
  const certPems = certBags.map((b) => forge.pki.certificateToPem(b.cert!));
  const keyObject = createPrivateKey(privateKeyPem);
  const leafIndex = certPems.findIndex((pem) => new X509Certificate(pem).checkPrivateKey(keyObject));
  if (leafIndex < 0) throw new Pkcs12Error('NO_CERT', 'No certificate in the PKCS#12 file matches its private key');
  const certificatePem = certPems[leafIndex];
  return {
    privateKeyPem,
    certificatePem,
    certificateDer: Buffer.from(new X509Certificate(certificatePem).raw),
    chainPem: certPems.filter((_, i) => i !== leafIndex),
  };
}

// RFC 2253 §2.3 keywords, plus the two attributes PKI Uruguay certificates carry.
const DN_KEYWORDS: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.6': 'C',
  '2.5.4.9': 'STREET',
  '0.9.2342.19200300.100.1.25': 'DC',
  '0.9.2342.19200300.100.1.1': 'UID',
  '2.5.4.5': 'serialNumber',
  '1.2.840.113549.1.9.1': 'emailAddress',
};

function decodeAsn1String(node: forge.asn1.Asn1): string {
  const raw = node.value as string;
  switch (node.type) {
    case forge.asn1.Type.UTF8:
      return forge.util.decodeUtf8(raw);
    case forge.asn1.Type.BMPSTRING: {
      let out = '';
      for (let i = 0; i + 1 < raw.length; i += 2) out += String.fromCharCode((raw.charCodeAt(i) << 8) | raw.charCodeAt(i + 1));
      return out;
    }
    default:
      return raw;
  }
}

function escapeDnValue(value: string): string {
  let out = value.replace(/[,+"\\<>;]/g, (c) => `\\${c}`);
  if (out.startsWith('#') || out.startsWith(' ')) out = `\\${out}`;
  if (out.endsWith(' ') && out.length > 1) out = `${out.slice(0, -1)}\\ `;
  return out;
}

interface DnAttribute {
  oid: string;
  value: string;
}

function readName(name: forge.asn1.Asn1): DnAttribute[][] {
  return (name.value as forge.asn1.Asn1[]).map((rdn) =>
    (rdn.value as forge.asn1.Asn1[]).map((atv) => {
      const [oid, value] = atv.value as forge.asn1.Asn1[];
      return { oid: forge.asn1.derToOid(oid.value as string), value: decodeAsn1String(value) };
    }),
  );
}

function formatRfc2253(rdns: DnAttribute[][]): string {
  return [...rdns]
    .reverse()
    .map((rdn) => rdn.map((a) => `${DN_KEYWORDS[a.oid] ?? a.oid}=${escapeDnValue(a.value)}`).join('+'))
    .join(', ');
}

function toX509(cert: string | Uint8Array | X509Certificate): X509Certificate {
  return cert instanceof X509Certificate ? cert : new X509Certificate(cert);
}

/** Parses a certificate (PEM or DER) into the fields the signer, the sobre and the UI need. */
export function readCertificate(cert: string | Uint8Array | X509Certificate): CertificateInfo {
  const x509 = toX509(cert);
  const der = Buffer.from(x509.raw);
  const tbs = (forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary'))).value as forge.asn1.Asn1[])[0];
  const fields = tbs.value as forge.asn1.Asn1[];
  // TBSCertificate: [0] version (optional), serial, signature, issuer, validity, subject
  const offset = fields[0].tagClass === forge.asn1.Class.CONTEXT_SPECIFIC ? 1 : 0;
  const issuer = readName(fields[offset + 2]);
  const subject = readName(fields[offset + 4]);
  const subjectSerialNumber = subject.flat().find((a) => a.oid === '2.5.4.5')?.value;
  const rutMatch = subjectSerialNumber ? /^RUC(\d{12})$/.exec(subjectSerialNumber) : null;
  const serialNumberHex = x509.serialNumber.toUpperCase();
  return {
    subject: formatRfc2253(subject),
    issuer: formatRfc2253(issuer),
    serialNumber: BigInt(`0x${serialNumberHex}`).toString(10),
    serialNumberHex,
    notBefore: new Date(x509.validFrom),
    notAfter: new Date(x509.validTo),
    subjectSerialNumber,
    rut: rutMatch?.[1],
    fingerprint256: x509.fingerprint256,
    pem: x509.toString(),
    der,
  };
}

/** True when the private key is the one the certificate was issued for. */
export function keyMatchesCertificate(key: string | KeyObject, cert: string | Uint8Array | X509Certificate): boolean {
  const keyObject = typeof key === 'string' ? createPrivateKey(key) : key;
  return toX509(cert).checkPrivateKey(keyObject);
}

/** PEM → DER body as base64 on one line (what Caratula/X509Certificate carries). */
export function certificateToBase64(cert: string | Uint8Array | X509Certificate): string {
  return Buffer.from(toX509(cert).raw).toString('base64');
}

export { createTestCa, issueTestCertificate, toPkcs12, type TestCa, type TestCertificate } from './test-ca.ts';
