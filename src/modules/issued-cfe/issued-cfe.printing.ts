/**
 * The printing block of the issued-CFE view (issuer, receiver, lines, references, with DGI names)
 * read back from the signed XML, so what is shown is exactly what was signed.
 *
 * A small single-pass reader instead of fast-xml-parser: the view is built for every emitir
 * response and the generic parser cost ~0.5 ms of the ~2 ms CPU budget of a receipt (issue 5
 * point 11). It produces the same shape as fast-xml-parser with the options below (attributes
 * ignored, namespace prefixes removed, values as trimmed strings, entity-decoded; repeated names
 * and ARRAY_NAMES become arrays), which issued-cfe.printing.test.ts checks on every CFE type.
 * Anything it does not expect (comments, CDATA, processing instructions) goes to fast-xml-parser.
 */
import { XMLParser } from 'fast-xml-parser';
import { readBackZones, type Cfe } from '../emission/index.js';

const ARRAY_NAMES = ['Item', 'Telefono', 'Referencia', 'RetencPercep', 'CodItem', 'DRG_Item', 'MedioPago'];
const ARRAYS = new Set(ARRAY_NAMES);

export const referenceParser = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true, parseTagValue: false, isArray: (name) => ARRAYS.has(name) });

type Node = Record<string, unknown>;

const ENTITY = /&(?:#(\d+)|#x([0-9a-fA-F]+)|(amp|lt|gt|quot|apos));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decode = (s: string) => (s.includes('&') ? s.replace(ENTITY, (_, dec, hex, name) => (name ? NAMED[name] : String.fromCodePoint(dec ? Number(dec) : parseInt(hex, 16)))) : s);

function add(parent: Node, name: string, value: unknown) {
  const prev = parent[name];
  if (prev === undefined) parent[name] = ARRAYS.has(name) ? [value] : value;
  else if (Array.isArray(prev)) prev.push(value);
  else parent[name] = [prev, value];
}

/** XML text → plain object in fast-xml-parser's shape; undefined when the input is outside what it handles. */
export function readXml(xml: string): Node | undefined {
  if (xml.includes('<!') || /<\?(?!xml\s)/.test(xml)) return undefined;
  const root: Node = {};
  const stack: Array<{ name: string; node: Node; text: string; hasChildren: boolean }> = [{ name: '', node: root, text: '', hasChildren: true }];
  const tag = /<(\/?)(?:[\w.-]+:)?([\w.-]+)[^>]*?(\/?)>|<\?[^>]*\?>/g;
  let last = 0;
  for (let m = tag.exec(xml); m; m = tag.exec(xml)) {
    const top = stack[stack.length - 1];
    if (m.index > last) top.text += xml.slice(last, m.index);
    last = tag.lastIndex;
    if (m[2] === undefined) continue; // the XML declaration
    if (m[1]) {
      const done = stack.pop();
      if (!done || done.name !== m[2] || stack.length === 0) return undefined;
      const parent = stack[stack.length - 1];
      const text = done.text.trim();
      add(parent.node, done.name, done.hasChildren ? done.node : decode(text));
      parent.hasChildren = true;
    } else if (m[3]) {
      add(top.node, m[2], '');
      top.hasChildren = true;
    } else {
      stack.push({ name: m[2], node: {}, text: '', hasChildren: false });
    }
  }
  return stack.length === 1 ? root : undefined;
}

// The zone <Referencia> and its entries <Referencia> share a name, so the zone is read as an array too.
type CfeDoc = {
  CFE: Record<string, {
    Encabezado: Node;
    Detalle?: { Item: unknown[] };
    DscRcgGlobal?: { DRG_Item: unknown[] };
    MediosPago?: { MedioPago: unknown[] };
    Referencia?: Array<{ Referencia?: unknown[] }>;
    Compl_Fiscal?: { Compl_Fiscal_Data?: unknown };
  }>;
};

/**
 * What a receipt prints besides its totals, CAE and QR (issue 5 point 5): the document data
 * (IdDoc: forma de pago, vencimiento, export clauses…), issuer, receiver, lines, global discounts
 * and surcharges, means of payment, references and the mandante of a cuenta ajena, with DGI names.
 */
export function printingBlock(xml: string) {
  const doc = (readXml(xml) ?? referenceParser.parse(xml)) as CfeDoc;
  const branch = Object.entries(doc.CFE).find(([k]) => k !== 'Signature')?.[1];
  return {
    idDoc: (branch?.Encabezado.IdDoc as unknown) ?? null,
    emisor: branch?.Encabezado.Emisor ?? null,
    receptor: branch?.Encabezado.Receptor ?? null,
    detalles: branch?.Detalle?.Item ?? [],
    descuentosRecargos: branch?.DscRcgGlobal?.DRG_Item ?? [],
    mediosPago: branch?.MediosPago?.MedioPago ?? [],
    referencias: branch?.Referencia?.[0]?.Referencia ?? [],
    complementoFiscal: branch?.Compl_Fiscal?.Compl_Fiscal_Data ?? null,
  };
}

/**
 * The same block from the CFE the XML was built from, for the emitir response: the builder's own
 * shapes give what reading its XML back would (issued-cfe.printing.test.ts checks that on every
 * type), without a read of the XML just signed (~25 µs of the event loop per receipt, issue 5 point 11).
 */
export function printingBlockOf(cfe: Cfe): ReturnType<typeof printingBlock> {
  const z = readBackZones(cfe, ARRAYS);
  return {
    idDoc: z.IdDoc,
    emisor: z.Emisor,
    receptor: z.Receptor ?? null,
    detalles: z.Item,
    descuentosRecargos: z.DRG_Item,
    mediosPago: z.MedioPago,
    referencias: z.Referencia,
    complementoFiscal: z.Compl_Fiscal_Data ?? null,
  };
}
