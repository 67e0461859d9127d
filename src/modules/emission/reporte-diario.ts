/**
 * Daily report ("Reporte Diario", BRIEF 9; FREP v13.2; XSD ReporteDiarioCFE.xsd), pure.
 *
 * planReporteDiario computes every figure (blocks in XSD order, Montos grouped by
 * (FchEmis, CodSuc, IndPagCta3ros), amounts in UYU, counts and ranges); buildReporteDiario renders
 * it as canonical XML (inclusive C14N form: no declaration, no empty-element tags, one attribute),
 * ready for signReporteDiario, which uses the CFE template signer (same profile, BRIEF 3/9).
 *
 * Counting rules (BRIEF 9, FREP C26-C30):
 *   CantDocsUtil (C26) = CFEs of the type used that day: emitted (received by DGI) + annulled by a
 *     DGI rejection (estado 'anulado') + numbers voided by the company without use (`anulados`);
 *     equals Σ(NroHasta − NroDesde + 1) over RngDocsUtil.
 *   CantDocsAnulados (C28) = the two annulled kinds; a CFE cancelled by a credit note stays emitted.
 *   CantDocsEmi (C29) = C26 − C28.  CantDocsMay_topeUI: e-Ticket blocks, emitted over the UI threshold.
 *   CFC (2xx) blocks: emitted, non-observed CFCs (CantCFCEmi), no ranges, no annulled ones.
 *   CantComprobantes = Σ C26 + Σ CantCFCEmi. Zero → no Rsmn blocks (the "zero report").
 * Only emitted CFEs/CFCs contribute amounts. Each CFE's amounts are converted with its own rate
 * (reportRate) and rounded to 2 decimals half-up before being summed into its Mnts item.
 */
import { Decimal as Dec } from 'decimal.js';
import { getCfeType, type CfeBranch } from './cfe-types.ts';
import { CFE_NAMESPACE } from './cfe-xml.ts';
import type { Decimal, Totales } from './cfe.model.ts';
import { signCanonicalXml, type SignedXmlResult, type SigningContext } from './signer.ts';

export class ReporteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReporteError';
  }
}

/** The CFE's own Totales (decimal strings, DGI names); pass `cfe.Totales` as is. */
export type ReporteTotales = Partial<
  Pick<
    Totales,
    | 'MntNoGrv'
    | 'MntExpoyAsim'
    | 'MntImpuestoPerc'
    | 'MntIVaenSusp'
    | 'MntNetoIvaTasaMin'
    | 'MntNetoIVATasaBasica'
    | 'MntNetoIVAOtra'
    | 'IVATasaMin'
    | 'IVATasaBasica'
    | 'MntIVATasaMin'
    | 'MntIVATasaBasica'
    | 'MntIVAOtra'
    | 'MntTotal'
    | 'MntTotRetenido'
    | 'MntTotCredFisc'
  >
>;

export interface ReporteCfe {
  tipoCfe: number;
  serie: string;
  nro: number;
  /** FchEmis, YYYY-MM-DD: the Mnts item's Fecha. */
  fchEmis: string;
  /** CdgDGISucur: the Mnts item's CodSuc. */
  cdgDGISucur: number;
  indPagCta3ros?: 1;
  /** TpoMoneda; absent = UYU. */
  tpoMoneda?: string;
  /** The CFE's own TpoCambio. */
  tpoCambio?: Decimal;
  /** BCU interbank buyer "billete" rate at the close of the day before FchEmis (BRIEF 9, since 2022-11-01). */
  fiscalRate?: Decimal;
  totales: ReporteTotales;
  /** 'anulado' = rejected by DGI and therefore voided (counted, no amounts). Pass observed CFCs not at all. */
  estado: 'emitido' | 'anulado';
  /** Net amount above the UI threshold (e-Ticket blocks' CantDocsMay_topeUI). */
  superaTopeUI?: boolean;
}

