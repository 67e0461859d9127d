/**
 * The CFE type table (BRIEF 1; FCFE Tabla A; XSD `CFEType` enumerations).
 * One row per electronic code; contingency (CFC) codes are the electronic code + 100.
 */

export type CfeBranch = 'eTck' | 'eFact' | 'eFact_Exp' | 'eRem' | 'eRem_Exp' | 'eResg' | 'eBoleta';

/** NC = nota de crédito, ND = nota de débito. Both require the Referencia zone (FCFE zone F). */
export type NoteKind = 'NC' | 'ND';

/**
 * Receiver rule (FCFE A-C60..A-C66.1, Tabla E):
 * RUC: e-Factura family, TipoDocRecep=2 with a Uruguayan RUC;
 * IDENTIFIED: always identified (remitos, resguardos, exports);
 * THRESHOLD: optional unless the net amount exceeds 5,000 UI or there are retentions (e-Tickets);
 * SELLER: e-Boleta de entrada, the "receptor" is the seller and TipoDocRecep is always present.
 */
export type ReceptorRule = 'RUC' | 'IDENTIFIED' | 'THRESHOLD' | 'SELLER';

/** Which total goes into the QR `monto` parameter (FCFE "5- Pie del comprobante", BRIEF 4). */
export type QrAmountRule = 'ZERO' | 'MntTotRetenido' | 'MntTotal' | 'MntPagar';

export interface CfeTypeInfo {
  code: number;
  contingencyCode: number;
  branch: CfeBranch;
  name: string;
  note: NoteKind | null;
  /** Sales on behalf of a third party (131-133, 141-143): Compl_Fiscal applies (FCFE zone K). */
  isCuentaAjena: boolean;
  /** FCFE §2.1, B-C1: 700 for e-Tickets (incl. cuenta ajena and their notes), 200 otherwise. */
  maxLines: 700 | 200;
  receptor: ReceptorRule;
  qrAmount: QrAmountRule;
}

/** IndFact values each branch's Item type allows (XSD Item_* enumerations; BRIEF 2.5). */
export const ALLOWED_IND_FACT: Readonly<Record<CfeBranch, readonly number[]>> = {
  eTck: [1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 16],
  eFact: [1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 16],
  eFact_Exp: [5, 6, 7, 10],
  eRem: [8],
  eRem_Exp: [5, 8],
  eResg: [9],
  eBoleta: [5, 6, 7, 12, 13, 14, 15, 17],
};

/** Branches where IndFact may be omitted on an item (XSD minOccurs=0). */
export const IND_FACT_OPTIONAL: ReadonlySet<CfeBranch> = new Set(['eRem', 'eRem_Exp', 'eResg']);

/** Branches with a DscRcgGlobal / MediosPago zone (XSD CFEDefType). */
export const HAS_GLOBAL_DISCOUNTS: ReadonlySet<CfeBranch> = new Set(['eTck', 'eFact', 'eFact_Exp', 'eBoleta']);

interface Family {
  base: number;
  branch: CfeBranch;
  name: string;
  notes: boolean;
  receptor: ReceptorRule;
  qrAmount: QrAmountRule;
  isCuentaAjena?: boolean;
}

const FAMILIES: Family[] = [
  { base: 101, branch: 'eTck', name: 'e-Ticket', notes: true, receptor: 'THRESHOLD', qrAmount: 'MntPagar' },
  { base: 111, branch: 'eFact', name: 'e-Factura', notes: true, receptor: 'RUC', qrAmount: 'MntPagar' },
  { base: 121, branch: 'eFact_Exp', name: 'e-Factura de Exportación', notes: true, receptor: 'IDENTIFIED', qrAmount: 'MntPagar' },
  { base: 124, branch: 'eRem_Exp', name: 'e-Remito de Exportación', notes: false, receptor: 'IDENTIFIED', qrAmount: 'MntTotal' },
  {
    base: 131,
    branch: 'eTck',
    name: 'e-Ticket Venta por Cuenta Ajena',
    notes: true,
    receptor: 'THRESHOLD',
    qrAmount: 'MntPagar',
    isCuentaAjena: true,
  },
  {
    base: 141,
    branch: 'eFact',
    name: 'e-Factura Venta por Cuenta Ajena',
    notes: true,
    receptor: 'RUC',
    qrAmount: 'MntPagar',
    isCuentaAjena: true,
  },
  { base: 151, branch: 'eBoleta', name: 'e-Boleta de entrada', notes: true, receptor: 'SELLER', qrAmount: 'MntPagar' },
  { base: 181, branch: 'eRem', name: 'e-Remito', notes: false, receptor: 'IDENTIFIED', qrAmount: 'ZERO' },
  { base: 182, branch: 'eResg', name: 'e-Resguardo', notes: false, receptor: 'IDENTIFIED', qrAmount: 'MntTotRetenido' },
];

function buildTable(): Map<number, CfeTypeInfo> {
  const table = new Map<number, CfeTypeInfo>();
  for (const f of FAMILIES) {
    const variants: Array<[number, NoteKind | null, string]> = [[f.base, null, f.name]];
    if (f.notes) {
      variants.push([f.base + 1, 'NC', `Nota de Crédito de ${f.name}`], [f.base + 2, 'ND', `Nota de Débito de ${f.name}`]);
    }
    for (const [code, note, name] of variants) {
      table.set(code, {
        code,
        contingencyCode: code + 100,
        branch: f.branch,
        name,
        note,
        isCuentaAjena: f.isCuentaAjena ?? false,
        maxLines: f.branch === 'eTck' ? 700 : 200,
        receptor: f.receptor,
        qrAmount: f.qrAmount,
      });
    }
  }
  return table;
}

const ELECTRONIC = buildTable();

/** Every electronic code (101…182); contingency codes are not listed here. */
export const CFE_TYPE_CODES: readonly number[] = [...ELECTRONIC.keys()];

export function isContingencyCode(code: number): boolean {
  return ELECTRONIC.has(code - 100);
}

/** Electronic ↔ contingency mapping (FCFE Tabla A: 1xx ↔ 2xx). */
export function toContingencyCode(code: number): number {
  const info = ELECTRONIC.get(code);
  if (!info) throw new Error(`Unknown electronic CFE type ${code}`);
  return info.contingencyCode;
}

export function toElectronicCode(code: number): number {
  return isContingencyCode(code) ? code - 100 : code;
}

/**
 * Row for a code, electronic or contingency. A contingency code returns the electronic row
 * with `code` set to the contingency code and a suffixed name; the rules are the same.
 */
export function getCfeType(code: number): CfeTypeInfo {
  const direct = ELECTRONIC.get(code);
  if (direct) return direct;
  const base = ELECTRONIC.get(code - 100);
  if (!base) throw new Error(`Unknown CFE type ${code}`);
  return { ...base, code, name: `${base.name} (contingencia)` };
}

export function findCfeType(code: number): CfeTypeInfo | undefined {
  return ELECTRONIC.has(code) || ELECTRONIC.has(code - 100) ? getCfeType(code) : undefined;
}

export function requiresReferencia(code: number): boolean {
  return getCfeType(code).note !== null;
}
