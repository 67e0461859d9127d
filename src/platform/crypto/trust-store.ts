/**
 * Trust anchors for company signing certificates (BRIEF 3: a certificate from a CA accredited under
 * PKI Uruguay). The built-in store is resources/trust/uy/*.pem (sources in its SOURCE.md); operators
 * add the CAs it lacks (Abitab ID digital, renewed CAs) with CERT_TRUST_ANCHORS, read at startup.
 */
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUILT_IN_TRUST_DIR = fileURLToPath(new URL('../../../resources/trust/uy/', import.meta.url));

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const CERT_FILE = /\.(pem|crt|cer|der)$/i;

export class TrustStoreError extends Error {}

/** Every certificate in one file: PEM blocks (comment lines around them are ignored), else one DER. */
export function readCertificateFile(file: string): X509Certificate[] {
  const bytes = fs.readFileSync(file);
  const blocks = bytes.toString('latin1').match(PEM_BLOCK);
  try {
    return blocks ? blocks.map((b) => new X509Certificate(b)) : [new X509Certificate(bytes)];
  } catch (err) {
    throw new TrustStoreError(`${file}: not a certificate (PEM or DER): ${(err as Error).message}`);
  }
}

/** A file, or every *.pem/*.crt/*.cer/*.der of a folder (not recursive). Throws TrustStoreError. */
export function loadTrustAnchors(fileOrDir: string): X509Certificate[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(fileOrDir);
  } catch {
    throw new TrustStoreError(`${fileOrDir}: no such file or folder`);
  }
  if (!stat.isDirectory()) return readCertificateFile(fileOrDir);
  const files = fs.readdirSync(fileOrDir).filter((f) => CERT_FILE.test(f)).sort();
  if (files.length === 0) throw new TrustStoreError(`${fileOrDir}: no .pem/.crt/.cer/.der file in the folder`);
  return files.flatMap((f) => readCertificateFile(path.join(fileOrDir, f)));
}

let builtIn: X509Certificate[] | undefined;

/** The accredited Uruguayan CAs shipped with the service (read once). */
export function builtInTrustAnchors(): X509Certificate[] {
  builtIn ??= loadTrustAnchors(BUILT_IN_TRUST_DIR);
  return builtIn;
}
