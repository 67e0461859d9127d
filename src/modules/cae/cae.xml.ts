/**
 * Reading a DGI CAE file (BRIEF 10; CAE.xsd / CAEType.xsd): XSD, XMLDSig integrity and the
 * signer's identity. Pure: the caller decides what to do with the findings (validar reports them,
 * importar refuses on the first one).
 */
import { X509Certificate } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { readCertificate } from '../../platform/crypto/pki.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { verifyXmlSignature } from '../emission/signer.js';

/** DGI's own certificates carry these subject serialNumbers (BRIEF 3). */
export const DGI_SIGNER_RUCS = ['RUC214844360018', 'RUC219999830019'];

export interface CaeData {
  rucE: string;
  tipoCfe: number;
  serie: string;
  dNro: number;
  hNro: number;
  ta?: string;
  na: string;
  fa: string;
  fvd: string;
  caeEspecial?: number;
  causalCaeEsp?: number;
  tmstFrma?: string;
}

export interface CaeSigner {
  subject: string;
  issuer: string;
  serialNumber: string;
  notBefore: string;
  notAfter: string;
}

export type CaeProblemCode = 'CAE_RUT_DISTINTO' | 'CAE_XML_INVALIDO' | 'CAE_FIRMA_INVALIDA' | 'CAE_FIRMANTE_NO_CONFIABLE' | 'CAE_RANGO_INVALIDO';

export interface CaeCheck {
  data?: CaeData;
  signer?: CaeSigner;
  problems: Array<{ code: CaeProblemCode; message: string }>;
  warnings: string[];
}

export interface CaeTrust {
  /** Outside production: extra certificates (PEM) trusted as signer or as the signer's issuer (DGI simulator). */
  extraCertificates: string[];
}

const parser = new XMLParser({ removeNSPrefix: true, parseTagValue: false, ignoreAttributes: true, trimValues: true });

export function checkCaeXml(xml: string, trust: CaeTrust): CaeCheck {
  const out: CaeCheck = { problems: [], warnings: [] };
  let root: Record<string, unknown> | undefined;
  try {
    root = (parser.parse(xml) as Record<string, Record<string, unknown>>).CAE;
  } catch (err) {
    out.problems.push({ code: 'CAE_XML_INVALIDO', message: `XML mal formado: ${(err as Error).message}` });
    return out;
  }
  const da = root?.DA as Record<string, string> | undefined;
  if (!root || !da) {
    out.problems.push({ code: 'CAE_XML_INVALIDO', message: 'El documento no tiene el elemento raíz CAE con su bloque DA.' });
    return out;
  }
  const xsd = validateCaeXsd(xml, da.TA === undefined);
  if (!xsd.ok) out.problems.push({ code: 'CAE_XML_INVALIDO', message: `No cumple CAE.xsd: ${xsd.errors.slice(0, 3).join('; ')}` });
  if (da.TA === undefined) out.warnings.push('CAE sin <TA> (formato CAE_v1.1 de 2012): se asume TA=E.');
  out.data = {
    rucE: String(da.RucE ?? ''),
    tipoCfe: Number(da.TCFE),
    serie: String(da.Serie ?? ''),
    dNro: Number(da.DNro),
    hNro: Number(da.HNro),
    ta: da.TA === undefined ? undefined : String(da.TA),
    na: String(da.NA ?? ''),
    fa: String(da.FA ?? ''),
    fvd: String(da.FVD ?? ''),
    caeEspecial: da.CAEEspecial === undefined ? undefined : Number(da.CAEEspecial),
    causalCaeEsp: da.CausalCAEEsp === undefined ? undefined : Number(da.CausalCAEEsp),
    tmstFrma: root.TmstFrma === undefined ? undefined : String(root.TmstFrma),
  };
  const rangeProblem = rangeError(out.data);
  if (rangeProblem) out.problems.push({ code: 'CAE_RANGO_INVALIDO', message: rangeProblem });

  const verified = verifyXmlSignature(xml);
  if (!verified.valid) {
    out.problems.push({ code: 'CAE_FIRMA_INVALIDA', message: `La firma no verifica: ${verified.reason ?? 'motivo desconocido'}.` });
    return out;
  }
  const b64 = /<(?:[\w.-]+:)?X509Certificate>([^<]+)</.exec(xml)?.[1]?.replace(/\s+/g, '');
  const cert = b64 ? new X509Certificate(Buffer.from(b64, 'base64')) : undefined;
  if (!cert) {
    out.problems.push({ code: 'CAE_FIRMANTE_NO_CONFIABLE', message: 'La firma no incluye el certificado de DGI.' });
    return out;
  }
  const info = readCertificate(cert);
  out.signer = { subject: info.subject, issuer: info.issuer, serialNumber: info.serialNumber, notBefore: info.notBefore.toISOString(), notAfter: info.notAfter.toISOString() };
  if (!isTrustedSigner(cert, info.subjectSerialNumber, trust)) {
    out.problems.push({ code: 'CAE_FIRMANTE_NO_CONFIABLE', message: `El firmante (${info.subject}) no es DGI.` });
  }
  return out;
}

/** Manual (paper) CAE data gets the same range checks as a file. */
export function rangeError(d: Pick<CaeData, 'dNro' | 'hNro' | 'fa' | 'fvd'>): string | undefined {
  if (!Number.isInteger(d.dNro) || !Number.isInteger(d.hNro) || d.dNro < 1 || d.hNro < d.dNro) return `Rango inválido: DNro ${d.dNro}, HNro ${d.hNro}.`;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(d.fa) || !/^\d{4}-\d{2}-\d{2}$/.test(d.fvd) || d.fvd < d.fa) return `Fechas inválidas: FA ${d.fa}, FVD ${d.fvd}.`;
  return undefined;
}

/**
 * The 2012 samples (CAE_v1.1) have no <TA>, which today's CAE.xsd requires; BRIEF 10 asks to accept
 * them. The schema check then runs on a copy with TA=E inserted; the signature is checked on the original.
 */
function validateCaeXsd(xml: string, missingTa: boolean) {
  const first = validateXml('CAE', xml);
  if (first.ok || !missingTa) return first;
  const patched = xml.replace(/<([\w.-]+:)?NA>/, (m, prefix: string | undefined) => `<${prefix ?? ''}TA>E</${prefix ?? ''}TA>${m}`);
  return validateXml('CAE', patched);
}

/**
 * Trust (BRIEF 3): DGI signs with certificates whose subject carries serialNumber=RUC214844360018 or
 * RUC219999830019. Chain validation to the PKI Uruguay roots is not done (no root bundle is shipped).
 */
function isTrustedSigner(cert: X509Certificate, subjectSerial: string | undefined, trust: CaeTrust): boolean {
  for (const pem of trust.extraCertificates) {
    const extra = new X509Certificate(pem);
    if (extra.fingerprint256 === cert.fingerprint256) return true;
    if (cert.checkIssued(extra) && cert.verify(extra.publicKey)) return true;
  }
  return subjectSerial !== undefined && DGI_SIGNER_RUCS.includes(subjectSerial);
}
