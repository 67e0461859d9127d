/**
 * What DGI's Testing validates inside each CFE beyond signature and CAE (BRIEF 13: the "Prueba de
 * Testing" set of 101/102/103/111/112/113): receiver rules per type, currency, the arithmetic of the
 * totals, and the reference zone of credit/debit notes against the CFEs DGI already holds. Each
 * finding is a DGI motive (FMR v19 §4.3): E05 format rules, E10 exchange rate, E12 references.
 *
 * Written apart from the emission library on purpose: a bug shared by the builder and this judge
 * would pass unseen. Arithmetic in decimal.js, never floats.
 */
import { Decimal } from 'decimal.js';
import { XmlElement } from '../../../platform/xml/libxml2.ts';
import type { Motivo } from '../dgi.client.ts';
import { rutProblem } from '../../../lib/rut.ts';
import { motivo } from './ack-xml.ts';

type Fields = Record<string, string>;

/** The parts of a CFE the rules read: leaf values of each Encabezado section, items, global discounts, references. */
export interface CfeContent {
  idDoc: Fields;
  emisor: Fields;
  receptor: Fields | null;
  totales: Fields;
  items: Fields[];
  /** DscRcgGlobal/DRG_Item lines. */
  drg: Fields[];
  referencias: Fields[] | null;
}

/** What DGI keeps of a CFE it answered: enough to judge later references and daily reports. */
export interface CfeFacts {
  estado: 'AE' | 'BE' | 'CE';
  /** First motive code when rejected (E02/E09 do not void the number: BRIEF 10). */
  motivo?: string;
  fchEmis: string;
  /** Date of TmstFirma: the daily report's FechaResumen (BRIEF 9). */
  fechaFirma: string;
  moneda: string;
  tpoCambio?: string;
  mntTotal: string;
  mntPagar: string;
  /** e-Ticket family above 5,000 UI net (BRIEF 1): counted in the report's CantDocsMay_topeUI. */
  sobreTopeUI?: boolean;
}

function leaves(el: XmlElement, out: Fields = {}): Fields {
  for (let n = el.firstChild; n; n = n.next) {
    if (!(n instanceof XmlElement)) continue;
    if (n.firstChild instanceof XmlElement || (n.firstChild && n.firstChild.next)) leaves(n, out);
    else if (!(n.name in out)) out[n.name] = n.content.trim();
  }
  return out;
}

const children = (el: XmlElement, name?: string) => {
  const list: XmlElement[] = [];
  for (let n = el.firstChild; n; n = n.next) if (n instanceof XmlElement && (!name || n.name === name)) list.push(n);
  return list;
};

/** Reads the CFE element (`CFE` with its eTck/eFact… child) of an envelope. */
export function readCfeContent(cfe: XmlElement): CfeContent {
  const branch = children(cfe).find((c) => c.name !== 'Signature');
  const content: CfeContent = { idDoc: {}, emisor: {}, receptor: null, totales: {}, items: [], drg: [], referencias: null };
  if (!branch) return content;
  for (const zone of children(branch)) {
    if (zone.name === 'Encabezado') {
      for (const part of children(zone)) {
        if (part.name === 'IdDoc') content.idDoc = leaves(part);
        else if (part.name === 'Emisor') content.emisor = leaves(part);
        else if (part.name === 'Receptor') content.receptor = leaves(part);
        // Totales: its own leaves only, RetencPercep pairs are not needed here.
        else if (part.name === 'Totales') for (const t of children(part)) if (t.name !== 'RetencPercep') content.totales[t.name] = t.content.trim();
      }
    } else if (zone.name === 'Detalle') {
      content.items = children(zone, 'Item').map((item) => {
        const f: Fields = {};
        for (const c of children(item)) if (!(c.name in f) && !c.firstChild?.next && !(c.firstChild instanceof XmlElement)) f[c.name] = c.content.trim();
        return f;
      });
    } else if (zone.name === 'DscRcgGlobal') {
      content.drg = children(zone, 'DRG_Item').map((d) => leaves(d));
    } else if (zone.name === 'Referencia') {
      content.referencias = children(zone, 'Referencia').map((r) => leaves(r));
    }
  }
  return content;
}

export const NOTE_TYPES = new Set(['102', '103', '112', '113', '122', '123', '132', '133', '142', '143', '152', '153']);
const FACTURA_TYPES = new Set(['111', '112', '113', '141', '142', '143']);
const TICKET_TYPES = new Set(['101', '102', '103', '131', '132', '133']);
const NET_FIELDS = ['MntNoGrv', 'MntExpoyAsim', 'MntImpuestoPerc', 'MntIVaenSusp', 'MntNetoIvaTasaMin', 'MntNetoIVATasaBasica', 'MntNetoIVAOtra'];
const IVA_FIELDS = ['MntIVATasaMin', 'MntIVATasaBasica', 'MntIVAOtra'];
const CENT = new Decimal('0.01');

