/**
 * Unsigned CFE XML, written directly as a string already in inclusive-C14N form (W3C
 * REC-xml-c14n-20010315 §2: no XML declaration, start+end tags for empty elements, namespace
 * declaration before attributes, text escaping of & < > and \r). That lets the template signer
 * digest the bytes as they are, with no DOM parse on the hot path (STACK.md 4b).
 */
import { getCfeType } from './cfe-types.ts';
import type { Cfe } from './cfe.model.ts';
import {
  CAE_DATA,
  COMPL_FISCAL_DATA,
  DRG_ITEM,
  EMISOR,
  ID_DOC,
  ITEM,
  MEDIO_PAGO,
  RECEPTOR,
  REFERENCIA,
  STI_ITEM,
  TOTALES,
  ZONES,
  type Shape,
} from './cfe-xml-schema.ts';

export const CFE_NAMESPACE = 'http://cfe.dgi.gub.uy';

export class CfeXmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CfeXmlError';
  }
}

// Characters XML 1.0 cannot carry at all (§2.2), so no escaping can make them signable.
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const NEEDS_ESCAPE = /[&<>\r]/;

/** Text-node escaping exactly as C14N writes it (REC-xml-c14n §2.3, "Text Nodes"). */
export function escapeC14nText(value: string): string {
  if (INVALID_XML_CHARS.test(value)) throw new CfeXmlError(`Text contains characters not allowed in XML: ${JSON.stringify(value)}`);
  if (!NEEDS_ESCAPE.test(value)) return value;
  // One pass per character, without a callback per match: an EnvioCFE of ~1 MB (the DGI client's xmlData) in ~10 ms.
  const text = value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return text.includes('\r') ? text.replace(/\r/g, '&#xD;') : text;
}

function leafText(name: string, value: unknown): string {
  if (typeof value === 'string') return escapeC14nText(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new CfeXmlError(`${name}: expected a string or finite number, got ${typeof value}`);
}

type Node = Record<string, unknown>;

function writeShape(out: string[], node: Node, shape: Shape, typeName: string): void {
  let known = 0;
  for (const field of shape) {
    const name = typeof field === 'string' ? field : field[0];
    const value = node[name];
    if (value === undefined || value === null) continue;
    known += 1;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (typeof field === 'string') {
        out.push(`<${name}>`, leafText(name, v), `</${name}>`);
      } else {
        out.push(`<${name}>`);
        writeShape(out, v as Node, field[1], name);
        out.push(`</${name}>`);
      }
    }
  }
  // A property the branch's XSD type does not have would be silently lost: fail instead.
  let defined = 0;
  for (const key in node) if (node[key] !== undefined && node[key] !== null) defined += 1;
  if (defined !== known) {
    const allowed = new Set(shape.map((f) => (typeof f === 'string' ? f : f[0])));
    const extra = Object.keys(node).filter((k) => node[k] !== undefined && node[k] !== null && !allowed.has(k));
    throw new CfeXmlError(`${typeName}: ${extra.join(', ')} not allowed here by the XSD`);
  }
}

function writeList(out: string[], wrapper: string, element: string, list: readonly object[] | undefined, shape: Shape): void {
  if (!list || list.length === 0) return;
  out.push(`<${wrapper}>`);
  for (const entry of list) {
    out.push(`<${element}>`);
    writeShape(out, entry as Node, shape, element);
    out.push(`</${element}>`);
  }
  out.push(`</${wrapper}>`);
}

/**
 * The unsigned CFE for any branch, canonical, with the DGI namespace declared on CFE
 * (BRIEF 3: each CFE is signed as a standalone document). Append the Signature with signer.ts.
 */
export function buildCfeXml(cfe: Cfe): string {
  const { branch } = getCfeType(cfe.IdDoc.TipoCFE);
  const zones = ZONES[branch];
  if (!zones.dscRcgMediosPago && (cfe.DscRcgGlobal?.length || cfe.MediosPago?.length)) {
    throw new CfeXmlError(`${branch} has no DscRcgGlobal/MediosPago zone`);
  }
  if (!zones.complFiscal && cfe.Compl_Fiscal) throw new CfeXmlError(`${branch} has no Compl_Fiscal zone`);

  const out: string[] = [`<CFE xmlns="${CFE_NAMESPACE}" version="1.0"><${branch}><TmstFirma>`, leafText('TmstFirma', cfe.TmstFirma), '</TmstFirma><Encabezado><IdDoc>'];
  writeShape(out, cfe.IdDoc as unknown as Node, ID_DOC[branch], 'IdDoc');
  out.push('</IdDoc><Emisor>');
  writeShape(out, cfe.Emisor as unknown as Node, EMISOR, 'Emisor');
  out.push('</Emisor>');
  if (cfe.Receptor) {
    out.push('<Receptor>');
    writeShape(out, cfe.Receptor as unknown as Node, RECEPTOR[branch], 'Receptor');
    out.push('</Receptor>');
  }
  out.push('<Totales>');
  writeShape(out, cfe.Totales as unknown as Node, TOTALES[branch], 'Totales');
  out.push('</Totales></Encabezado>');
  writeList(out, 'Detalle', 'Item', cfe.Detalle, ITEM[branch]);
  writeList(out, 'SubTotInfo', 'STI_Item', cfe.SubTotInfo, STI_ITEM);
  writeList(out, 'DscRcgGlobal', 'DRG_Item', cfe.DscRcgGlobal, DRG_ITEM);
  writeList(out, 'MediosPago', 'MedioPago', cfe.MediosPago, MEDIO_PAGO);
  writeList(out, 'Referencia', 'Referencia', cfe.Referencia, REFERENCIA);
  out.push('<CAEData>');
  writeShape(out, cfe.CAEData as unknown as Node, CAE_DATA, 'CAEData');
  out.push('</CAEData>');
  if (cfe.Compl_Fiscal) {
    out.push('<Compl_Fiscal><Compl_Fiscal_Data>');
    writeShape(out, cfe.Compl_Fiscal as unknown as Node, COMPL_FISCAL_DATA, 'Compl_Fiscal_Data');
    out.push('</Compl_Fiscal_Data></Compl_Fiscal>');
  }
  out.push(`</${branch}></CFE>`);
  return out.join('');
}

