/**
 * The daily report judged against the CFEs DGI itself received signed that day, as DGI's Testing
 * does before a report reaches "Reporte Procesado" (BRIEF 9 and 13; FREP v13.2 C26-C30). Every
 * problem becomes R04 "No cumple validaciones según Formato de Reporte" with a sentence naming it.
 *
 * Rules, per CFE type block (CFC blocks, types 2xx, are not compared: DGI only sees CFCs later):
 * - C26: CantDocsUtil = Σ(NroHasta − NroDesde + 1) over RngDocsUtil, when ranges are given;
 * - C29: CantDocsEmi = CantDocsUtil − CantDocsAnulados;
 * - C27: CantDocsMay_topeUI = the e-Tickets DGI received above 5,000 UI net (when every one was sent);
 * - C30: CantComprobantes = Σ CantDocsUtil + Σ CantCFCEmi;
 * - every CFE DGI received (AE) that day lies in a RngDocsUtil range and outside RngDocsAnulados;
 *   every CFE DGI rejected (BE, except E02/E09, BRIEF 10) lies in RngDocsAnulados;
 * - a type DGI received that day has its block;
 * - FSOB §1: e-Facturas and their notes are always sent one by one, so for them (and for e-Tickets
 *   when every one was sent) CantDocsEmi equals what DGI received and Σ TotMntTotal equals the sum of
 *   their MntTotal in pesos: the CFE's own TpoCambio for notes, the fiscal rate (BCU buyer quote of
 *   the day before FchEmis) for the rest (BRIEF 9). One cent per CFE is allowed for the conversion.
 */
import { Decimal } from 'decimal.js';
import { XmlElement, type XmlDocument } from '../../../platform/xml/libxml2.ts';
import { parseXmlText } from '../../../platform/xml/standalone-signature.ts';
import { NOTE_TYPES, type CfeFacts } from './content-rules.ts';

const TICKETS = new Set(['101', '102', '103', '131', '132', '133']);
const ALWAYS_SENT = new Set(['111', '112', '113', '121', '122', '123', '141', '142', '143', '181', '182']);
/** Rejections that do not void the number (BRIEF 10). */
const NON_VOIDING = new Set(['E02', 'E09']);

const kids = (el: XmlElement) => {
  const out: XmlElement[] = [];
  for (let n = el.firstChild; n; n = n.next) if (n instanceof XmlElement) out.push(n);
  return out;
};
const child = (el: XmlElement | undefined, name: string) => (el ? kids(el).find((k) => k.name === name) : undefined);
const text = (el: XmlElement | undefined, name: string) => child(el, name)?.content.trim();

interface Range {
  serie: string;
  desde: number;
  hasta: number;
}
const ranges = (el: XmlElement | undefined, item: string): Range[] =>
  el ? kids(el).filter((k) => k.name === item).map((r) => ({ serie: text(r, 'Serie') ?? '', desde: Number(text(r, 'NroDesde')), hasta: Number(text(r, 'NroHasta')) })) : [];
const inRanges = (list: Range[], serie: string, nro: number) => list.some((r) => r.serie === serie && nro >= r.desde && nro <= r.hasta);

export interface ReportContext {
  ruc: string;
  fechaResumen: string;
  /** `tipo:serie:nro` → what DGI answered for the CFEs of this RUC signed on FechaResumen. */
  facts: Map<string, CfeFacts>;
  fiscalRate(moneda: string, fchEmis: string): string | null;
}

function pesos(tipo: string, f: CfeFacts, ctx: ReportContext): Decimal {
  if (f.moneda === 'UYU') return new Decimal(f.mntTotal);
  const rate = NOTE_TYPES.has(tipo) || f.moneda === 'UYI' || f.moneda === 'UYR' ? f.tpoCambio : (ctx.fiscalRate(f.moneda, f.fchEmis) ?? f.tpoCambio);
  return new Decimal(f.mntTotal).times(rate ?? 1);
}

/** The problems of a (schema-valid, signed) report; empty when it adds up. */
export function checkReport(xml: string, ctx: ReportContext): string[] {
  let doc: XmlDocument;
  try {
    doc = parseXmlText(xml);
  } catch (error) {
    return [`Reporte ilegible: ${(error as Error).message}`];
  }
  try {
    return judge(doc.root, ctx);
  } finally {
    doc.dispose();
  }
}