const dec = (v: string | undefined) => {
  try {
    return new Decimal(v && v !== '' ? v : 0);
  } catch {
    return new Decimal(NaN);
  }
};
const sum = (f: Fields, names: string[]) => names.reduce((acc, n) => acc.plus(dec(f[n])), new Decimal(0));

export interface ContentContext {
  /** 5,000 UI in pesos at the close of the previous year (BRIEF 1). */
  uiThresholdUyu: Decimal;
  /** What DGI holds of `ruc:tipo:serie:nro`, including CFEs accepted earlier in the same envelope. */
  known(key: string): CfeFacts | undefined;
}

/** Net amount without VAT, Σ(A-C112..A-C118), in pesos (BRIEF 1). */
export function netUyu(c: CfeContent): Decimal {
  const net = sum(c.totales, NET_FIELDS);
  return c.totales.TpoMoneda && c.totales.TpoMoneda !== 'UYU' ? net.times(dec(c.totales.TpoCambio || '1')) : net;
}

function receiverFindings(tipo: string, c: CfeContent, ctx: ContentContext): Motivo[] {
  const r = c.receptor ?? {};
  const out: Motivo[] = [];
  if (FACTURA_TYPES.has(tipo) && !c.idDoc.SecProf) {
    // FCFE A-C60..A-C66.1, Tabla E: e-Factura receivers are identified by RUC, with name, address and city.
    if (r.TipoDocRecep !== '2' || r.CodPaisRecep !== 'UY') out.push(motivo('E05', `Tipo ${tipo}: receptor debe identificarse con RUC (TipoDocRecep 2, CodPaisRecep UY) (Formato CFE A-C60/A-C61)`));
    else if (!r.DocRecep || rutProblem(r.DocRecep)) out.push(motivo('E05', `Tipo ${tipo}: DocRecep ${r.DocRecep ?? '(ausente)'} no es un RUC válido (Formato CFE A-C62)`));
    for (const f of ['RznSocRecep', 'DirRecep', 'CiudadRecep']) if (!r[f]) out.push(motivo('E05', `Tipo ${tipo}: ${f} es obligatorio en e-Factura (Formato CFE A-C63..A-C65)`));
  }
  if (TICKET_TYPES.has(tipo) && netUyu(c).gt(ctx.uiThresholdUyu) && (!r.TipoDocRecep || !r.CodPaisRecep || (!r.DocRecep && !r.DocRecepExt))) {
    // BRIEF 1: above 5,000 UI net the e-Ticket receiver must be identified (A-C60..A-C62).
    out.push(motivo('E05', `e-Ticket con monto neto ${netUyu(c).toFixed(2)} UYU > tope de 5.000 UI (${ctx.uiThresholdUyu.toFixed(2)}) sin receptor identificado (Formato CFE A-C60..A-C62)`));
  }
  if (['1', '2', '3'].includes(r.TipoDocRecep ?? '') && r.CodPaisRecep !== 'UY') out.push(motivo('E05', 'TipoDocRecep 1, 2 o 3 exige CodPaisRecep UY (Formato CFE A-C60)'));
  return out;
}

