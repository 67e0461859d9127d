/**
 * Who may sign a CAE file (BRIEF 3, 10): a certificate with DGI's subject serialNumber that chains
 * to a trusted certification authority. The subject alone proves nothing: anyone can make a
 * self-signed certificate with `serialNumber=RUC214844360018` (DGI itself answers such a signer with
 * E04 "certificate not trusted", BRIEF 3).
 *
 * Anchors: the built-in "Correo Uruguayo - CA" below (the CA of every DGI signer in
 * test/fixtures/dgi/cae, 2012-2016), the PEM file named by CAE_TRUST_ANCHORS (a newer DGI
 * CA, Abitab, the PKI Uruguay root...) and, outside production in DGI_MODE=simulator, the in-process
 * simulator's CA. Revocation (CRL/OCSP) is not checked: a CAE is checked offline, at import.
 */
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BUILT_IN_TRUST_DIR } from '../../platform/crypto/trust-store.js';

export interface CaeTrust {
  /** PEM certificates a CAE signer must chain to (a CA) or be (a pinned signer certificate). */
  anchors(): Promise<readonly string[]>;
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate of a PEM bundle; throws when there is none or one does not parse. */
export function parsePemBundle(text: string, source: string): string[] {
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw new Error(`${source}: no PEM certificate found`);
  for (const b of blocks) {
    try {
      new X509Certificate(b);
    } catch (err) {
      throw new Error(`${source}: unreadable certificate: ${(err as Error).message}`);
    }
  }
  return blocks;
}

/**
 * "Correo Uruguayo - CA" (issuer "Correo Uruguayo - Root CA"), valid 2008-07-15 to 2030-12-31: the CA
 * of every DGI signer in test/fixtures/dgi/cae (the certificates of RUC214844360018, 2016, and
 * RUC219999830019, 2012, are signed by this key). One copy, in the trust store that also anchors
 * company certificates; its source and fingerprint are in resources/trust/uy/SOURCE.md.
 */
export const CORREO_URUGUAYO_CA_PEM = parsePemBundle(
  fs.readFileSync(path.join(BUILT_IN_TRUST_DIR, 'correo-uruguayo-ca-2008.pem'), 'utf8'),
  'resources/trust/uy/correo-uruguayo-ca-2008.pem',
)[0]!;

/**
 * The trust used by the CAE service. Read at startup: a bad CAE_TRUST_ANCHORS file stops the
 * process. `simulatorCa` is asked on each check (the simulator starts lazily).
 */
export function createCaeTrust(opts: { anchorsFile?: string; simulatorCa?: () => Promise<string | undefined> }): CaeTrust {
  const fixed = [CORREO_URUGUAYO_CA_PEM, ...(opts.anchorsFile ? parsePemBundle(fs.readFileSync(opts.anchorsFile, 'utf8'), `CAE_TRUST_ANCHORS (${opts.anchorsFile})`) : [])];
  return {
    async anchors() {
      const sim = await opts.simulatorCa?.();
      return sim ? [...fixed, sim] : fixed;
    },
  };
}

const validAt = (c: X509Certificate, at: Date) => new Date(c.validFrom) <= at && at <= new Date(c.validTo);
const signedBy = (c: X509Certificate, issuer: X509Certificate) => issuer.ca && c.checkIssued(issuer) && c.verify(issuer.publicKey);

/**
 * Builds a path from `leaf` to an anchor through `intermediates` (other certificates in the file).
 * Every certificate on the path must be valid at `at` (the signing time, TmstFrma: a CAE stays
 * valid after DGI's certificate expires, as the samples show). Returns why not, or undefined.
 */
export function chainProblem(leaf: X509Certificate, anchors: readonly X509Certificate[], intermediates: readonly X509Certificate[], at: Date): string | undefined {
  if (!validAt(leaf, at)) return `el certificado no estaba vigente al firmar (${at.toISOString()}; vigencia ${leaf.validFrom} a ${leaf.validTo})`;
  let current = leaf;
  const used = new Set([leaf.fingerprint256]);
  for (let depth = 0; depth < 6; depth++) {
    if (anchors.some((a) => a.fingerprint256 === current.fingerprint256)) return undefined;
    if (anchors.some((a) => validAt(a, at) && signedBy(current, a))) return undefined;
    const next = intermediates.find((i) => !used.has(i.fingerprint256) && validAt(i, at) && signedBy(current, i));
    if (!next) break;
    used.add(next.fingerprint256);
    current = next;
  }
  return `el certificado (emitido por ${leaf.issuer.replace(/\n/g, ', ')}) no encadena con una autoridad de certificación de confianza`;
}
