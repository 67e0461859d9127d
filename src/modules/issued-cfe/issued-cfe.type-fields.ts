/**
 * Fields a CFE type cannot carry (issue 28 point 3): an idDoc field whose DGI element is not in the
 * type's IdDoc (CFEType.xsd, emission/cfe-xml-schema.ts ID_DOC), or global discounts / payment means
 * on a type without that zone, are refused at the door with the field's path, not found by the XML
 * builder after numbering (XML_INVALIDO) nor dropped.
 */
import { ID_DOC, ZONES, type CfeTypeInfo } from '../emission/index.js';
import { issuedCfeErrors as E } from './issued-cfe.errors.js';
import type { CfeBody } from './issued-cfe.schemas.js';

/** idDoc request field → IdDoc element (BRIEF 2.1). */
const ID_DOC_ELEMENT: ReadonlyArray<readonly [keyof CfeBody['idDoc'], string]> = [
  ['numeroInterno', 'NroInterno'], ['periodoDesde', 'PeriodoDesde'], ['periodoHasta', 'PeriodoHasta'], ['mntBruto', 'MntBruto'],
  ['formaPago', 'FmaPago'], ['fechaVencimiento', 'FchVenc'], ['clauVenta', 'ClauVenta'], ['modVenta', 'ModVenta'], ['viaTransp', 'ViaTransp'],
  ['tipoTraslado', 'TipoTraslado'], ['fchValor', 'FchValor'], ['indCompraMEReventa', 'IndCompraMEReventa'], ['infoAdicionalDoc', 'InfoAdicionalDoc'],
  ['ivaAlDia', 'IVAalDia'], ['secProf', 'SecProf'], ['indPagCta3ros', 'IndPagCta3ros'], ['indCobPropia', 'IndCobPropia'],
];

const elementsOf = new Map(Object.entries(ID_DOC).map(([branch, shape]) => [branch, new Set(shape.map((f) => (typeof f === 'string' ? f : f[0])))]));

export function checkFieldsOfType(info: CfeTypeInfo, cfe: CfeBody): void {
  const allowed = elementsOf.get(info.branch)!;
  const notHere = (campo: string, element: string) =>
    E.CAMPO_NO_CORRESPONDE(`${campo} (${element}) no corresponde a un ${info.name}: quítelo.`, { campo });
  for (const [field, element] of ID_DOC_ELEMENT) {
    if (cfe.idDoc[field] !== undefined && !allowed.has(element)) throw notHere(`cfe.idDoc.${field}`, element);
  }
  if (!allowed.has('IndCobPropia')) {
    if (cfe.indCobPropia !== undefined) throw notHere('cfe.indCobPropia', 'IndCobPropia');
    if (cfe.IndCobPropia !== undefined) throw notHere('cfe.IndCobPropia', 'IndCobPropia');
  }
  if (!ZONES[info.branch].dscRcgMediosPago) {
    if (cfe.descuentosRecargos?.length) throw notHere('cfe.descuentosRecargos', 'DscRcgGlobal');
    if (cfe.mediosPago?.length) throw notHere('cfe.mediosPago', 'MediosPago');
  }
}