function totalsFindings(c: CfeContent): Motivo[] {
  const t = c.totales;
  const out: Motivo[] = [];
  if (t.TpoMoneda && t.TpoMoneda !== 'UYU' && !(dec(t.TpoCambio).gt(0))) {
    out.push(motivo('E10', `TpoMoneda ${t.TpoMoneda} sin TpoCambio (Formato CFE A-C111)`));
  }
  if (Number(t.CantLinDet) !== c.items.length) out.push(motivo('E05', `CantLinDet ${t.CantLinDet} con ${c.items.length} líneas (Formato CFE A-C126)`));
  if (t.IVATasaMin && !dec(t.IVATasaMin).eq(10)) out.push(motivo('E05', `IVATasaMin ${t.IVATasaMin} no es la tasa vigente 10 (Formato CFE A-C119, Tabla B)`));
  if (t.IVATasaBasica && !dec(t.IVATasaBasica).eq(22)) out.push(motivo('E05', `IVATasaBasica ${t.IVATasaBasica} no es la tasa vigente 22 (Formato CFE A-C120, Tabla B)`));
  // A-C121/A-C122: VAT = net × rate, rounded to cents (one cent accepted for the rounding).
  for (const [iva, net, rate, id] of [['MntIVATasaMin', 'MntNetoIvaTasaMin', 'IVATasaMin', 'A-C121'], ['MntIVATasaBasica', 'MntNetoIVATasaBasica', 'IVATasaBasica', 'A-C122']] as const) {
    if (!t[iva] && !t[net]) continue;
    const expected = dec(t[net]).times(dec(t[rate] || (rate === 'IVATasaMin' ? '10' : '22'))).div(100);
    if (dec(t[iva]).minus(expected).abs().gt(CENT)) out.push(motivo('E05', `${iva} ${t[iva] ?? '(ausente)'} ≠ ${net} × ${rate} = ${expected.toFixed(2)} (Formato CFE ${id})`));
  }
  const total = sum(t, NET_FIELDS).plus(sum(t, IVA_FIELDS));
  if (!dec(t.MntTotal).eq(total)) out.push(motivo('E05', `MntTotal ${t.MntTotal} ≠ suma de netos e IVA ${total.toFixed(2)} (Formato CFE A-C124)`));
  const pagar = dec(t.MntTotal).plus(dec(t.MntTotRetenido)).plus(dec(t.MontoNF));
  if (!dec(t.MntPagar).eq(pagar) && !(pagar.lt(0) && dec(t.MntPagar).eq(0))) out.push(motivo('E05', `MntPagar ${t.MntPagar} ≠ MntTotal + MntTotRetenido + MontoNF = ${pagar.toFixed(2)} (Formato CFE A-C130)`));
  out.push(...netFindings(c));
  c.items.forEach((item, i) => {
    // B-C24: MontoItem = Cantidad × PrecioUnitario − DescuentoMonto + RecargoMnt (0 for IndFact 5).
    const expected = item.IndFact === '5' ? new Decimal(0) : dec(item.Cantidad).times(dec(item.PrecioUnitario)).minus(dec(item.DescuentoMonto)).plus(dec(item.RecargoMnt));
    if (dec(item.MontoItem).minus(expected).abs().gt(CENT)) out.push(motivo('E05', `Línea ${i + 1}: MontoItem ${item.MontoItem} ≠ ${expected.toFixed(2)} (Formato CFE B-C24)`));
  });
  return out;
}

/** eTck/eFact families: their net totals come from the lines (A-C112..A-C117). */
const NET_GROUPS: ReadonlyArray<[field: string, codes: string[], rate: string | null, id: string]> = [
  ['MntNoGrv', ['1', '16'], null, 'A-C112'], ['MntExpoyAsim', ['10'], null, 'A-C113'], ['MntImpuestoPerc', ['11'], null, 'A-C114'],
  ['MntIVaenSusp', ['12'], null, 'A-C115'], ['MntNetoIvaTasaMin', ['2'], '10', 'A-C116'], ['MntNetoIVATasaBasica', ['3'], '22', 'A-C117'],
];
const NET_FROM_LINES_TYPES = new Set(['101', '102', '103', '111', '112', '113', '131', '132', '133', '141', '142', '143']);

/**
 * A-C112..A-C117: each net = Σ MontoItem of its billing indicators − global discounts + surcharges
 * (DRG_Item with that IndFactDR), divided by (1 + rate) when MntBruto = 1 (prices include VAT). One
 * cent per line of the group is allowed for the rounding of a VAT-inclusive division. An indicator
 * with a percentage global line (TpoDR 2) is not judged: how DGI turns it into an amount is not
 * published (BRIEF 2.4 [I]); nor is "otra tasa" (4), whose rate the CFE does not carry.
 */
function netFindings(c: CfeContent): Motivo[] {
  if (!NET_FROM_LINES_TYPES.has(c.idDoc.TipoCFE ?? '')) return [];
  const out: Motivo[] = [];
  for (const [field, codes, rate, id] of NET_GROUPS) {
    const lines = c.items.filter((i) => codes.includes(i.IndFact ?? ''));
    const drg = c.drg.filter((d) => codes.includes(d.IndFactDR ?? ''));
    if (drg.some((d) => d.TpoDR === '2')) continue;
    let gross = lines.reduce((acc, i) => acc.plus(dec(i.MontoItem)), new Decimal(0));
    for (const d of drg) gross = d.TpoMovDR === 'D' ? gross.minus(dec(d.ValorDR)) : gross.plus(dec(d.ValorDR));
    const expected = rate && c.idDoc.MntBruto === '1' ? gross.div(new Decimal(1).plus(dec(rate).div(100))) : gross;
    if (dec(c.totales[field]).minus(expected).abs().gt(CENT.times(lines.length + 1))) {
      out.push(motivo('E05', `${field} ${c.totales[field] ?? '(ausente)'} ≠ ${expected.toFixed(2)} de las líneas con IndFact ${codes.join('/')}${rate && c.idDoc.MntBruto === '1' ? ` (MntBruto 1: ÷ ${1 + Number(rate) / 100})` : ''} (Formato CFE ${id})`));
    }
  }
  return out;
}

