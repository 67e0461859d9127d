/**
 * Tiny SOAP 1.1 helper shared by the hand-built clients (RUT lookup, BCU) and the simulator.
 *
 * Why hand-built for RUT and BCU: there is no authoritative WSDL for either in the repo, each has a
 * single operation, and a guessed WSDL would pretend to be a contract. WS_eFactura, which has DGI's
 * real WSDL, goes through the `soap` library (dgi.soap-client.ts). WS-Security signing is the same
 * `WSSecurityCert` in both paths, so DGI sees identical headers.
 */
import { createPrivateKey, randomUUID, type KeyObject } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { WSSecurityCert } from 'soap';
import type { WsSecurityCredentials } from './dgi.client.ts';
import { signWsSecurity } from './dgi.wss-sign.ts';

export const SOAP_ENV_NS = 'http://schemas.xmlsoap.org/soap/envelope/';

const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const SHA1 = 'http://www.w3.org/2000/09/xmldsig#sha1';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';

export function escapeXml(value: string): string {
  return value.replace(/[<>&"']/g, (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' }[c]};`);
}

/** `<soapenv:Envelope>` with an empty Header (WSSecurityCert inserts wsse:Security there). */
export function soapEnvelope(body: string, extraNs: Record<string, string> = {}): string {
  const ns = Object.entries(extraNs)
    .map(([prefix, uri]) => ` xmlns:${prefix}="${uri}"`)
    .join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${SOAP_ENV_NS}"${ns}>` +
    `<soapenv:Header></soapenv:Header><soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`
  );
}

/**
 * WS-Security as DGI's examples show it (BRIEF §6): BinarySecurityToken, exclusive C14N, a single
 * Reference to soapenv:Body by wsu:Id, no Timestamp. `idMode: 'wssecurity'` is required, otherwise
 * the lib writes an unqualified Id that DataPower rejects (STACK.md 4h).
 */
export function createWsSecurity(credentials: WsSecurityCredentials): WSSecurityCert {
  const sha256 = credentials.algorithm === 'sha256';
  const security = new WSSecurityCert(credentials.privateKeyPem, credentials.certificatePem, '', {
    hasTimeStamp: false,
    signatureAlgorithm: sha256 ? RSA_SHA256 : RSA_SHA1,
    digestAlgorithm: sha256 ? SHA256 : SHA1,
    signatureTransformations: [EXC_C14N],
    signerOptions: { prefix: 'ds', idMode: 'wssecurity' },
  });
  // soap 1.x's postProcess still calls xml-crypto's deprecated getOriginalXmlWithIds(), whose
  // DeprecationWarning (XML_CRYPTO_GET_ORIGINAL_XML_WITH_IDS) names an API we never call and an
  // operator cannot act on; the signatures it makes are verified by xmlsec1 in the tests. Only
  // that call runs with deprecation notices off (util.deprecate reads the flag when first called).
  const postProcess = security.postProcess.bind(security);
  const algorithms = { signature: sha256 ? RSA_SHA256 : RSA_SHA1, digest: sha256 ? SHA256 : SHA1 };
  const tokenId = `x509-${randomUUID().replace(/-/g, '')}`;
  // Read once, at the first request (a key that does not parse fails that request, as before).
  let privateKey: KeyObject | undefined;
  security.postProcess = (xml: string, envelopeKey: string) => {
    // The same header made on the request's bytes (dgi.wss-sign.ts); the library for what that does not take.
    privateKey ??= createPrivateKey(credentials.privateKeyPem);
    const signed = signWsSecurity(xml, envelopeKey, { ...credentials, privateKey }, algorithms, tokenId);
    if (signed !== null) return signed;
    const before = process.noDeprecation;
    process.noDeprecation = true;
    try {
      return postProcess(xml10LineSeparatorsAsReferences(xml), envelopeKey);
    } finally {
      process.noDeprecation = before;
    }
  };
  return security;
}

const XML11_LINE_ENDS = /[\u0085\u2028\u2029]/g;

/**
 * The signer and the simulator read SOAP messages with xmldom, which treats raw U+0085, U+2028
 * and U+2029 as line ends (XML 1.1 §2.11); XML 1.0, and so DGI, reads them as themselves. The
 * signer re-serialises the message, so a CFE holding one left as a line feed (changing its bytes
 * after it was signed: E04). As character references they are the same characters to XML 1.0
 * and xmldom reads them as such. Used only on messages we build, where they sit in text or
 * attribute values, never in comments or CDATA.
 */
export function xml10LineSeparatorsAsReferences(xml: string): string {
  return xml.replace(XML11_LINE_ENDS, (c) => `&#x${c.charCodeAt(0).toString(16).toUpperCase()};`);
}

/** Signs an envelope built with `soapEnvelope` (envelope prefix `soapenv`). */
export function signEnvelope(envelope: string, security: WSSecurityCert): string {
  return security.postProcess(envelope, 'soapenv');
}

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  ignoreDeclaration: true,
});