export interface ReporteDiarioInput {
  rucEmisor: string;
  /** The signing date (TmstFirma) of the CFEs reported, not their FchEmis. */
  fechaResumen: string;
  idEmisor?: number;
  /** 1 for the first report of the day; a correction resends everything with +1 (R05). */
  secEnvio: number;
  /** FechaHoraType with offset; also the cut-off of the "FchEmis after signing" exception. */
  tmstFirmaEnv: string;
  cfes: ReporteCfe[];
  /** Numbers voided without ever being used (skipped, discarded): counted and ranged as annulled. */
  anulados: Array<{ tipoCfe: number; serie: string; nro: number }>;
}

type MontosKind = 'FyT' | 'FExp' | 'Rem' | 'Rem_Exp' | 'Res' | 'Bol';

/** Rsmn_* blocks in ReporteDiarioCFE.xsd sequence order. */
const BLOCKS: ReadonlyArray<readonly [string, number]> = [
  ['Rsmn_Tck', 101], ['Rsmn_Tck_Nota_Credito', 102], ['Rsmn_Tck_Nota_Debito', 103],
  ['Rsmn_Tck_Cont', 201], ['Rsmn_Tck_Cont_Nota_Credito', 202], ['Rsmn_Tck_Cont_Nota_Debito', 203],
  ['Rsmn_Tck_CtaAj', 131], ['Rsmn_Tck_Nota_Credito_CtaAj', 132], ['Rsmn_Tck_Nota_Debito_CtaAj', 133],
  ['Rsmn_Tck_CtaAj_Cont', 231], ['Rsmn_Tck_CtaAj_Cont_Nota_Credito', 232], ['Rsmn_Tck_CtaAj_Cont_Nota_Debito', 233],
  ['Rsmn_Fac', 111], ['Rsmn_Fac_Nota_Credito', 112], ['Rsmn_Fac_Nota_Debito', 113],
  ['Rsmn_Fac_Cont', 211], ['Rsmn_Fac_Cont_Nota_Credito', 212], ['Rsmn_Fac_Cont_Nota_Debito', 213],
  ['Rsmn_Fac_CtaAj', 141], ['Rsmn_Fac_Nota_Credito_CtaAj', 142], ['Rsmn_Fac_Nota_Debito_CtaAj', 143],
  ['Rsmn_Fac_CtaAj_Cont', 241], ['Rsmn_Fac_CtaAj_Cont_Nota_Credito', 242], ['Rsmn_Fac_CtaAj_Cont_Nota_Debito', 243],
  ['Rsmn_Fac_Exp', 121], ['Rsmn_Fac_Exp_Nota_Credito', 122], ['Rsmn_Fac_Exp_Nota_Debito', 123],
  ['Rsmn_Fac_Exp_Cont', 221], ['Rsmn_Fac_Exp_Cont_Nota_Credito', 222], ['Rsmn_Fac_Exp_Cont_Nota_Debito', 223],
  ['Rsmn_Rem', 181], ['Rsmn_Rem_Cont', 281],
  ['Rsmn_Rem_Exp', 124], ['Rsmn_Rem_Exp_Cont', 224],
  ['Rsmn_Resg', 182], ['Rsmn_Resg_Cont', 282],
  ['Rsmn_Bol', 151], ['Rsmn_Bol_Nota_Credito', 152], ['Rsmn_Bol_Nota_Debito', 153],
  ['Rsmn_Bol_Cont', 251], ['Rsmn_Bol_Cont_Nota_Credito', 252], ['Rsmn_Bol_Cont_Nota_Debito', 253],
];
const BLOCK_ORDER = new Map(BLOCKS.map(([name, tipo], i) => [tipo, { name, index: i }]));

const MONTOS_KIND: Record<CfeBranch, MontosKind> = {
  eTck: 'FyT', eFact: 'FyT', eFact_Exp: 'FExp', eRem: 'Rem', eRem_Exp: 'Rem_Exp', eResg: 'Res', eBoleta: 'Bol',
};

