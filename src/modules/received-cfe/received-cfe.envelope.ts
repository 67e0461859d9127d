/**
 * Reading and checking an envelope another issuer sent us (EnvioCFE_entreEmpresas, BRIEF 5 and 8).
 * Pure: bytes in, a verdict per envelope (ACKSobre AS/BS with S-codes) and its CFEs' bytes out. The database decides duplicates (S20, E02) afterwards.
 *
 * Checks, in the order DGI's codes are given (ACKSobre motives, DGITypes.xsd RechazoSobreType):
 *  S07 size over 2 MB (FSOB) · S01 not XML, a DOCTYPE (entity expansion is never attempted), another
 *  root · S04 EnvioCFE_entreEmpresas.xsd · S02 RutReceptor is not the company, or the certificate or
 *  a CFE names another issuer · S05 CantCFE differs from the CFEs carried · S03 the Caratula
 *  certificate does not parse or was not valid at the envelope's date · S06 a CFE signed with
 *  another certificate. Per CFE: E05 CFEDGI.xsd, E04 its XMLDSig (against the Caratula certificate).
 */
import { createHash, X509Certificate } from 'node:crypto';
import { ParseOption, XmlDocument, XmlElement } from '../../platform/xml/libxml2.ts';
import { childSpans, rootChildSpans } from '../../platform/xml/standalone-signature.js';
import { validateDocument } from '../../platform/xml/xsd.js';
import { CFE_NAMESPACE, ENVELOPE_MAX_BYTES } from '../emission/index.js';
import { DGI_GLOSAS } from '../emission/dgi-motives.js';
import type { CheckResult, Motive } from './received-cfe.tables.js';

/** ACKSobre motive glosas, verbatim from DGITypes.xsd (RechazoSobreType). */
export const SOBRE_GLOSAS = DGI_GLOSAS;

export interface EnvelopeCfe {
  nroOrdinal: number;
  /** The CFE as a standalone document (BRIEF 3: its signature covers it alone). */
  xml: string;
  adenda: string | null;
  checks: CheckResult[];
  /** BE motives from the format checks; empty = passed them. */
  motivos: Motive[];
}

export interface EnvelopeReading {
  sha256: string;
  estado: 'AS' | 'BS';
  motivos: Motive[];
  checks: CheckResult[];
  rutEmisor: string | null;
  rutReceptor: string | null;
  idemisor: number | null;
  fecha: string | null;
  cantCfe: number | null;
  /** Base64 DER of the Caratula certificate, once it parsed. */
  certificate: string | null;
  cfes: EnvelopeCfe[];
}

/**
 * An envelope's CFEs as the bytes they were sent with and the Caratula's certificate, cut from the
 * text before it is parsed, so that their verification (worker threads) runs while the envelope is
 * parsed and validated. Null when the text does not delimit (readEnvelope's parse then says why).
 * `cfes[i]` is null when the i-th CFE_Adenda has no CFE.
 */
export interface EnvelopeCut {
  cfes: Array<string | null>;
  /** Base64 of the Caratula's X509Certificate as the text writes it (whitespace removed). */
  certificate: string | null;
}

export function cutEnvelope(xml: string): EnvelopeCut | null {
  const spans = rootChildSpans(xml);
  if (!spans) return null;
  const caratula = spans.find((sp) => localName(sp.name) === 'Caratula');
  const certificate = caratula ? /<(?:[\w.-]+:)?X509Certificate>([^<]*)<\//.exec(xml.slice(caratula.start, caratula.end))?.[1].replace(/\s+/g, '') || null : null;
  const cfes = spans.filter((sp) => localName(sp.name) === 'CFE_Adenda').map((item) => {
    const cfe = (childSpans(xml, item.start) ?? []).find((sp) => localName(sp.name) === 'CFE');
    return cfe ? standaloneCfe(xml.slice(cfe.start, cfe.end), cfe.name) : null;
  });
  return { cfes, certificate };
}

