/**
 * The simulator's own test PKI: a CA, DGI's signing certificate and company certificates with
 * `serialNumber=RUC<rut>` (the subject attribute DGI checks for S02, BRIEF §3).
 * Local helper because platform/crypto/pki.ts had not landed when this was written; keys come
 * from node:crypto (fast) and node-forge only builds the X.509 and PKCS#12 structures.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface TestKeyPair {
  privateKeyPem: string;
  certificatePem: string;
}

export interface TestCa extends TestKeyPair {
  name: string;
}

function newKeys(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f; // positive INTEGER
  return bytes.toString('hex');
}

function validity(cert: forge.pki.Certificate, years: number): void {
  // Backdated one day: DGI rejected signatures made exactly at notBefore (S03, BRIEF §3).
  cert.validity.notBefore = new Date(Date.now() - 24 * 3600 * 1000);
  cert.validity.notAfter = new Date(Date.now() + years * 365 * 24 * 3600 * 1000);
}

export function createTestCa(name = 'CFE Simulator Test CA'): TestCa {
  const keys = newKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKeyPem);
  cert.serialNumber = serial();
  validity(cert, 10);
  const attrs = [
    { shortName: 'C', value: 'UY' },
    { shortName: 'O', value: 'Simulador DGI' },
    { shortName: 'CN', value: name },
  ];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keys.privateKeyPem), forge.md.sha256.create());
  return { name, privateKeyPem: keys.privateKeyPem, certificatePem: forge.pki.certificateToPem(cert) };
}

/** A persona jurídica certificate as PKI Uruguay issues them: subject carries serialNumber=RUC<rut>. */
export function issueTestCertificate(ca: TestCa, subject: { rut: string; name: string }): TestKeyPair {
  const keys = newKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKeyPem);
  cert.serialNumber = serial();
  validity(cert, 2);
  cert.setSubject([
    { shortName: 'C', value: 'UY' },
    { shortName: 'O', value: subject.name },
    { name: 'serialNumber', value: `RUC${subject.rut}` },
    { shortName: 'CN', value: subject.name },
  ]);
  cert.setIssuer(forge.pki.certificateFromPem(ca.certificatePem).subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, keyEncipherment: true },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.privateKeyPem), forge.md.sha256.create());
  return { privateKeyPem: keys.privateKeyPem, certificatePem: forge.pki.certificateToPem(cert) };
}

/** PKCS#12 (3DES, widely readable) with key, certificate and CA chain. */
export function toPkcs12(pair: TestKeyPair, password: string, caPem?: string): Buffer {
  const chain = [forge.pki.certificateFromPem(pair.certificatePem)];
  if (caPem) chain.push(forge.pki.certificateFromPem(caPem));
  const asn1 = forge.pkcs12.toPkcs12Asn1(forge.pki.privateKeyFromPem(pair.privateKeyPem), chain, password, {
    algorithm: '3des',
  });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}