function judge(root: XmlElement, ctx: ReportContext): string[] {
  const problems: string[] = [];
  const byType = new Map<string, Array<[string, number, CfeFacts]>>();
  for (const [key, f] of ctx.facts) {
    const [tipo, serie, nro] = key.split(':');
    if (tipo.startsWith('2')) continue;
    byType.set(tipo, [...(byType.get(tipo) ?? []), [serie, Number(nro), f]]);
  }
  let cantComprobantes = 0;
  const reported = new Set<string>();
  for (const block of kids(root).filter((k) => k.name.startsWith('Rsmn_'))) {
    const tipo = text(block, 'TipoComp') ?? '';
    const data = child(block, 'RsmnData');
    if (tipo.startsWith('2')) {
      cantComprobantes += Number(text(data, 'CantCFCEmi') ?? 0);
      continue;
    }
    reported.add(tipo);
    const util = Number(text(data, 'CantDocsUtil') ?? 0);
    const anulados = Number(text(data, 'CantDocsAnulados') ?? 0);
    const emi = Number(text(data, 'CantDocsEmi') ?? util - anulados);
    cantComprobantes += util;
    const rdu = ranges(child(data, 'RngDocsUtil'), 'RDU_Item');
    const rda = ranges(child(data, 'RngDocsAnulados'), 'RDA_Item');
    if (rdu.length) {
      const span = rdu.reduce((acc, r) => acc + r.hasta - r.desde + 1, 0);
      if (span !== util) problems.push(`Tipo ${tipo}: CantDocsUtil ${util} ≠ ${span} números en RngDocsUtil (Formato Reporte C26)`);
    }
    if (emi !== util - anulados) problems.push(`Tipo ${tipo}: CantDocsEmi ${emi} ≠ CantDocsUtil − CantDocsAnulados = ${util - anulados} (Formato Reporte C29)`);

    const received = byType.get(tipo) ?? [];
    const accepted = received.filter(([, , f]) => f.estado === 'AE');
    for (const [serie, nro, f] of received) {
      if (f.estado === 'AE' && (!inRanges(rdu, serie, nro) || inRanges(rda, serie, nro))) {
        problems.push(`Tipo ${tipo}: CFE ${serie} ${nro} recibido por DGI no está informado como utilizado y emitido (Formato Reporte C26/C28)`);
      } else if (f.estado === 'BE' && !NON_VOIDING.has(f.motivo ?? '') && !inRanges(rda, serie, nro)) {
        problems.push(`Tipo ${tipo}: CFE ${serie} ${nro} rechazado por DGI (${f.motivo}) no está informado como anulado (Formato Reporte C28)`);
      }
    }
    if (ALWAYS_SENT.has(tipo) || emi === accepted.length) {
      if (emi !== accepted.length) problems.push(`Tipo ${tipo}: CantDocsEmi ${emi} ≠ ${accepted.length} CFE recibidos por DGI firmados el ${ctx.fechaResumen} (Formato Reporte C29)`);
      if (TICKETS.has(tipo)) {
        // C27: e-Tickets above 5,000 UI net (BRIEF 1), of those DGI received.
        const above = accepted.filter(([, , f]) => f.sobreTopeUI).length;
        const informedAbove = Number(text(data, 'CantDocsMay_topeUI') ?? 0);
        if (informedAbove !== above) problems.push(`Tipo ${tipo}: CantDocsMay_topeUI ${informedAbove} ≠ ${above} e-Tickets sobre el tope de 5.000 UI recibidos por DGI (Formato Reporte C27)`);
      }
      const montos = child(data, 'Montos');
      const informed = (montos ? kids(montos) : []).reduce((acc, item) => acc.plus(text(item, 'TotMntTotal') ?? 0), new Decimal(0));
      const expected = accepted.reduce((acc, [, , f]) => acc.plus(pesos(tipo, f, ctx)), new Decimal(0));
      if (informed.minus(expected).abs().gt(new Decimal('0.01').times(accepted.length + 1))) {
        problems.push(`Tipo ${tipo}: TotMntTotal informado ${informed.toFixed(2)} ≠ ${expected.toFixed(2)} UYU de los CFE recibidos por DGI (Formato Reporte, Montos)`);
      }
    }
  }
  for (const [tipo, list] of byType) {
    if (!reported.has(tipo) && list.some(([, , f]) => f.estado === 'AE' || !NON_VOIDING.has(f.motivo ?? ''))) {
      problems.push(`Tipo ${tipo}: DGI recibió ${list.length} CFE firmados el ${ctx.fechaResumen} y el reporte no tiene su resumen (Formato Reporte C26)`);
    }
  }
  const declared = Number(text(child(root, 'Caratula'), 'CantComprobantes') ?? 0);
  if (declared !== cantComprobantes) problems.push(`CantComprobantes ${declared} ≠ Σ CantDocsUtil + Σ CantCFCEmi = ${cantComprobantes} (Formato Reporte C30)`);
  return problems;
}