const motive = (codigo: string, detalle?: string): Motive => ({ codigo, glosa: SOBRE_GLOSAS[codigo], detalle: detalle?.slice(0, 500) ?? null });

/** DGI's samples are ISO-8859-1 (BRIEF 5); the declaration says which. */
export function decodeXmlBytes(bytes: Buffer): string {
  const head = bytes.subarray(0, 200).toString('latin1');
  const enc = /^\s*<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/i.exec(head)?.[1]?.toLowerCase();
  const latin = enc === 'iso-8859-1' || enc === 'latin1' || enc === 'windows-1252';
  const text = bytes.toString(latin ? 'latin1' : 'utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export function hasDoctype(xml: string): boolean {
  return /<!DOCTYPE|<!ENTITY/i.test(xml);
}

function certificateChecks(b64: string | null, rutEmisor: string | null, fecha: string | null): { cert?: X509Certificate; error?: Motive } {
  if (!b64) return { error: motive('S03', 'La carátula no trae X509Certificate.') };
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(Buffer.from(b64.replace(/\s+/g, ''), 'base64'));
  } catch {
    return { error: motive('S03', 'El certificado de la carátula no se puede leer.') };
  }
  const at = fecha ? new Date(fecha) : new Date();
  if (!(at >= new Date(cert.validFrom) && at <= new Date(cert.validTo))) {
    return { cert, error: motive('S03', `El certificado no estaba vigente a la fecha del sobre (vigencia ${cert.validFrom} - ${cert.validTo}).`) };
  }
  // Uruguayan signing certificates carry the RUC in the subject's serialNumber (RUC21...).
  const subjectRuc = /serialNumber=(?:RUC)?(\d{12})/i.exec(cert.subject)?.[1];
  if (subjectRuc && rutEmisor && subjectRuc !== rutEmisor) {
    return { cert, error: motive('S02', `El certificado es del RUT ${subjectRuc}, el sobre dice RUCEmisor ${rutEmisor}.`) };
  }
  return { cert };
}

/**
 * Reads and checks one envelope for the company whose RUT is `companyRut`. `onCut` is handed the
 * envelope's CFEs as soon as they are cut from the text, before the envelope's parse and checks; the
 * CFEs the reading returns are those very strings (compare them to use what was started with them).
 */
export function readEnvelope(bytes: Buffer, companyRut: string, onCut?: (cut: EnvelopeCut) => void): EnvelopeReading {
  const reading: EnvelopeReading = {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    estado: 'BS', motivos: [], checks: [], rutEmisor: null, rutReceptor: null, idemisor: null, fecha: null, cantCfe: null, certificate: null, cfes: [],
  };
  const fail = (control: string, m: Motive) => {
    reading.checks.push({ control, ok: false, codigo: m.codigo, detalle: m.detalle ?? undefined });
    reading.motivos.push(m);
    // A BS envelope is refused whole: none of its CFEs is registered, not even those read before the
    // one that failed (S02/S06 are found CFE by CFE).
    reading.cfes = [];
    return reading;
  };
  const pass = (control: string) => reading.checks.push({ control, ok: true });

  if (bytes.length > ENVELOPE_MAX_BYTES) return fail('tamano', motive('S07', `${bytes.length} bytes; el máximo es ${ENVELOPE_MAX_BYTES}.`));
  pass('tamano');
  const xml = decodeXmlBytes(bytes);
  if (hasDoctype(xml)) return fail('formato', motive('S01', 'El documento trae DOCTYPE o entidades: no se procesa.'));
  const cut = cutEnvelope(xml);
  if (cut && onCut) onCut(cut);
  // One libxml2 parse (from the bytes, so libxml2 honours the declared encoding) serves the XSD check
  // and the reading of the Caratula and each CFE; xmldom built a second DOM (~1 ms a CFE).
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromBuffer(bytes, { option: PARSE_OPTIONS });
  } catch (err) {
    return fail('formato', motive('S01', `No es XML bien formado: ${(err as Error).message}`));
  }
  try {
    return readParsed(doc, cut, companyRut, reading, fail, pass);
  } finally {
    doc.dispose();
  }
}

