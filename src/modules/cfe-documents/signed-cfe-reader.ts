/**
 * Signed CFE XML → CFE model, so the printed representation is drawn from exactly the bytes that
 * were signed (BRIEF 3: the stored XML is the fiscal document; the row's columns are only an index).
 * The inverse of emission/cfe-xml.ts: element names are the model's property names; only the
 * repeated elements and the integer-typed ones need to be known here.
 */
import { XMLParser, type MatcherView } from 'fast-xml-parser';
import type { Cfe } from '../emission/index.js';

/** Elements that may repeat (arrays in the model). */
const REPEATED = new Set(['Telefono', 'CodItem', 'SubDescuento', 'SubRecargo', 'RetencPercep', 'Item', 'STI_Item', 'DRG_Item', 'MedioPago', 'Referencia']);

/** Integer-typed elements (numbers in the model); every other leaf stays a string (decimals never become floats). */
const INTEGERS = new Set([
  'TipoCFE', 'Nro', 'MntBruto', 'FmaPago', 'ModVenta', 'ViaTransp', 'TipoTraslado', 'IndPropiedad', 'TipoDocProp', 'IVAalDia', 'SecProf',
  'IndPagCta3ros', 'IndCobPropia', 'IndCompraMEReventa', 'CdgDGISucur', 'TipoDocRecep', 'CantLinDet', 'NroLinDet', 'IndFact', 'DescTipo',
  'RecargoTipo', 'NroSTI', 'OrdenSTI', 'NroLinDR', 'TpoDR', 'CodDR', 'IndFactDR', 'NroLinMP', 'CodMP', 'OrdenMP', 'NroLinRef', 'IndGlobal',
  'TpoDocRef', 'NroCFERef', 'DNro', 'HNro', 'CAEEspecial', 'CausalCAEEsp', 'TipoDocMdte',
]);

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: false,
  // Callbacks get the parser's path object, not its text: with `jPath: true` the path was joined into a
  // string for every element (~20 % of a CFE's read in received-CFE intake), though only isArray looks at it.
  jPath: false,
  // <Referencia> is both the wrapper (CFE.<branch>.Referencia, depth 3) and its repeated entry.
  isArray: (name, path) => REPEATED.has(name) && !(name === 'Referencia' && (path as MatcherView).getDepth() === 3),
  tagValueProcessor: (name, value) => (INTEGERS.has(name) ? Number(value) : value),
});

export class SignedCfeReadError extends Error {}

type Node = Record<string, unknown>;

/** Reads the CFE model back from a signed (or unsigned) CFE document of any branch. */
export function readSignedCfe(xml: string): Cfe {
  const doc = parser.parse(xml) as { CFE?: Node };
  const root = doc.CFE;
  if (!root || typeof root !== 'object') throw new SignedCfeReadError('not a CFE document');
  const branchName = Object.keys(root).find((k) => k !== 'Signature' && typeof root[k] === 'object');
  if (!branchName) throw new SignedCfeReadError('CFE without a branch element');
  const b = root[branchName] as Node & { Encabezado: Node };
  const enc = b.Encabezado;
  const list = <T>(wrapper: string, element: string): T[] | undefined => {
    const w = b[wrapper] as Node | undefined;
    return w && typeof w === 'object' ? (w[element] as T[] | undefined) : undefined;
  };
  const cfe: Cfe = {
    TmstFirma: String(b.TmstFirma),
    IdDoc: enc.IdDoc as unknown as Cfe['IdDoc'],
    Emisor: enc.Emisor as unknown as Cfe['Emisor'],
    Receptor: enc.Receptor && typeof enc.Receptor === 'object' ? (enc.Receptor as Cfe['Receptor']) : undefined,
    Totales: enc.Totales as unknown as Cfe['Totales'],
    Detalle: list<Cfe['Detalle'][number]>('Detalle', 'Item') ?? [],
    SubTotInfo: list('SubTotInfo', 'STI_Item'),
    DscRcgGlobal: list('DscRcgGlobal', 'DRG_Item'),
    MediosPago: list('MediosPago', 'MedioPago'),
    Referencia: list('Referencia', 'Referencia'),
    CAEData: b.CAEData as unknown as Cfe['CAEData'],
    Compl_Fiscal: (b.Compl_Fiscal as Node | undefined)?.Compl_Fiscal_Data as Cfe['Compl_Fiscal'],
  };
  for (const k of Object.keys(cfe) as Array<keyof Cfe>) if (cfe[k] === undefined) delete cfe[k];
  return cfe;
}
