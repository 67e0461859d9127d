/**
 * Reading a receiver's answer (BRIEF 8): ACKSobre (envelope receipt, AS/BS, S01-S07/S20) or ACKCFE
 * per ACKCFE_Partes.xsd (per-CFE AE/BE, E02-E07, E10-E12, E20-E60). Checks, in order: root, XSD,
 * enveloped XMLDSig with the certificate carried in KeyInfo, and that the signing certificate is
 * the receiver's own (its subject RUC, when it has one, equals Caratula/RUCReceptor).
 *
 * CE ("observado") is outside ACKCFE_Partes.xsd's Estado enumeration but spec 6 #11 names a
 * receiver-observed event; a CE detail is accepted: the XSD check runs on a copy where CE reads BE
 * (same structure, motives included), everything else is validated as sent.
 */
import { X509Certificate } from 'node:crypto';
import { validateXml } from '../../platform/xml/xsd.js';
import { parseAckCfe, parseAckSobre, AckParseError } from '../dgi/dgi.acks.js';
import type { AckCfe, AckSobre } from '../dgi/dgi.client.js';
import { verifyXmlSignature } from '../emission/index.js';
import { receiverErrors as E } from './receiver-exchange.errors.js';

export type ReceiverAck = { tipo: 'ACKSobre'; ack: AckSobre } | { tipo: 'ACKCFE'; ack: AckCfe };

const ROOT_RE = /^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:[A-Za-z_][\w.-]*:)?(ACKSobre|ACKCFE)[\s>]/;

function signerRuc(xml: string): string | undefined {
  const b64 = /<(?:\w+:)?X509Certificate>\s*([A-Za-z0-9+/=\s]+?)\s*<\/(?:\w+:)?X509Certificate>/.exec(xml)?.[1];
  if (!b64) return undefined;
  try {
    const cert = new X509Certificate(Buffer.from(b64.replace(/\s+/g, ''), 'base64'));
    return /(?:^|\n|,)\s*serialNumber=(?:RUC)?(\d{12})/i.exec(cert.subject)?.[1] ?? /\b(\d{12})\b/.exec(cert.subject)?.[1];
  } catch {
    return undefined;
  }
}

export function readReceiverAck(xml: string): ReceiverAck {
  const root = ROOT_RE.exec(xml)?.[1] as 'ACKSobre' | 'ACKCFE' | undefined;
  if (!root) throw E.RESPUESTA_RECEPTOR_INVALIDA('La respuesta debe ser un documento ACKSobre o ACKCFE.');
  // Unsigned answers are refused as such (the XSD would only say "Signature expected").
  if (!/<(?:\w+:)?Signature[\s>]/.test(xml)) throw E.RESPUESTA_RECEPTOR_FIRMA('La respuesta del receptor no está firmada (XMLDSig).');
  const forXsd = root === 'ACKCFE' ? xml.replace(/(<(?:\w+:)?Estado>)\s*CE\s*(<\/(?:\w+:)?Estado>)/g, '$1BE$2') : xml;
  const xsd = validateXml(root === 'ACKSobre' ? 'ACKSobre' : 'ACKCFE_Partes', forXsd);
  if (!xsd.ok) throw E.RESPUESTA_RECEPTOR_INVALIDA(`La respuesta no cumple ${root === 'ACKSobre' ? 'ACKSobre.xsd' : 'ACKCFE_Partes.xsd'}: ${xsd.errors.slice(0, 3).join('; ')}`, { errores: xsd.errors });
  const signature = verifyXmlSignature(xml);
  if (!signature.valid) throw E.RESPUESTA_RECEPTOR_FIRMA(`La firma de la respuesta del receptor no es válida: ${signature.reason}.`);
  let parsed: ReceiverAck;
  try {
    // The DGI variant of the parser admits CE; the XSD above already limited Estado to AE/BE/CE.
    parsed = root === 'ACKSobre' ? { tipo: 'ACKSobre', ack: parseAckSobre(xml) } : { tipo: 'ACKCFE', ack: { ...parseAckCfe(xml, 'DGI'), variant: 'Partes' } };
  } catch (err) {
    if (err instanceof AckParseError) throw E.RESPUESTA_RECEPTOR_INVALIDA(`La respuesta del receptor no se pudo leer: ${err.message}.`);
    throw err;
  }
  const ruc = signerRuc(xml);
  if (ruc && ruc !== parsed.ack.caratula.RUCReceptor) {
    throw E.RESPUESTA_RECEPTOR_FIRMA(`La respuesta está firmada con el certificado del RUT ${ruc}, no del receptor ${parsed.ack.caratula.RUCReceptor}.`);
  }
  return parsed;
}
