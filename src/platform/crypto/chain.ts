/**
 * Certification path of a signing certificate: from the leaf, through the intermediates a PKCS#12
 * (or an envelope) carries, to a trust anchor (trust-store.ts). Offline: revocation (CRL/OCSP) is
 * not checked. Used at certificate import and by the DGI simulator's E04 check (BRIEF 3).
 * `detail` texts are Spanish: they reach API answers and simulated DGI ACKs.
 */
import { X509Certificate } from 'node:crypto';
import forge from 'node-forge';

export type ChainProblemCode =
  /** The leaf signed itself and is not an anchor. */
  | 'SELF_SIGNED'
  /** No certificate given or trusted has the name of the issuer (an intermediate is missing). */
  | 'ISSUER_MISSING'
  /** The path ends at a self-signed root that is not an anchor. */
  | 'UNTRUSTED_ROOT'
  /** A certificate with the issuer's name is there, but its key did not sign the certificate. */
  | 'BAD_SIGNATURE'
  /** A CA on the path is expired or not yet valid at `at`. */
  | 'CA_NOT_VALID'
  /** The leaf is a CA certificate, or its keyUsage allows neither digitalSignature nor nonRepudiation. */
  | 'NOT_FOR_SIGNING';

export interface ChainProblem {
  code: ChainProblemCode;
  detail: string;
}

export interface ChainCheck {
  /** Leaf first; ends at the anchor when trusted. */
  path: X509Certificate[];
  problem?: ChainProblem;
}

const MAX_DEPTH = 8;
const name = (dn: string) => dn.split('\n').reverse().join(', ');
const validAt = (c: X509Certificate, at: Date) => new Date(c.validFrom) <= at && at <= new Date(c.validTo);

function verifiesWith(c: X509Certificate, key: X509Certificate): boolean {
  try {
    return c.verify(key.publicKey);
  } catch {
    return false;
  }
}

/** `issuer` is a CA whose name, key identifier and key usage fit `c`, and whose key signed `c`. */
const issuedBy = (c: X509Certificate, issuer: X509Certificate) => issuer.ca && c.checkIssued(issuer) && verifiesWith(c, issuer);
const selfSigned = (c: X509Certificate) => c.subject === c.issuer && verifiesWith(c, c);

export function checkChain(leaf: X509Certificate, opts: { anchors: readonly X509Certificate[]; intermediates?: readonly X509Certificate[]; at?: Date }): ChainCheck {
  const at = opts.at ?? new Date();
  const intermediates = opts.intermediates ?? [];
  const anchorPrints = new Set(opts.anchors.map((a) => a.fingerprint256));
  const path = [leaf];
  const done = (): ChainCheck => {
    const stale = path.slice(1).find((c) => !validAt(c, at));
    if (!stale) return { path };
    return { path, problem: { code: 'CA_NOT_VALID', detail: `la autoridad certificadora "${name(stale.subject)}" no está vigente (${stale.validFrom} a ${stale.validTo})` } };
  };
  let current = leaf;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    // A pinned certificate (an anchor that is the leaf itself or an intermediate) ends the path.
    if (anchorPrints.has(current.fingerprint256)) return done();
    const anchor = opts.anchors.find((a) => issuedBy(current, a));
    if (anchor) {
      path.push(anchor);
      return done();
    }
    const next = intermediates.find((i) => !path.some((p) => p.fingerprint256 === i.fingerprint256) && issuedBy(current, i));
    if (!next) break;
    path.push(next);
    current = next;
  }
  if (selfSigned(current)) {
    return current === leaf
      ? { path, problem: { code: 'SELF_SIGNED', detail: `el certificado es autofirmado ("${name(leaf.subject)}"): debe emitirlo una autoridad certificadora acreditada` } }
      : { path, problem: { code: 'UNTRUSTED_ROOT', detail: `la cadena termina en "${name(current.subject)}", que no es una autoridad certificadora de confianza` } };
  }
  if ([...opts.anchors, ...intermediates].some((c) => c.subject === current.issuer && c.fingerprint256 !== current.fingerprint256)) {
    return { path, problem: { code: 'BAD_SIGNATURE', detail: `"${name(current.subject)}" no fue firmado por la clave de "${name(current.issuer)}"` } };
  }
  return { path, problem: { code: 'ISSUER_MISSING', detail: `falta el certificado de "${name(current.issuer)}" (emisor de "${name(current.subject)}"): no está en el archivo ni entre las autoridades de confianza` } };
}

/** keyUsage bits 0 (digitalSignature) and 1 (nonRepudiation), RFC 5280 4.2.1.3. */
export function signingUseProblem(leaf: X509Certificate): ChainProblem | undefined {
  if (leaf.ca) return { code: 'NOT_FOR_SIGNING', detail: 'es el certificado de una autoridad certificadora, no un certificado de firma' };
  let usage: { digitalSignature?: boolean; nonRepudiation?: boolean } | undefined;
  try {
    usage = forge.pki.certificateFromPem(leaf.toString()).getExtension('keyUsage') as typeof usage;
  } catch {
    return undefined; // forge reads RSA certificates only; the import already requires RSA.
  }
  if (usage && !usage.digitalSignature && !usage.nonRepudiation) {
    return { code: 'NOT_FOR_SIGNING', detail: 'su uso de clave (keyUsage) no permite firma digital' };
  }
  return undefined;
}