function referenceFindings(tipo: string, ruc: string, c: CfeContent, ctx: ContentContext): Motivo[] {
  const refs = c.referencias ?? [];
  // FCFE zone F (BRIEF 2.8): the reference zone is mandatory on every credit and debit note.
  if (NOTE_TYPES.has(tipo) && refs.length === 0) return [motivo('E05', `Tipo ${tipo}: nota sin Zona de Referencia (Formato CFE zona F, obligatoria para NC/ND)`)];
  const out: Motivo[] = [];
  const triples = new Set<string>();
  for (const r of refs) {
    const line = `Referencia ${r.NroLinRef ?? '?'}`;
    if (r.IndGlobal === '1') {
      if (!r.RazonRef) out.push(motivo('E05', `${line}: IndGlobal=1 exige RazonRef (Formato CFE F-C3/F-C7)`));
      if (r.TpoDocRef || r.Serie || r.NroCFERef || r.FechaCFEref || r.MntCFEref) out.push(motivo('E05', `${line}: IndGlobal=1 no admite TpoDocRef, Serie, NroCFERef, FechaCFEref ni MntCFEref (Formato CFE zona F)`));
      continue;
    }
    if (!r.TpoDocRef || !r.Serie || !r.NroCFERef) {
      out.push(motivo('E05', `${line}: sin IndGlobal exige TpoDocRef, Serie y NroCFERef (Formato CFE zona F)`));
      continue;
    }
    const triple = `${r.TpoDocRef}:${r.Serie}:${Number(r.NroCFERef)}`;
    if (triples.has(triple)) out.push(motivo('E05', `${line}: referencia repetida ${triple} (Formato CFE zona F)`));
    triples.add(triple);
    const ref = ctx.known(`${ruc}:${triple}`);
    // FMR 4.3 E12: the referenced CFE must be in DGI's records (received, not rejected).
    if (!ref || ref.estado === 'BE') {
      out.push(motivo('E12', `${line}: CFE ${r.TpoDocRef} ${r.Serie} ${r.NroCFERef} ${ref ? 'fue rechazado por DGI' : 'no fue recibido por DGI'}`));
      continue;
    }
    if (r.FechaCFEref && r.FechaCFEref !== ref.fchEmis) out.push(motivo('E12', `${line}: FechaCFEref ${r.FechaCFEref} ≠ fecha del CFE referenciado ${ref.fchEmis} (Formato CFE zona F)`));
    if (r.TpoMonedaRef && r.TpoMonedaRef !== ref.moneda) out.push(motivo('E12', `${line}: TpoMonedaRef ${r.TpoMonedaRef} ≠ moneda del CFE referenciado ${ref.moneda} (Formato CFE zona F)`));
    if (r.MntCFEref && (dec(r.MntCFEref).lt(0) || dec(r.MntCFEref).gt(dec(ref.mntPagar)))) out.push(motivo('E12', `${line}: MntCFEref ${r.MntCFEref} fuera de 0..${ref.mntPagar} (MntPagar del referenciado; Formato CFE zona F)`));
  }
  return out;
}

/** Every content finding of one CFE, in the order DGI would list them. */
export function checkContent(cfe: { tipoCFE: string; rucEmisor: string }, content: CfeContent, ctx: ContentContext): Motivo[] {
  return [...receiverFindings(cfe.tipoCFE, content, ctx), ...totalsFindings(content), ...referenceFindings(cfe.tipoCFE, cfe.rucEmisor, content, ctx)];
}

/** The facts kept of a CFE once answered. */
export function factsOf(content: CfeContent, tmstFirma: string | null, estado: CfeFacts['estado'], motivoCode?: string, uiThresholdUyu?: Decimal): CfeFacts {
  const t = content.totales;
  return {
    estado,
    ...(motivoCode ? { motivo: motivoCode } : {}),
    fchEmis: content.idDoc.FchEmis ?? '',
    fechaFirma: (tmstFirma ?? '').slice(0, 10),
    moneda: t.TpoMoneda || 'UYU',
    ...(t.TpoCambio ? { tpoCambio: t.TpoCambio } : {}),
    mntTotal: t.MntTotal || '0',
    mntPagar: t.MntPagar || '0',
    ...(uiThresholdUyu && TICKET_TYPES.has(content.idDoc.TipoCFE ?? '') && netUyu(content).gt(uiThresholdUyu) ? { sobreTopeUI: true } : {}),
  };
}
