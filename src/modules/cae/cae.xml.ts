/**
 * Reading a DGI CAE file (BRIEF 10; CAE.xsd / CAEType.xsd): XSD, the DGI rules for its data
 * (cae.rules), XMLDSig integrity and the signer (DGI's certificate, chained to a trusted CA:
 * cae.trust). Pure: the caller decides what to do with the findings (validar reports them,
 * importar refuses on the first one).
 */
import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { XMLParser } from 'fast-xml-parser';
import { readCertificate } from '../../platform/crypto/pki.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { DSIG_NS, verifyXmlSignature } from '../emission/signer.js';
import { isCalendarDate } from '../../lib/dates.js';
import { caeRuleProblems, type CaeRuleProblem } from './cae.rules.js';
import { chainProblem } from './cae.trust.js';

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

export type CaeProblemCode = 'CAE_RUT_DISTINTO' | 'CAE_XML_INVALIDO' | 'CAE_FIRMA_INVALIDA' | 'CAE_FIRMANTE_NO_CONFIABLE' | CaeRuleProblem['code'];

export interface CaeCheck {
  data?: CaeData;
  signer?: CaeSigner;
  problems: Array<{ code: CaeProblemCode; message: string }>;
  warnings: string[];
}

const parser = new XMLParser({ removeNSPrefix: true, parseTagValue: false, ignoreAttributes: true, trimValues: true });

/** `anchors`: PEM certificates the signer must chain to (cae.trust); `today`: the date in Uruguay. */
export function checkCaeXml(xml: string, anchors: readonly string[], today: string): CaeCheck {
  const out: CaeCheck = { problems: [], warnings: [] };
  let root: unknown;
  try {
    root = (parser.parse(xml) as Record<string, unknown>).CAE;
  } catch (err) {
    out.problems.push({ code: 'CAE_XML_INVALIDO', message: `XML mal formado: ${(err as Error).message}` });
    return out;
  }
  const da = isNode(root) ? root.DA : undefined;
  if (!isNode(root) || !isNode(da)) {
    out.problems.push({ code: 'CAE_XML_INVALIDO', message: 'El documento no tiene el elemento raíz CAE con un único bloque DA.' });
    return out;
  }
  const xsd = validateCaeXsd(xml, da.TA === undefined);
  if (!xsd.ok) out.problems.push({ code: 'CAE_XML_INVALIDO', message: `No cumple CAE.xsd: ${xsd.errors.slice(0, 3).join('; ')}` });
  if (da.TA === undefined) out.warnings.push('CAE sin <TA> (formato CAE_v1.1 de 2012): se asume TA=E.');
  const read = readDa(da, root);
  if ('missing' in read) {
    // Without every field there is no data to report (and no NaN in the answer).
    out.problems.push({ code: 'CAE_XML_INVALIDO', message: `Faltan, están repetidos o no son válidos en DA: ${read.missing.join(', ')}.` });
    return out;
  }
  out.data = read.data;
  out.problems.push(...caeRuleProblems(out.data, today));
  if (isCalendarDate(out.data.fvd) && out.data.fvd < today) out.warnings.push(`El CAE venció el ${out.data.fvd}: sus números ya no pueden usarse para emitir.`);

  // The certificate whose trust is judged is the very one the signature is verified with: the first
  // of the root Signature's KeyInfo (any others may be intermediates), never one found elsewhere.
  const [cert, ...intermediates] = signatureCertificates(xml);
  const verified = verifyXmlSignature(xml, cert ? { certificate: cert } : {});
  if (!verified.valid) {
    out.problems.push({ code: 'CAE_FIRMA_INVALIDA', message: `La firma no verifica: ${verified.reason ?? 'motivo desconocido'}.` });
    return out;
  }
  if (!cert) {
    out.problems.push({ code: 'CAE_FIRMANTE_NO_CONFIABLE', message: 'La firma no incluye el certificado de DGI.' });
    return out;
  }
  const info = readCertificate(cert);
  out.signer = { subject: info.subject, issuer: info.issuer, serialNumber: info.serialNumber, notBefore: info.notBefore.toISOString(), notAfter: info.notAfter.toISOString() };
  // BRIEF 3: DGI's certificates carry its RUC as subject serialNumber, and must come from a trusted CA.
  if (info.subjectSerialNumber === undefined || !DGI_SIGNER_RUCS.includes(info.subjectSerialNumber)) {
    out.problems.push({ code: 'CAE_FIRMANTE_NO_CONFIABLE', message: `El firmante (${info.subject}) no es DGI.` });
    return out;
  }
  const signedAt = out.data.tmstFrma && !Number.isNaN(Date.parse(out.data.tmstFrma)) ? new Date(out.data.tmstFrma) : new Date();
  const why = chainProblem(cert, anchors.map((pem) => new X509Certificate(pem)), intermediates, signedAt);
  if (why) out.problems.push({ code: 'CAE_FIRMANTE_NO_CONFIABLE', message: `El firmante no es de confianza: ${why}.` });
  return out;
}

type XmlNode = Record<string, unknown>;
const isNode = (v: unknown): v is XmlNode => typeof v === 'object' && v !== null && !Array.isArray(v);

/** X509Certificate elements of the root's ds:Signature, in order (unreadable ones left out). */
function signatureCertificates(xml: string): X509Certificate[] {
  try {
    const doc = new DOMParser({ onError: () => undefined }).parseFromString(xml, 'text/xml') as unknown as Document;
    let signature: Element | undefined;
    for (let n = doc.documentElement?.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 1 && (n as Element).localName === 'Signature' && (n as Element).namespaceURI === DSIG_NS) signature = n as Element;
    }
    const nodes = signature ? Array.from(signature.getElementsByTagNameNS(DSIG_NS, 'X509Certificate')) : [];
    return nodes.flatMap((el) => {
      try {
        return [new X509Certificate(Buffer.from((el.textContent ?? '').replace(/\s+/g, ''), 'base64'))];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

/** DA's fields, each exactly once (a repeated element parses as an array) and of the right shape. */
function readDa(da: XmlNode, root: XmlNode): { data: CaeData } | { missing: string[] } {
  const missing: string[] = [];
  const text = (name: string, optional = false): string | undefined => {
    const v = da[name];
    if (typeof v === 'string' && v !== '') return v;
    if (!(optional && v === undefined)) missing.push(name);
    return undefined;
  };
  const int = (name: string, optional = false): number | undefined => {
    const v = text(name, optional);
    if (v === undefined) return undefined;
    if (/^\d{1,9}$/.test(v)) return Number(v);
    missing.push(name);
    return undefined;
  };
  const data = {
    rucE: text('RucE'), tipoCfe: int('TCFE'), serie: text('Serie'), dNro: int('DNro'), hNro: int('HNro'), ta: text('TA', true),
    na: text('NA'), fa: text('FA'), fvd: text('FVD'), caeEspecial: int('CAEEspecial', true), causalCaeEsp: int('CausalCAEEsp', true),
    tmstFrma: typeof root.TmstFrma === 'string' ? root.TmstFrma : undefined,
  };
  return missing.length > 0 ? { missing } : { data: data as CaeData };
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