// No network, no entity expansion (a DOCTYPE is refused before parsing); COMPACT only saves allocations.
const PARSE_OPTIONS = ParseOption.XML_PARSE_NONET | ParseOption.XML_PARSE_COMPACT;
const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';

function readParsed(
  doc: XmlDocument, cut: EnvelopeCut | null, companyRut: string, reading: EnvelopeReading,
  fail: (control: string, m: Motive) => EnvelopeReading, pass: (control: string) => void,
): EnvelopeReading {
  const root = doc.root;
  if (root.name !== 'EnvioCFE_entreEmpresas' || root.namespaceUri !== CFE_NAMESPACE) {
    return fail('formato', motive('S01', `La raíz es ${root.name}, no EnvioCFE_entreEmpresas.`));
  }
  pass('formato');
  const caratula = child(root, 'Caratula');
  reading.rutReceptor = childText(caratula, 'RutReceptor');
  reading.rutEmisor = childText(caratula, 'RUCEmisor');
  const idemisor = childText(caratula, 'Idemisor');
  reading.idemisor = idemisor && /^\d{1,10}$/.test(idemisor) ? Number(idemisor) : null;
  reading.fecha = childText(caratula, 'Fecha');
  const cant = childText(caratula, 'CantCFE');
  reading.cantCfe = cant && /^\d{1,3}$/.test(cant) ? Number(cant) : null;

  // EnvioCFE_entreEmpresas.xsd types each CFE as CFEDefType, the type CFEDGI.xsd gives a lone CFE:
  // this one validation is also every CFE's (a CFE that fails it makes the envelope S04).
  const xsd = validateDocument('EnvioCFE_entreEmpresas', doc);
  if (!xsd.ok) return fail('xsd_sobre', motive('S04', xsd.errors.slice(0, 3).join('; ')));
  pass('xsd_sobre');
  if (reading.rutReceptor !== companyRut) return fail('rut_receptor', motive('S02', `El sobre es para el RUT ${reading.rutReceptor}, no para ${companyRut}.`));
  pass('rut_receptor');

  const items = children(root).filter((e) => e.name === 'CFE_Adenda' && e.namespaceUri === CFE_NAMESPACE);
  if (items.length !== reading.cantCfe) return fail('cantidad', motive('S05', `CantCFE ${reading.cantCfe}, el sobre trae ${items.length}.`));
  pass('cantidad');
  const certB64 = childText(caratula, 'X509Certificate');
  const cert = certificateChecks(certB64, reading.rutEmisor, reading.fecha);
  if (cert.error) return fail('certificado', cert.error);
  pass('certificado');
  reading.certificate = certB64!.replace(/\s+/g, '');

  // Each CFE is cut out of the text as the bytes it was sent with (BRIEF 3: its signature covers it as a
  // standalone document), never re-serialised from a DOM (which would change CR, U+0085, U+2028...).
  for (let i = 0; i < items.length; i += 1) {
    const cfeEl = child(items[i], 'CFE');
    const adendaEl = child(items[i], 'Adenda');
    const text = cut?.cfes.length === items.length ? cut.cfes[i] : null;
    if (!cfeEl || !text) return fail('formato', motive('S04', `El elemento CFE_Adenda ${i + 1} no trae CFE.`));
    const cfe: EnvelopeCfe = { nroOrdinal: i + 1, xml: text, adenda: adendaEl?.content ?? null, checks: [], motivos: [] };
    reading.cfes.push(cfe);
    // S02: every CFE is the envelope issuer's (the XSD fixed the path: CFE/<branch>/Encabezado/Emisor/RUCEmisor).
    const branch = children(cfeEl).find((e) => e.namespaceUri === CFE_NAMESPACE && e.name !== 'Signature');
    const ruc = childText(child(child(branch, 'Encabezado'), 'Emisor'), 'RUCEmisor');
    if (ruc !== reading.rutEmisor) return fail('rut_emisor_cfe', motive('S02', `El CFE ${i + 1} es del RUT ${ruc}, el sobre de ${reading.rutEmisor}.`));
    // S06: the certificate in the CFE's KeyInfo must be the Caratula's.
    const keyInfoCert = child(child(child(cfeEl, 'Signature', DSIG_NS), 'KeyInfo', DSIG_NS), 'X509Data', DSIG_NS);
    const keyInfoB64 = childText(keyInfoCert, 'X509Certificate', DSIG_NS)?.replace(/\s+/g, '');
    if (keyInfoB64 && keyInfoB64 !== reading.certificate) return fail('certificado_cfe', motive('S06', `El CFE ${i + 1} está firmado con otro certificado.`));
  }
  pass('rut_emisor_cfe');
  pass('certificado_cfe');
  reading.estado = 'AS';
  return reading;
}