export function parseXmlLoose(xml: string): Record<string, unknown> {
  return parser.parse(xml) as Record<string, unknown>;
}

/** Body's first child of a SOAP response, namespace prefixes removed. */
export function soapBody(xml: string): Record<string, unknown> | null {
  const doc = parseXmlLoose(xml);
  const envelope = doc.Envelope as Record<string, unknown> | undefined;
  const body = envelope?.Body;
  return body && typeof body === 'object' ? (body as Record<string, unknown>) : null;
}

export interface SoapFault {
  faultcode: string;
  faultstring: string;
  /** GenericFault/Respuestas/Respuesta/Codigo (ExcepcionesServicios.xsd), when DGI sent one. */
  codigo: number | null;
  descripcion: string | null;
  detalle: string | null;
}

function findKey(node: unknown, key: string): unknown {
  if (!node || typeof node !== 'object') return undefined;
  for (const [k, v] of Object.entries(node)) {
    if (k.toLowerCase() === key) return v;
    const inner = findKey(v, key);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

const asText = (v: unknown): string | null => (v === undefined || v === null || typeof v === 'object' ? null : String(v));

/** Parses a SOAP 1.1 Fault; `null` when the body carries none. Tolerates Codigo/codigo casing. */
export function parseSoapFault(xml: string): SoapFault | null {
  let body: Record<string, unknown> | null;
  try {
    body = soapBody(xml);
  } catch {
    return null;
  }
  const fault = body?.Fault as Record<string, unknown> | undefined;
  if (!fault) return null;
  const detail = fault.detail ?? fault.Detail;
  const codigo = asText(findKey(detail, 'codigo'));
  const faultstring = asText(fault.faultstring) ?? '';
  const fromString = /^\s*(\d{1,3})\b/.exec(faultstring)?.[1] ?? null;
  return {
    faultcode: asText(fault.faultcode) ?? '',
    faultstring,
    codigo: codigo !== null && /^\d+$/.test(codigo) ? Number(codigo) : fromString ? Number(fromString) : null,
    descripcion: asText(findKey(detail, 'descripcion')),
    detalle: asText(findKey(detail, 'detalle')),
  };
}

/** Server side: a fault shaped like DGI's (GenericFault/Respuestas/Respuesta, BRIEF §6). */
export function soapFaultXml(codigo: number, descripcion: string, detalle = '', faultcode = 'soapenv:Client'): string {
  return soapEnvelope(
    `<soapenv:Fault><faultcode>${faultcode}</faultcode><faultstring>${escapeXml(descripcion)}</faultstring>` +
      `<detail><GenericFault><Respuestas><Respuesta><Codigo>${codigo}</Codigo>` +
      `<Descripcion>${escapeXml(descripcion)}</Descripcion><Detalle>${escapeXml(detalle)}</Detalle>` +
      `</Respuesta></Respuestas></GenericFault></detail></soapenv:Fault>`,
  );
}