type AmountKey = Exclude<keyof ReporteTotales, 'IVATasaMin' | 'IVATasaBasica'>;
/** [report element, CFE Totales field, 'always' | 'nonzero'] in each Mnts_*_Item's XSD order. */
type Field = readonly [string, AmountKey | 'IVATasaMin' | 'IVATasaBasica', 'always' | 'nonzero'];
const FIELDS: Record<MontosKind, readonly Field[]> = {
  FyT: [
    ['TotMntNoGrv', 'MntNoGrv', 'always'], ['TotMntExpyAsim', 'MntExpoyAsim', 'always'], ['TotMntImpPerc', 'MntImpuestoPerc', 'always'],
    ['TotMntIVAenSusp', 'MntIVaenSusp', 'always'], ['TotMntIVATasaMin', 'MntNetoIvaTasaMin', 'always'],
    ['TotMntIVATasaBas', 'MntNetoIVATasaBasica', 'always'], ['TotMntIVAOtra', 'MntNetoIVAOtra', 'always'],
    ['MntIVATasaMin', 'MntIVATasaMin', 'always'], ['MntIVATasaBas', 'MntIVATasaBasica', 'always'], ['MntIVAOtra', 'MntIVAOtra', 'always'],
    ['IVATasaMin', 'IVATasaMin', 'always'], ['IVATasaBas', 'IVATasaBasica', 'always'],
    ['TotMntTotal', 'MntTotal', 'always'], ['TotMntRetenido', 'MntTotRetenido', 'always'], ['TotMntCredFisc', 'MntTotCredFisc', 'nonzero'],
  ],
  FExp: [['TotMntExpyAsim', 'MntExpoyAsim', 'always'], ['TotMntTotal', 'MntTotal', 'always']],
  Rem: [],
  Rem_Exp: [['TotMntExpyAsim', 'MntExpoyAsim', 'always'], ['TotMntTotal', 'MntTotal', 'always']],
  Res: [['TotMntRetenido', 'MntTotRetenido', 'nonzero'], ['TotMntCredFisc', 'MntTotCredFisc', 'nonzero']],
  Bol: [['TotMntNoGrv', 'MntNoGrv', 'always'], ['TotMntIVAenSusp', 'MntIVaenSusp', 'always'], ['TotMntTotal', 'MntTotal', 'always'], ['TotMntRetenido', 'MntTotRetenido', 'nonzero']],
};
const MAX_ITEMS: Record<MontosKind, number> = { FyT: 2000, FExp: 1000, Rem: 1000, Rem_Exp: 1000, Res: 1000, Bol: 1000 };
const HAS_IND_PAG = new Set<MontosKind>(['FyT', 'FExp']);
const DEFAULT_RATES = { IVATasaMin: '10', IVATasaBasica: '22' } as const;

export interface MontosItem {
  Fecha: string;
  CodSuc: number;
  IndPagCta3ros?: 1;
  /** Element name → value (amounts in UYU, 2 decimals; IVA rates as given), in XSD order. */
  values: Array<[string, string]>;
}

export interface Range {
  Serie: string;
  NroDesde: number;
  NroHasta: number;
}

export interface ReporteBlock {
  element: string;
  tipoComp: number;
  contingency: boolean;
  montosKind: MontosKind;
  montos: MontosItem[];
  /** CFE blocks. */
  cantDocsUtil?: number;
  cantDocsAnulados?: number;
  cantDocsEmi?: number;
  rngDocsUtil?: Range[];
  rngDocsAnulados?: Range[];
  /** e-Ticket blocks (CFE and CFC). */
  cantDocsMayTopeUI?: number;
  /** CFC blocks. */
  cantCfcEmi?: number;
}

export interface ReportePlan {
  cantComprobantes: number;
  blocks: ReporteBlock[];
}

export type RateSource = 'UYU' | 'fiscal' | 'cfe';

/**
 * Rate that converts a CFE's amounts to UYU in the report (BRIEF 9): the fiscal rate, except
 * e-Resguardos, NC/ND, UI/UR CFEs and foreign-currency CFEs with FchEmis after the report's
 * signing date, which use the CFE's own TpoCambio. Without a fiscal quote, BRIEF 9's last
 * fallback is the CFE's own TpoCambio.
 */