function children(parent: XmlElement | undefined): XmlElement[] {
  const out: XmlElement[] = [];
  for (let n = parent?.firstChild; n; n = n.next) if (n instanceof XmlElement) out.push(n);
  return out;
}
function child(parent: XmlElement | undefined, name: string, ns = CFE_NAMESPACE): XmlElement | undefined {
  for (let n = parent?.firstChild; n; n = n.next) if (n instanceof XmlElement && n.name === name && n.namespaceUri === ns) return n;
  return undefined;
}
const childText = (parent: XmlElement | undefined, name: string, ns = CFE_NAMESPACE) => child(parent, name, ns)?.content.trim() || null;

const localName = (qname: string) => qname.slice(qname.indexOf(':') + 1);

/**
 * The CFE's bytes as a document of its own. A CFE written with a prefix, or relying on a default
 * namespace declared by the envelope, gets that declaration on its start tag (what it had when it was
 * signed alone); one carrying its own declaration is left byte for byte.
 */
function standaloneCfe(text: string, qname: string): string {
  const tagEnd = text.indexOf('>');
  const prefix = qname.includes(':') ? qname.slice(0, qname.indexOf(':')) : '';
  const decl = prefix ? `xmlns:${prefix}=` : 'xmlns=';
  if (text.slice(0, tagEnd).includes(decl)) return text;
  const at = 1 + qname.length;
  return `${text.slice(0, at)} ${decl}"${CFE_NAMESPACE}"${text.slice(at)}`;
}

/**
 * For a lone CFE (no Caratula): DGI's CFEs name their certificate only by X509IssuerSerial (BRIEF 3;
 * CFEType.xsd: it must be the one "incluido en el EnvioCFE"), so it is looked for in the Caratula of
 * envelopes this issuer already sent the company. Returns the base64 DER whose serial matches, if any.
 */
export function caratulaCertificateFor(cfeXml: string, envelopes: Buffer[]): string | undefined {
  const serial = /<(?:\w+:)?X509SerialNumber>\s*(\d{1,80})\s*</.exec(cfeXml)?.[1];
  if (!serial) return undefined;
  for (const bytes of envelopes) {
    // The Caratula comes first: the first X509Certificate of an envelope is its certificate.
    const b64 = /<(?:\w+:)?X509Certificate>\s*([A-Za-z0-9+/=\s]+?)\s*<\//.exec(decodeXmlBytes(bytes))?.[1]?.replace(/\s+/g, '');
    try {
      if (b64 && BigInt(`0x${new X509Certificate(Buffer.from(b64, 'base64')).serialNumber}`) === BigInt(serial)) return b64;
    } catch {
      // Not a certificate: look further.
    }
  }
  return undefined;
}
