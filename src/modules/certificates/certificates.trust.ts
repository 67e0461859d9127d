/**
 * Is a company signing certificate from an accredited CA? (BRIEF 3: DGI answers E04 "certificate not
 * trusted" to CFEs signed otherwise; issue 27 point 5.) Anchors: the built-in Uruguayan store
 * (resources/trust/uy), CERT_TRUST_ANCHORS and, in DGI_MODE=simulator only, the in-process
 * simulator's test CA, so its sandbox certificates import without a warning there and never in real mode.
 */
import { X509Certificate } from 'node:crypto';
import { checkChain, signingUseProblem, type ChainProblem, type ChainProblemCode } from '../../platform/crypto/chain.js';
import { builtInTrustAnchors, loadTrustAnchors, TrustStoreError } from '../../platform/crypto/trust-store.js';

/** A trust finding as the API shows it: `advertencias` in simulator mode, the 422 code in real mode. */
export interface TrustWarning {
  codigo: TrustCode;
  mensaje: string;
}

export type TrustCode =
  | 'CERTIFICADO_AUTOFIRMADO'
  | 'CERTIFICADO_CADENA_INCOMPLETA'
  | 'CERTIFICADO_CA_NO_CONFIABLE'
  | 'CERTIFICADO_CADENA_INVALIDA'
  | 'CERTIFICADO_CA_NO_VIGENTE'
  | 'CERTIFICADO_USO_NO_FIRMA';

const CODES: Record<ChainProblemCode, TrustCode> = {
  SELF_SIGNED: 'CERTIFICADO_AUTOFIRMADO',
  ISSUER_MISSING: 'CERTIFICADO_CADENA_INCOMPLETA',
  UNTRUSTED_ROOT: 'CERTIFICADO_CA_NO_CONFIABLE',
  BAD_SIGNATURE: 'CERTIFICADO_CADENA_INVALIDA',
  CA_NOT_VALID: 'CERTIFICADO_CA_NO_VIGENTE',
  NOT_FOR_SIGNING: 'CERTIFICADO_USO_NO_FIRMA',
};

const NEXT_STEP =
  'DGI rechaza con E04 los CFE firmados con un certificado que no emitió una autoridad certificadora acreditada en Uruguay ' +
  '(Correo Uruguayo, Abitab ID digital, Ministerio del Interior…). Use un certificado de un prestador acreditado, incluya en el .p12 ' +
  'los certificados intermedios, o agregue la autoridad certificadora con la variable CERT_TRUST_ANCHORS.';

function warning(p: ChainProblem): TrustWarning {
  const text = p.code === 'NOT_FOR_SIGNING' ? `El certificado no sirve para firmar: ${p.detail}.` : `El certificado no es de confianza: ${p.detail}. ${NEXT_STEP}`;
  return { codigo: CODES[p.code], mensaje: text };
}

export interface CertificateTrust {
  /** DGI_MODE=real: a finding refuses the import (422). Simulator mode: it is stored and shown. */
  readonly enforce: boolean;
  /** Findings on the leaf's use and its path to an anchor; empty when trusted. */
  check(certificatePem: string, chainPem: readonly string[], at?: Date): Promise<TrustWarning[]>;
}

export function createCertificateTrust(opts: { mode: 'real' | 'simulator'; extraAnchorsPath?: string; simulatorCa?: () => Promise<string | undefined> }): CertificateTrust {
  let extra: X509Certificate[] = [];
  if (opts.extraAnchorsPath) {
    try {
      extra = loadTrustAnchors(opts.extraAnchorsPath);
    } catch (err) {
      if (err instanceof TrustStoreError) throw new TrustStoreError(`CERT_TRUST_ANCHORS: ${err.message}`);
      throw err;
    }
  }
  const fixed = [...builtInTrustAnchors(), ...extra];
  let simulatorAnchor: { pem: string; cert: X509Certificate } | undefined;
  async function anchors(): Promise<X509Certificate[]> {
    if (opts.mode !== 'simulator' || !opts.simulatorCa) return fixed;
    const pem = await opts.simulatorCa();
    if (!pem) return fixed;
    if (simulatorAnchor?.pem !== pem) simulatorAnchor = { pem, cert: new X509Certificate(pem) };
    return [...fixed, simulatorAnchor.cert];
  }
  return {
    enforce: opts.mode === 'real',
    async check(certificatePem, chainPem, at = new Date()) {
      const leaf = new X509Certificate(certificatePem);
      const found: ChainProblem[] = [];
      const use = signingUseProblem(leaf);
      if (use) found.push(use);
      const chain = checkChain(leaf, { anchors: await anchors(), intermediates: chainPem.map((p) => new X509Certificate(p)), at });
      if (chain.problem) found.push(chain.problem);
      return found.map(warning);
    },
  };
}
