/**
 * Pulls the signed CFEs out of an envelope (EnvioCFE / EnvioCFE_entreEmpresas) as standalone
 * documents. BRIEF 3: a CFE signature covers the CFE as its own document; verifying it in place
 * fails because inclusive C14N would pull in the envelope's namespace declarations.
 */
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { CFE_NAMESPACE } from './cfe-xml.ts';

export interface EnvelopeCfes {
  /** Base64 DER of Caratula/X509Certificate: the certificate every CFE in the sobre is signed with. */
  certificate?: string;
  cfes: string[];
}

export function extractEnvelopeCfes(envelopeXml: string): EnvelopeCfes {
  const doc = new DOMParser().parseFromString(envelopeXml, 'text/xml');
  const serializer = new XMLSerializer();
  const cfes: string[] = [];
  const list = doc.getElementsByTagNameNS(CFE_NAMESPACE, 'CFE');
  for (let i = 0; i < list.length; i += 1) cfes.push(serializer.serializeToString(list[i]));
  const caratula = doc.getElementsByTagNameNS(CFE_NAMESPACE, 'Caratula')[0];
  const certNode = caratula?.getElementsByTagNameNS(CFE_NAMESPACE, 'X509Certificate')[0];
  const certificate = certNode?.textContent?.replace(/\s+/g, '') || undefined;
  return { certificate, cfes };
}
