/**
 * Envelopes ("sobres", BRIEF 5; FSOB v05; XSD EnvioCFE.xsd / EnvioCFE_entreEmpresas.xsd).
 *
 * The signed CFEs are spliced into the envelope as strings, never parsed and re-serialized: each
 * CFE signature covers the CFE as a standalone document (BRIEF 3), so its bytes must survive
 * verbatim. Only a leading XML declaration (and BOM) is removed, since one cannot appear mid-document.
 * The envelope elements use the `DGICFE` prefix, as DGI's sample envelope does, so the default
 * namespace a CFE declares on itself is never shadowed or duplicated.
 */
import { CFE_NAMESPACE } from './cfe-xml.ts';

/**
 * DGI's RUC as `RutReceptor` of an EnvioCFE, per environment (BRIEF 5):
 * production 214844360018 (subject `serialNumber=RUC214844360018` of DGI's production CAE-signing
 * certificate; WSR's example); testing 219999830019 ("DGI-RUC PRUEBA CEDE", `RUCReceptor` in the
 * 2026 Testing ACKs and in DGI's sample envelope). Keep it configurable: WSR's 2013 Testing example
 * sent the production RUC and was answered.
 */
export const DGI_RUC = {
  production: '214844360018',
  testing: '219999830019',
} as const;
export type DgiEnvironment = keyof typeof DGI_RUC;

/** FSOB / XSD: CantCFE 1..250 (S05 when it does not match). */
export const ENVELOPE_MAX_CFE = 250;
/** FSOB: 2 MB per envelope, the whole document included (S07; WS fault 11). */
export const ENVELOPE_MAX_BYTES = 2 * 1024 * 1024;

export class SobreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SobreError';
  }
}

interface CaratulaInput {
  /** RUC the envelope goes to: DGI_RUC[env] for EnvioCFE, the receiver's RUC between companies. */
  rutReceptor: string;
  rucEmisor: string;
  /** Idemisor: unique, monotonic number per issuer RUC (≤ 10 digits); a resend gives S08/S20. */
  idEmisor: number | string;
  /** Envelope creation date-time with offset (FechaHoraType), e.g. 2026-07-08T18:06:51-03:00. */
  fecha: string;
  /** Base64 DER of the certificate that signed ALL the CFEs (S06 otherwise). */
  certificateDerBase64: string;
}

export interface EnvioCfeInput extends CaratulaInput {
  /** Signed standalone CFE documents, embedded byte for byte (a leading XML declaration is dropped). */
  cfes: string[];
}

export interface EnvioCfeEntreEmpresasItem {
  cfe: string;
  /** Adenda (FCFE zone J, not covered by the signature): free text, XML-escaped into <Adenda>. */
  adenda?: string;
}

export interface EnvioCfeEntreEmpresasInput extends CaratulaInput {
  items: EnvioCfeEntreEmpresasItem[];
}

const P = 'DGICFE';
const XML_DECL = '<?xml version="1.0" encoding="UTF-8"?>';
const DECL_RE = /^\uFEFF?\s*<\?xml[^?]*\?>\s*/;
const CFE_ROOT_RE = /^<(?:[A-Za-z_][\w.-]*:)?CFE[\s>]/;
const FECHA_HORA_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/** A CFE ready for splicing: declaration and BOM removed, otherwise the caller's exact string. */
export function stripXmlDeclaration(cfe: string): string {
  const body = cfe.replace(DECL_RE, '');
  if (!CFE_ROOT_RE.test(body)) throw new SobreError('Each item must be a signed CFE document whose root element is CFE');
  if (!body.includes(CFE_NAMESPACE)) throw new SobreError(`CFE does not declare the namespace ${CFE_NAMESPACE} on itself`);
  return body.trimEnd();
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function checkCaratula(input: CaratulaInput, count: number): void {
  if (!/^\d{12}$/.test(input.rutReceptor)) throw new SobreError(`RutReceptor must be a 12-digit RUC: ${input.rutReceptor}`);
  if (!/^\d{12}$/.test(input.rucEmisor)) throw new SobreError(`RUCEmisor must be a 12-digit RUC: ${input.rucEmisor}`);
  if (!/^\d{1,10}$/.test(String(input.idEmisor))) throw new SobreError(`Idemisor must have 1 to 10 digits: ${input.idEmisor}`);
  if (!FECHA_HORA_RE.test(input.fecha)) throw new SobreError(`Fecha must be a date-time with offset: ${input.fecha}`);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(input.certificateDerBase64)) throw new SobreError('X509Certificate must be base64 DER without line breaks');
  if (count < 1 || count > ENVELOPE_MAX_CFE) throw new SobreError(`An envelope holds 1..${ENVELOPE_MAX_CFE} CFEs, got ${count}`);
}

function caratula(input: CaratulaInput, count: number): string {
  return (
    `<${P}:Caratula version="1.0">` +
    `<${P}:RutReceptor>${input.rutReceptor}</${P}:RutReceptor>` +
    `<${P}:RUCEmisor>${input.rucEmisor}</${P}:RUCEmisor>` +
    `<${P}:Idemisor>${BigInt(input.idEmisor)}</${P}:Idemisor>` +
    `<${P}:CantCFE>${count}</${P}:CantCFE>` +
    `<${P}:Fecha>${input.fecha}</${P}:Fecha>` +
    `<${P}:X509Certificate>${input.certificateDerBase64}</${P}:X509Certificate>` +
    `</${P}:Caratula>`
  );
}

const open = (root: string) => `${XML_DECL}<${P}:${root} xmlns:${P}="${CFE_NAMESPACE}" version="1.0">`;

