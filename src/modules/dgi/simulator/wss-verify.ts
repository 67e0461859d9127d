/**
 * Server-side WS-Security check, as DGI's DataPower front does it (BRIEF §6; WSDL policy
 * sp:SignedParts/sp:Body): the request must carry wsse:Security with a BinarySecurityToken and a
 * ds:Signature whose references include soapenv:Body, verified with the token's certificate.
 *
 * The request is read once, by libxml2 (the parser and C14N of xmlsec1, as for the CFEs in
 * platform/xml/standalone-signature.ts): its exclusive C14N of each referenced element and of
 * SignedInfo, digests and the RSA check by node:crypto. xml-crypto parsed the ~1 MB request twice
 * with xmldom (and xmldom read U+0085/U+2028 as line ends); issue 29 measured it at ~9 % of the
 * embedded default's main thread. The operation's leaf values (xmlData, Rut, …) come from the same
 * parse: the payload exactly as an XML 1.0 parser reads it.
 */
import { createHash, verify, X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { XmlC14NMode, XmlDocument, XmlElement } from '../../../platform/xml/libxml2.ts';
import { SignedXml } from 'xml-crypto';
import { SOAP_ENV_NS, xml10LineSeparatorsAsReferences } from '../dgi.soap.ts';
import { certificateOf, DIGEST_HASH, parseXmlText, SIGNATURE_HASH } from '../../../platform/xml/standalone-signature.ts';
import { base64ToPem } from './xmldsig.ts';

const WSSE_NS = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
const WSU_NS = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';

/** The Body's operation element: its name and the text of its leaf descendants (first of each local name). */
export interface BodyOperation {
  operation: string;
  namespace: string | null;
  texts: Map<string, string>;
}

export type WssResult =
  | { ok: true; certificatePem: string; certificate: X509Certificate; operation: BodyOperation | null }
  | { ok: false; reason: string };

const children = (parent: XmlElement): XmlElement[] => {
  const out: XmlElement[] = [];
  for (let n = parent.firstChild; n; n = n.next) if (n instanceof XmlElement) out.push(n);
  return out;
};
const child = (parent: XmlElement | undefined, ns: string, name: string) =>
  parent ? children(parent).find((e) => e.name === name && e.namespaceUri === ns) : undefined;
const descendants = (root: XmlElement, visit: (e: XmlElement) => void) => {
  for (const e of children(root)) {
    visit(e);
    descendants(e, visit);
  }
};
const algorithmOf = (el: XmlElement | undefined): string => el?.attr('Algorithm')?.value ?? '';
const exclusive = (el: XmlElement) => el.canonicalizeToString({ mode: XmlC14NMode.XML_C14N_EXCLUSIVE_1_0 });
/** wsu:Id (what the soap library writes with idMode 'wssecurity'), else an unqualified Id. */
const idOf = (el: XmlElement): string | undefined =>
  (el.attrs.find((a) => a.name === 'Id' && a.namespaceUri === WSU_NS) ?? el.attrs.find((a) => a.name === 'Id' && !a.namespaceUri))?.value;

export function verifyWsSecurity(request: string): WssResult {
  if (/<!DOCTYPE/i.test(request)) return { ok: false, reason: 'malformed request: DOCTYPE not allowed' };
  let doc: XmlDocument;
  try {
    doc = parseXmlText(request);
  } catch (error) {
    return { ok: false, reason: `malformed request: ${(error as Error).message}` };
  }
  try {
    const root = doc.root;
    if (root.name !== 'Envelope' || root.namespaceUri !== SOAP_ENV_NS) return { ok: false, reason: 'not a SOAP 1.1 Envelope' };
    const security = child(child(root, SOAP_ENV_NS, 'Header'), WSSE_NS, 'Security');
    const token = child(security, WSSE_NS, 'BinarySecurityToken');
    const signature = child(security, DSIG_NS, 'Signature');
    if (!token || !signature) return { ok: false, reason: 'No signature in message!' };
    const body = child(root, SOAP_ENV_NS, 'Body');
    const bodyId = body && idOf(body);
    if (!body || !bodyId) return { ok: false, reason: 'soapenv:Body carries no wsu:Id' };

    let certificatePem: string;
    let certificate: X509Certificate;
    try {
      certificatePem = base64ToPem(token.content);
      certificate = certificateOf(token.content);
    } catch {
      return { ok: false, reason: 'BinarySecurityToken is not an X.509 certificate' };
    }
    const signedInfo = child(signature, DSIG_NS, 'SignedInfo');
    const signatureValue = child(signature, DSIG_NS, 'SignatureValue');
    if (!signedInfo || !signatureValue) return { ok: false, reason: 'Signature without SignedInfo or SignatureValue' };
    if (algorithmOf(child(signedInfo, DSIG_NS, 'CanonicalizationMethod')) !== EXC_C14N) return { ok: false, reason: 'CanonicalizationMethod is not exclusive C14N' };
    const signatureHash = SIGNATURE_HASH[algorithmOf(child(signedInfo, DSIG_NS, 'SignatureMethod'))];
    if (!signatureHash) return { ok: false, reason: 'SignatureMethod not supported' };
    const references = children(signedInfo).filter((e) => e.name === 'Reference' && e.namespaceUri === DSIG_NS);
    const uris = references.map((r) => r.attr('URI')?.value ?? '');
    if (!uris.includes(`#${bodyId}`)) return { ok: false, reason: 'signature does not cover soapenv:Body' };

    let checked: string | null;
    try {
      checked = checkWithLibxml2(root, signedInfo, signatureValue, references, uris, signatureHash, certificate);
    } catch (error) {
      // libxml2's C14N refuses relative namespace URIs (C14N 1.0 §2; DGI's RUT service declares
      // xmlns:dgi="DGI_Modernizacion_Consolidado"): those requests, small and rare, go through xml-crypto.
      if ((error as Error).message !== 'Failed to canonicalize XML document') throw error;
      checked = checkWithXmlCrypto(request, certificatePem);
    }
    if (checked) return { ok: false, reason: checked };
    const now = Date.now();
    if (Date.parse(certificate.validFrom) > now || Date.parse(certificate.validTo) < now) {
      return { ok: false, reason: 'certificate outside its validity period' };
    }
    return { ok: true, certificatePem, certificate, operation: bodyOperation(body) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  } finally {
    doc.dispose();
  }
}

/** The digests of the references and the signature over SignedInfo; the reason when one fails. */
function checkWithLibxml2(root: XmlElement, signedInfo: XmlElement, signatureValue: XmlElement, references: XmlElement[], uris: string[], signatureHash: string, certificate: X509Certificate): string | null {
  const byId = new Map<string, XmlElement>();
  descendants(root, (e) => {
    const id = idOf(e);
    if (id !== undefined) byId.set(id, e);
  });
  for (const [i, reference] of references.entries()) {
    const target = uris[i].startsWith('#') ? byId.get(uris[i].slice(1)) : undefined;
    if (!target) return `reference ${uris[i]} not found`;
    const transforms = children(child(reference, DSIG_NS, 'Transforms') ?? reference).filter((e) => e.name === 'Transform').map(algorithmOf);
    if (transforms.some((t) => t !== EXC_C14N)) return `reference ${uris[i]}: transform not supported`;
    const digestHash = DIGEST_HASH[algorithmOf(child(reference, DSIG_NS, 'DigestMethod'))];
    if (!digestHash) return 'DigestMethod not supported';
    const expected = (child(reference, DSIG_NS, 'DigestValue')?.content ?? '').trim();
    if (createHash(digestHash).update(exclusive(target), 'utf8').digest('base64') !== expected) {
      return `invalid signature: the digest of ${uris[i]} does not match`;
    }
  }
  const signatureBytes = Buffer.from(signatureValue.content.replace(/\s+/g, ''), 'base64');
  return verify(signatureHash, Buffer.from(exclusive(signedInfo), 'utf8'), certificate.publicKey, signatureBytes) ? null : 'signature does not verify';
}

/** xml-crypto's check (xmldom, with XML 1.0's reading of U+0085/U+2028/U+2029, dgi.soap.ts); the reason when it fails. */
function checkWithXmlCrypto(request: string, certificatePem: string): string | null {
  const xml = xml10LineSeparatorsAsReferences(request);
  const document = new DOMParser().parseFromString(xml, 'text/xml') as unknown as Document;
  const signature = document.getElementsByTagNameNS(DSIG_NS, 'Signature')[0];
  const verifier = new SignedXml({ publicCert: certificatePem, getCertFromKeyInfo: () => null });
  verifier.loadSignature(signature as unknown as Node);
  return verifier.checkSignature(xml) ? null : 'signature does not verify';
}

function bodyOperation(body: XmlElement): BodyOperation | null {
  const op = children(body)[0];
  if (!op) return null;
  const texts = new Map<string, string>();
  descendants(op, (e) => {
    if (!texts.has(e.name) && !children(e).length) texts.set(e.name, e.content);
  });
  return { operation: op.name, namespace: op.namespaceUri || null, texts };
}