export function reportRate(cfe: ReporteCfe, tmstFirmaEnv: string): { rate: Decimal; source: RateSource } {
  const moneda = cfe.tpoMoneda ?? 'UYU';
  if (moneda === 'UYU') return { rate: '1', source: 'UYU' };
  const info = getCfeType(cfe.tipoCfe);
  const own = info.branch === 'eResg' || info.note !== null || moneda === 'UYI' || moneda === 'UYR' || cfe.fchEmis > tmstFirmaEnv.slice(0, 10);
  const rate = own ? cfe.tpoCambio : (cfe.fiscalRate ?? cfe.tpoCambio);
  if (!rate) throw new ReporteError(`CFE ${cfe.tipoCfe}-${cfe.serie}-${cfe.nro} in ${moneda}: no ${own ? 'TpoCambio' : 'fiscal rate nor TpoCambio'}`);
  return { rate, source: own || cfe.fiscalRate === undefined ? 'cfe' : 'fiscal' };
}

const round2 = (d: Dec) => d.toDecimalPlaces(2, Dec.ROUND_HALF_UP);

/** Contiguous ranges per serie, a serie change starting a new range. */
export function toRanges(numbers: Array<{ serie: string; nro: number }>): Range[] {
  const sorted = [...numbers].sort((a, b) => (a.serie < b.serie ? -1 : a.serie > b.serie ? 1 : a.nro - b.nro));
  const out: Range[] = [];
  for (const { serie, nro } of sorted) {
    const last = out[out.length - 1];
    if (last && last.Serie === serie && last.NroHasta + 1 === nro) last.NroHasta = nro;
    else out.push({ Serie: serie, NroDesde: nro, NroHasta: nro });
  }
  return out;
}

function montos(kind: MontosKind, cfes: ReporteCfe[], tmstFirmaEnv: string): MontosItem[] {
  const groups = new Map<string, { item: Omit<MontosItem, 'values'>; sums: Map<string, Dec>; rates: Record<string, string> }>();
  for (const cfe of cfes) {
    const ind = HAS_IND_PAG.has(kind) ? cfe.indPagCta3ros : undefined;
    const key = `${cfe.fchEmis}|${cfe.cdgDGISucur}|${ind ?? ''}`;
    let g = groups.get(key);
    if (!g) {
      g = { item: { Fecha: cfe.fchEmis, CodSuc: cfe.cdgDGISucur, ...(ind ? { IndPagCta3ros: ind } : {}) }, sums: new Map(), rates: {} };
      groups.set(key, g);
    }
    const rate = new Dec(reportRate(cfe, tmstFirmaEnv).rate);
    for (const [element, source] of FIELDS[kind]) {
      if (source === 'IVATasaMin' || source === 'IVATasaBasica') {
        g.rates[element] ??= cfe.totales[source] ?? DEFAULT_RATES[source];
        continue;
      }
      const amount = round2(new Dec(cfe.totales[source] ?? '0').times(rate));
      g.sums.set(element, (g.sums.get(element) ?? new Dec(0)).plus(amount));
    }
  }
  const items = [...groups.values()]
    .sort((a, b) => cmp(a.item.Fecha, b.item.Fecha) || a.item.CodSuc - b.item.CodSuc || (a.item.IndPagCta3ros ?? 0) - (b.item.IndPagCta3ros ?? 0))
    .map(({ item, sums, rates }) => {
      const values: Array<[string, string]> = [];
      for (const [element, source, presence] of FIELDS[kind]) {
        if (source === 'IVATasaMin' || source === 'IVATasaBasica') values.push([element, new Dec(rates[element]).toString()]);
        else {
          const sum = sums.get(element) ?? new Dec(0);
          if (presence === 'always' || !sum.isZero()) values.push([element, sum.toFixed(2)]);
        }
      }
      return { ...item, values };
    });
  if (items.length > MAX_ITEMS[kind]) throw new ReporteError(`Mnts_${kind}_Item: ${items.length} groups exceed the XSD maximum ${MAX_ITEMS[kind]}`);
  return items;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function checkInput(input: ReporteDiarioInput): void {
  if (!/^\d{12}$/.test(input.rucEmisor)) throw new ReporteError(`RUCEmisor must be a 12-digit RUC: ${input.rucEmisor}`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(input.fechaResumen) || input.fechaResumen < '2011-10-01' || input.fechaResumen > '2050-12-31') {
    throw new ReporteError(`FechaResumen must be a date between 2011-10-01 and 2050-12-31: ${input.fechaResumen}`);
  }
  if (!Number.isInteger(input.secEnvio) || input.secEnvio < 0 || input.secEnvio > 99) throw new ReporteError(`SecEnvio must be 0..99: ${input.secEnvio}`);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/.test(input.tmstFirmaEnv)) {
    throw new ReporteError(`TmstFirmaEnv must be a date-time with offset: ${input.tmstFirmaEnv}`);
  }
  if (input.idEmisor !== undefined && !/^\d{1,10}$/.test(String(input.idEmisor))) throw new ReporteError(`IDEmisor must have 1 to 10 digits`);
}

