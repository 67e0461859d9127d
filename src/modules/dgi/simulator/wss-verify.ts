/**
 * Server-side WS-Security check, as DGI's DataPower front does it (BRIEF §6; WSDL policy
 * sp:SignedParts/sp:Body): the request must carry wsse:Security with a BinarySecurityToken and a
 * ds:Signature whose references include soapenv:Body, verified with the token's certificate.
 */
import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { ParseOption, XmlDocument } from 'libxml2-wasm';
import { SignedXml } from 'xml-crypto';
import { SOAP_ENV_NS, xml10LineSeparatorsAsReferences } from '../dgi.soap.ts';
import { base64ToPem } from './xmldsig.ts';

const WSSE_NS = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
const WSU_NS = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';

export type WssResult =
  | { ok: true; certificatePem: string; certificate: X509Certificate; document: Document }
  | { ok: false; reason: string; document: Document | null };

export function verifyWsSecurity(request: string): WssResult {
  // XML 1.0 reading of U+0085/U+2028/U+2029 for xmldom (dgi.soap.ts): the same characters.
  const xml = xml10LineSeparatorsAsReferences(request);
  let document: Document;
  try {
    document = new DOMParser().parseFromString(xml, 'text/xml') as unknown as Document;
  } catch (error) {
    return { ok: false, reason: `malformed request: ${(error as Error).message}`, document: null };
  }
  const security = document.getElementsByTagNameNS(WSSE_NS, 'Security')[0];
  if (!security) return { ok: false, reason: 'No signature in message!', document };
  const token = security.getElementsByTagNameNS(WSSE_NS, 'BinarySecurityToken')[0];
  const signature = security.getElementsByTagNameNS(DSIG_NS, 'Signature')[0];
  if (!token || !signature) return { ok: false, reason: 'No signature in message!', document };
  const body = document.getElementsByTagNameNS(SOAP_ENV_NS, 'Body')[0];
  const bodyId = body?.getAttributeNS(WSU_NS, 'Id');
  if (!bodyId) return { ok: false, reason: 'soapenv:Body carries no wsu:Id', document };

  let certificatePem: string;
  let certificate: X509Certificate;
  try {
    certificatePem = base64ToPem(token.textContent ?? '');
    certificate = new X509Certificate(certificatePem);
  } catch {
    return { ok: false, reason: 'BinarySecurityToken is not an X.509 certificate', document };
  }
  const uris = Array.from(signature.getElementsByTagNameNS(DSIG_NS, 'Reference')).map((r) => r.getAttribute('URI'));
  if (!uris.includes(`#${bodyId}`)) return { ok: false, reason: 'signature does not cover soapenv:Body', document };
  try {
    const verifier = new SignedXml({ publicCert: certificatePem, getCertFromKeyInfo: () => null });
    verifier.loadSignature(signature as unknown as Node);
    if (!verifier.checkSignature(xml)) return { ok: false, reason: 'signature does not verify', document };
  } catch (error) {
    return { ok: false, reason: (error as Error).message, document };
  }
  const now = Date.now();
  if (Date.parse(certificate.validFrom) > now || Date.parse(certificate.validTo) < now) {
    return { ok: false, reason: 'certificate outside its validity period', document };
  }
  return { ok: true, certificatePem, certificate, document };
}

/** Text of the first `xmlData` under the Body's operation element (Datain/xmlData, BRIEF §6). */
export function bodyOperation(document: Document): { operation: string; namespace: string | null; body: Element } | null {
  const body = document.getElementsByTagNameNS(SOAP_ENV_NS, 'Body')[0];
  const op = body ? Array.from(body.childNodes).find((n) => n.nodeType === 1) : undefined;
  if (!op) return null;
  const element = op as Element;
  return { operation: element.localName ?? '', namespace: element.namespaceURI, body: element };
}

export function childText(parent: Element, localName: string): string | null {
  const found = Array.from(parent.getElementsByTagName('*')).find((e) => e.localName === localName);
  return found ? (found.textContent ?? '') : null;
}

/**
 * Datain/xmlData read by libxml2 from the request's bytes: the payload exactly as an XML 1.0
 * parser reads it. xmldom (the DOM above) reads U+0085, U+2028 and U+2029 as line ends, which
 * changed a CFE's text, and so its digest, before the simulated DGI looked at it.
 */
export function xmlDataOf(request: string): string | null {
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromString(request, { option: ParseOption.XML_PARSE_NONET });
  } catch {
    return null;
  }
  try {
    return doc.get('/*[local-name()="Envelope"]/*[local-name()="Body"]/*[1]//*[local-name()="xmlData"]')?.content ?? null;
  } finally {
    doc.dispose();
  }
}