// Anything escapeC14nText escapes or refuses.
const NOT_PLAIN = /[&<>\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/** A leaf as an XML reader returns it: the element's text trimmed, then entity-decoded. */
function readBackText(name: string, value: unknown): string {
  // Most leaves have nothing to escape: escaping, trimming and decoding is then a trim.
  if (typeof value === 'string' && !NOT_PLAIN.test(value)) return value.trim();
  const text = leafText(name, value).trim();
  return text.includes('&') ? text.replace(/&(amp|lt|gt|#xD);/g, (_, e: string) => (e === 'amp' ? '&' : e === 'lt' ? '<' : e === 'gt' ? '>' : '\r')) : text;
}

function readBackValue(name: string, field: Shape[number], value: unknown, arrays: ReadonlySet<string>): unknown {
  return typeof field === 'string' ? readBackText(name, value) : readBackShape(value as Node, field[1], arrays);
}

// Emission builds this block for every response (issue 5 point 11): no array per single-valued field.
function readBackShape(node: Node, shape: Shape, arrays: ReadonlySet<string>): Node | '' {
  let out: Node | undefined;
  for (const field of shape) {
    const name = typeof field === 'string' ? field : field[0];
    const value = node[name];
    if (value === undefined || value === null) continue;
    let read: unknown;
    if (Array.isArray(value)) {
      if (value.length === 0) continue;
      const list = value.map((v) => readBackValue(name, field, v, arrays));
      read = arrays.has(name) || list.length > 1 ? list : list[0];
    } else {
      const one = readBackValue(name, field, value, arrays);
      read = arrays.has(name) ? [one] : one;
    }
    (out ??= {})[name] = read;
  }
  return out ?? '';
}

/**
 * The IdDoc, Emisor, Receptor, Items, DscRcgGlobal and MediosPago lines, Referencias and
 * Compl_Fiscal_Data of `cfe` exactly as reading back the XML that
 * buildCfeXml writes would give them (namespace-free names in XSD order, values as trimmed,
 * entity-decoded text, an element without content as '', repeated elements and the `arrays`
 * names as arrays), without writing or parsing any XML: the emitir response prints from it.
 */
export function readBackZones(cfe: Cfe, arrays: ReadonlySet<string>) {
  const { branch } = getCfeType(cfe.IdDoc.TipoCFE);
  const list = (entries: readonly object[] | undefined, shape: Shape) => (entries ?? []).map((e) => readBackShape(e as Node, shape, arrays));
  return {
    IdDoc: readBackShape(cfe.IdDoc as unknown as Node, ID_DOC[branch], arrays),
    Emisor: readBackShape(cfe.Emisor as unknown as Node, EMISOR, arrays),
    Receptor: cfe.Receptor ? readBackShape(cfe.Receptor as unknown as Node, RECEPTOR[branch], arrays) : undefined,
    Item: list(cfe.Detalle, ITEM[branch]),
    DRG_Item: list(cfe.DscRcgGlobal, DRG_ITEM),
    MedioPago: list(cfe.MediosPago, MEDIO_PAGO),
    Referencia: list(cfe.Referencia, REFERENCIA),
    Compl_Fiscal_Data: cfe.Compl_Fiscal ? readBackShape(cfe.Compl_Fiscal as unknown as Node, COMPL_FISCAL_DATA, arrays) : undefined,
  };
}

/**
 * Totales with its keys in the XSD order of the type's branch (the order of the XML), then any
 * others: a jsonb column gives them back sorted by length, which reads badly in a response.
 */
export function totalesInXsdOrder<T extends object>(tipoCFE: number, totales: T): T {
  const order = TOTALES[getCfeType(tipoCFE).branch];
  const source = totales as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of order) {
    const name = typeof field === 'string' ? field : field[0];
    if (name in source) out[name] = source[name];
  }
  for (const key of Object.keys(source)) if (!(key in out)) out[key] = source[key];
  return out as T;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/**
 * TmstFirma as DGI writes it, `YYYY-MM-DDTHH:MM:SS-03:00` (zone H). Uruguay has used UTC−3 all
 * year since DST was abolished in 2015, so the default offset is fixed rather than looked up.
 */
export function formatTmstFirma(date: Date, offsetMinutes = -180): string {
  const local = new Date(date.getTime() + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return (
    `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}