/** Every figure of the report, without XML. */
export function planReporteDiario(input: ReporteDiarioInput): ReportePlan {
  checkInput(input);
  const byType = new Map<number, { cfes: ReporteCfe[]; voided: Array<{ serie: string; nro: number }> }>();
  const seen = new Set<string>();
  const slot = (tipo: number, serie: string, nro: number) => {
    if (!BLOCK_ORDER.has(tipo)) throw new ReporteError(`Unknown CFE type ${tipo}`);
    if (!/^[A-Z]{1,2}$/.test(serie) || !Number.isInteger(nro) || nro < 1 || nro > 9_999_999) throw new ReporteError(`Invalid number ${tipo}-${serie}-${nro}`);
    const key = `${tipo}:${serie}:${nro}`;
    if (seen.has(key)) throw new ReporteError(`${tipo}-${serie}-${nro} is reported twice`);
    seen.add(key);
    let entry = byType.get(tipo);
    if (!entry) byType.set(tipo, (entry = { cfes: [], voided: [] }));
    return entry;
  };
  for (const cfe of input.cfes) {
    if (cfe.tipoCfe >= 200 && cfe.estado !== 'emitido') throw new ReporteError(`CFC ${cfe.tipoCfe}-${cfe.serie}-${cfe.nro}: annulled CFCs are not reported`);
    slot(cfe.tipoCfe, cfe.serie, cfe.nro).cfes.push(cfe);
  }
  for (const a of input.anulados) {
    if (a.tipoCfe >= 200) throw new ReporteError(`CFC ${a.tipoCfe}-${a.serie}-${a.nro}: annulled CFCs are not reported`);
    slot(a.tipoCfe, a.serie, a.nro).voided.push({ serie: a.serie, nro: a.nro });
  }

  const blocks: ReporteBlock[] = [];
  let cantComprobantes = 0;
  for (const [element, tipo] of BLOCKS) {
    const entry = byType.get(tipo);
    if (!entry) continue;
    const contingency = tipo >= 200;
    const kind = MONTOS_KIND[getCfeType(tipo).branch];
    const emitted = entry.cfes.filter((c) => c.estado === 'emitido');
    const block: ReporteBlock = { element, tipoComp: tipo, contingency, montosKind: kind, montos: montos(kind, emitted, input.tmstFirmaEnv) };
    if (element.startsWith('Rsmn_Tck')) block.cantDocsMayTopeUI = emitted.filter((c) => c.superaTopeUI).length;
    if (contingency) {
      block.cantCfcEmi = emitted.length;
      cantComprobantes += emitted.length;
    } else {
      const annulled = [...entry.cfes.filter((c) => c.estado === 'anulado').map((c) => ({ serie: c.serie, nro: c.nro })), ...entry.voided];
      const used = [...emitted.map((c) => ({ serie: c.serie, nro: c.nro })), ...annulled];
      block.cantDocsUtil = used.length;
      block.cantDocsAnulados = annulled.length;
      block.cantDocsEmi = used.length - annulled.length;
      block.rngDocsUtil = toRanges(used);
      block.rngDocsAnulados = toRanges(annulled);
      cantComprobantes += used.length;
    }
    blocks.push(block);
  }
  return { cantComprobantes, blocks };
}