/** EnvioCFE to DGI: Caratula + the signed CFEs, verbatim. */
export function buildEnvioCfe(input: EnvioCfeInput): string {
  return assembleEnvioCfe(envioCfeHead(input, input.cfes.length), input.cfes);
}

/** What an EnvioCFE holds before its CFEs: declaration, root and Caratula (stored alone: dgi_envelopes.xml_head). */
export function envioCfeHead(input: CaratulaInput, count: number): string {
  checkCaratula(input, count);
  return open('EnvioCFE') + caratula(input, count);
}

/** The EnvioCFE of a head and its CFEs in envelope order: buildEnvioCfe's bytes, rebuilt from what is stored. */
export function assembleEnvioCfe(head: string, cfes: readonly string[]): string {
  return head + cfes.map(stripXmlDeclaration).join('') + `</${P}:EnvioCFE>`;
}

/** EnvioCFE_entreEmpresas to an electronic receiver: each CFE in a CFE_Adenda, with its optional Adenda. */
export function buildEnvioCfeEntreEmpresas(input: EnvioCfeEntreEmpresasInput): string {
  checkCaratula(input, input.items.length);
  const items = input.items.map(
    ({ cfe, adenda }) =>
      `<${P}:CFE_Adenda>${stripXmlDeclaration(cfe)}` +
      (adenda === undefined ? '' : `<${P}:Adenda>${escapeText(adenda)}</${P}:Adenda>`) +
      `</${P}:CFE_Adenda>`,
  );
  return open('EnvioCFE_entreEmpresas') + caratula(input, items.length) + items.join('') + `</${P}:EnvioCFE_entreEmpresas>`;
}

/**
 * Bytes an envelope adds around its CFEs: declaration, root, Caratula with the largest values
 * (10-digit Idemisor, 3-digit CantCFE, Fecha with fraction) and this certificate. For
 * EnvioCFE_entreEmpresas add `CFE_ADENDA_ITEM_OVERHEAD` (+ escaped Adenda) to each CFE's bytes.
 */
export function envelopeOverheadBytes(certificateDerBase64: string, root: 'EnvioCFE' | 'EnvioCFE_entreEmpresas' = 'EnvioCFE'): number {
  const skeleton =
    open(root) +
    caratula({ rutReceptor: '0'.repeat(12), rucEmisor: '0'.repeat(12), idEmisor: '9'.repeat(10), fecha: '2026-12-31T23:59:59.999-03:00', certificateDerBase64 }, 250) +
    `</${P}:${root}>`;
  return Buffer.byteLength(skeleton, 'utf8');
}

/** Per-item wrapper of EnvioCFE_entreEmpresas (`<CFE_Adenda>` + empty `<Adenda>` tags). */
export const CFE_ADENDA_ITEM_OVERHEAD = Buffer.byteLength(`<${P}:CFE_Adenda><${P}:Adenda></${P}:Adenda></${P}:CFE_Adenda>`, 'utf8');

/** Conservative default overhead: skeleton plus an 8 KiB base64 certificate (real ones are ~2-3 KiB). */
export const DEFAULT_ENVELOPE_OVERHEAD_BYTES = envelopeOverheadBytes('A'.repeat(8192));

export interface PlanEnvelopesOptions {
  maxCfe?: number;
  /** Whole-envelope limit, overhead included. */
  maxBytes?: number;
  /** Bytes of the envelope around the CFEs; `envelopeOverheadBytes(cert)` for the exact figure. */
  overheadBytes?: number;
}

/**
 * Splits CFEs (in the given order) into as few consecutive envelopes as the limits allow:
 * at most `maxCfe` per envelope and `overheadBytes + Σ bytes ≤ maxBytes`. `bytes` is the UTF-8
 * size of the CFE as it will be embedded (`Buffer.byteLength(stripXmlDeclaration(xml))`).
 * A CFE that cannot fit even alone is an error: it can never be sent.
 */
export function planEnvelopes<T extends { id: unknown; bytes: number }>(cfes: readonly T[], options: PlanEnvelopesOptions = {}): T[][] {
  const maxCfe = options.maxCfe ?? ENVELOPE_MAX_CFE;
  const maxBytes = options.maxBytes ?? ENVELOPE_MAX_BYTES;
  const overhead = options.overheadBytes ?? DEFAULT_ENVELOPE_OVERHEAD_BYTES;
  if (!Number.isInteger(maxCfe) || maxCfe < 1 || maxCfe > ENVELOPE_MAX_CFE) throw new SobreError(`maxCfe must be 1..${ENVELOPE_MAX_CFE}`);
  const room = maxBytes - overhead;
  const batches: T[][] = [];
  let current: T[] = [];
  let used = 0;
  for (const cfe of cfes) {
    if (!Number.isFinite(cfe.bytes) || cfe.bytes <= 0) throw new SobreError(`CFE ${String(cfe.id)}: invalid size ${cfe.bytes}`);
    if (cfe.bytes > room) {
      throw new SobreError(`CFE ${String(cfe.id)} (${cfe.bytes} bytes) does not fit in an envelope of ${maxBytes} bytes with ${overhead} bytes of overhead`);
    }
    if (current.length === maxCfe || used + cfe.bytes > room) {
      batches.push(current);
      current = [];
      used = 0;
    }
    current.push(cfe);
    used += cfe.bytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Suggested file name (FSOB): Sob_<RUC>_<AAAAMMDD>_<Idemisor>.xml, the date taken from Fecha. */
export function envelopeFileName(rucEmisor: string, fecha: string, idEmisor: number | string): string {
  return `Sob_${rucEmisor}_${fecha.slice(0, 10).replace(/-/g, '')}_${idEmisor}.xml`;
}
