/**
 * A throwaway local certificate authority for tests, the demo and the DGI simulator.
 * Keys are generated at runtime and never committed. Node generates the RSA keys (forge's
 * pure-JS keygen takes seconds); forge only assembles and signs the X.509 and PKCS#12 structures.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface TestCa {
  keyPem: string;
  certPem: string;
  name: string;
}

export interface TestCertificate {
  keyPem: string;
  certPem: string;
  certDer: Buffer;
}

export interface IssueTestCertificateOptions {
  /** 12-digit RUT; the subject gets `serialNumber=RUC<rut>` as DGI requires (BRIEF 3). */
  rut: string;
  name: string;
  notBefore?: Date;
  notAfter?: Date;
  /** false: keyUsage keyEncipherment only (a certificate that may not sign). */
  signing?: boolean;
}

function generateRsaKeyPem(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

// Positive 128-bit serial: a large decimal like real PKI Uruguay serials (~39 digits).
function randomSerialHex(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x10;
  return bytes.toString('hex');
}

function addYears(date: Date, years: number): Date {
  const d = new Date(date);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d;
}

/** A root CA, or with `issuer` an intermediate CA signed by it (chain tests). */
export function createTestCa(options: { name?: string; notBefore?: Date; notAfter?: Date; issuer?: TestCa } = {}): TestCa {
  const name = options.name ?? 'CFE Test CA';
  const keys = generateRsaKeyPem();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKeyPem);
  cert.serialNumber = randomSerialHex();
  cert.validity.notBefore = options.notBefore ?? new Date(Date.now() - 24 * 3600 * 1000);
  cert.validity.notAfter = options.notAfter ?? addYears(cert.validity.notBefore, 10);
  const attrs = [
    { shortName: 'C', value: 'UY' },
    { shortName: 'O', value: 'CFE Test PKI' },
    { shortName: 'OU', value: 'Testing' },
    { shortName: 'CN', value: name },
  ];
  const parent = options.issuer ? forge.pki.certificateFromPem(options.issuer.certPem) : undefined;
  cert.setSubject(attrs);
  cert.setIssuer(parent ? parent.subject.attributes : attrs);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
    ...(parent ? [{ name: 'authorityKeyIdentifier', keyIdentifier: parent.generateSubjectKeyIdentifier().getBytes() }] : []),
  ]);
  cert.sign(forge.pki.privateKeyFromPem(options.issuer?.keyPem ?? keys.privateKeyPem), forge.md.sha256.create());
  return { keyPem: keys.privateKeyPem, certPem: forge.pki.certificateToPem(cert), name };
}

export function issueTestCertificate(ca: TestCa, options: IssueTestCertificateOptions): TestCertificate {
  if (!/^\d{12}$/.test(options.rut)) throw new Error(`RUT must have 12 digits: ${options.rut}`);
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const keys = generateRsaKeyPem();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKeyPem);
  cert.serialNumber = randomSerialHex();
  // Backdated a minute: DGI answered S03 for a CFE signed at the notBefore instant (BRIEF 3).
  cert.validity.notBefore = options.notBefore ?? new Date(Date.now() - 60 * 1000);
  cert.validity.notAfter = options.notAfter ?? addYears(cert.validity.notBefore, 2);
  cert.setSubject([
    { shortName: 'C', value: 'UY' },
    { shortName: 'O', value: options.name },
    { name: 'serialNumber', value: `RUC${options.rut}` },
    { shortName: 'CN', value: options.name },
  ]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    options.signing === false
      ? { name: 'keyUsage', keyEncipherment: true, critical: true }
      : { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.keyPem), forge.md.sha256.create());
  const certPem = forge.pki.certificateToPem(cert);
  const certDer = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  return { keyPem: keys.privateKeyPem, certPem, certDer };
}

/** Packs key + certificate (+ chain) into a PKCS#12 (3DES, readable by OpenSSL 3 without -legacy). */
export function toPkcs12(keyPem: string, certPem: string, password: string, chainPem: string[] = []): Buffer {
  const asn1 = forge.pkcs12.toPkcs12Asn1(
    forge.pki.privateKeyFromPem(keyPem),
    [forge.pki.certificateFromPem(certPem), ...chainPem.map((p) => forge.pki.certificateFromPem(p))],
    password,
    { algorithm: '3des' },
  );
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}

/**
 * A certificate that signed itself, with DGI's subject (serialNumber=RUC<rut>): what DGI answers
 * with E04 "certificate not trusted" (BRIEF 3). Built as a one-certificate CA so it can sign itself.
 */
export function createSelfSignedCertificate(options: { rut: string; name: string }): TestCertificate {
  const keys = generateRsaKeyPem();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKeyPem);
  cert.serialNumber = randomSerialHex();
  cert.validity.notBefore = new Date(Date.now() - 60 * 1000);
  cert.validity.notAfter = addYears(cert.validity.notBefore, 2);
  const attrs = [
    { shortName: 'C', value: 'UY' },
    { shortName: 'O', value: options.name },
    { name: 'serialNumber', value: `RUC${options.rut}` },
    { shortName: 'CN', value: options.name },
  ];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.setExtensions([{ name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true }]);
  cert.sign(forge.pki.privateKeyFromPem(keys.privateKeyPem), forge.md.sha256.create());
  const certDer = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  return { keyPem: keys.privateKeyPem, certPem: forge.pki.certificateToPem(cert), certDer };
}