const el = (name: string, content: string | number) => `<${name}>${content}</${name}>`;

function renderRanges(wrapper: string, item: string, ranges: Range[] | undefined): string {
  if (!ranges || ranges.length === 0) return '';
  return el(wrapper, ranges.map((r) => el(item, el('Serie', r.Serie) + el('NroDesde', r.NroDesde) + el('NroHasta', r.NroHasta))).join(''));
}

function renderBlock(b: ReporteBlock): string {
  const itemName = `Mnts_${b.montosKind === 'Res' ? 'Res' : b.montosKind}_Item`;
  const montosXml =
    b.montos.length === 0
      ? ''
      : el(
          'Montos',
          b.montos
            .map((m) =>
              el(itemName, el('Fecha', m.Fecha) + el('CodSuc', m.CodSuc) + (m.IndPagCta3ros ? el('IndPagCta3ros', m.IndPagCta3ros) : '') + m.values.map(([k, v]) => el(k, v)).join('')),
            )
            .join(''),
        );
  let data = montosXml;
  if (b.contingency) {
    if (b.cantDocsMayTopeUI !== undefined) data += el('CantDocsMay_topeUI', b.cantDocsMayTopeUI);
    data += el('CantCFCEmi', b.cantCfcEmi ?? 0);
  } else {
    data += el('CantDocsUtil', b.cantDocsUtil ?? 0);
    if (b.cantDocsMayTopeUI !== undefined) data += el('CantDocsMay_topeUI', b.cantDocsMayTopeUI);
    data +=
      el('CantDocsAnulados', b.cantDocsAnulados ?? 0) +
      el('CantDocsEmi', b.cantDocsEmi ?? 0) +
      renderRanges('RngDocsUtil', 'RDU_Item', b.rngDocsUtil) +
      renderRanges('RngDocsAnulados', 'RDA_Item', b.rngDocsAnulados);
  }
  return el(b.element, el('TipoComp', b.tipoComp) + el('RsmnData', data));
}

/**
 * The unsigned Reporte, already in inclusive-C14N form (default namespace on the root, no XML
 * declaration), so signReporteDiario can digest the bytes as they are.
 */
export function buildReporteDiario(input: ReporteDiarioInput): string {
  const plan = planReporteDiario(input);
  const caratula =
    `<Caratula version="1.0">` +
    el('RUCEmisor', input.rucEmisor) +
    el('FechaResumen', input.fechaResumen) +
    (input.idEmisor !== undefined ? el('IDEmisor', input.idEmisor) : '') +
    el('SecEnvio', input.secEnvio) +
    el('TmstFirmaEnv', input.tmstFirmaEnv) +
    el('CantComprobantes', plan.cantComprobantes) +
    `</Caratula>`;
  return `<Reporte xmlns="${CFE_NAMESPACE}">${caratula}${plan.blocks.map(renderBlock).join('')}</Reporte>`;
}

/** Enveloped XMLDSig with the CFE profile; the Signature becomes the last child, as the XSD requires. */
export function signReporteDiario(unsignedXml: string, ctx: SigningContext): SignedXmlResult {
  return signCanonicalXml(unsignedXml, ctx);
}

/** Suggested file name (FREP): Rep_<RUC>_<AAAAMMDD>_<xx>.xml with xx = SecEnvio on two digits. */
export function reporteFileName(rucEmisor: string, fechaResumen: string, secEnvio: number): string {
  return `Rep_${rucEmisor}_${fechaResumen.replace(/-/g, '')}_${String(secEnvio).padStart(2, '0')}.xml`;
}
