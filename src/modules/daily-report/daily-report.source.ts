/**
 * From stored CFEs to the pure report builder's input (BRIEF 9, FREP C26-C30), without I/O:
 * which CFEs count as emitted or annulled, which voided numbers join them, and the UI threshold.
 */
import { Decimal } from 'decimal.js';
import { NON_VOIDING_REJECTIONS, type ReporteCfe, type ReporteDiarioInput } from '../emission/index.js';
import type { DayCfeRow } from '../issued-cfe/index.js';

export interface VoidedRange {
  tipoCfe: number;
  serie: string;
  desde: number;
  hasta: number;
}

const NET_FIELDS = ['MntNoGrv', 'MntExpoyAsim', 'MntImpuestoPerc', 'MntIVaenSusp', 'MntNetoIvaTasaMin', 'MntNetoIVATasaBasica', 'MntNetoIVAOtra'] as const;
/** e-Ticket types and their CFC counterparts (2xx = 1xx + 100). */
const isTicket = (tipo: number) => [101, 102, 103, 131, 132, 133].includes(tipo >= 200 ? tipo - 100 : tipo);

/** BRIEF 1: net amount without VAT in pesos above 5,000 UI (CantDocsMay_topeUI of e-Ticket blocks). */
export function exceedsUiThreshold(row: Pick<DayCfeRow, 'tipoCfe' | 'totales' | 'moneda' | 'tipoCambio'>, uiThresholdUyu: Decimal): boolean {
  if (!isTicket(row.tipoCfe)) return false;
  const t = row.totales as Record<string, string | undefined>;
  const net = NET_FIELDS.reduce((acc, f) => acc.plus(t[f] ?? 0), new Decimal(0));
  const uyu = row.moneda !== 'UYU' ? net.times(row.tipoCambio ?? 1) : net;
  return uyu.gt(uiThresholdUyu);
}

/**
 * How each stored CFE enters the report:
 * - DGI-rejected ('rechazado') → 'anulado' (BRIEF 10: every rejected CFE is voided), except E02/E09;
 * - CFC observed by DGI ('observado') → left out (FREP: CFC blocks count emitted, non-observed CFCs);
 * - anything else (signed, queued, received, accepted…) → 'emitido'.
 */
export function reportState(row: Pick<DayCfeRow, 'tipoCfe' | 'estado' | 'codigoRechazo'>): 'emitido' | 'anulado' | null {
  if (row.tipoCfe >= 200 && row.estado === 'observado') return null;
  if (row.estado === 'rechazado') {
    if (row.tipoCfe >= 200) return null;
    return row.codigoRechazo && NON_VOIDING_REJECTIONS.has(row.codigoRechazo) ? 'emitido' : 'anulado';
  }
  return 'emitido';
}

export interface SourceOptions {
  rucEmisor: string;
  fechaResumen: string;
  secEnvio: number;
  tmstFirmaEnv: string;
  uiThresholdUyu: Decimal;
  /** Fiscal rate (BRIEF 9: BCU interbank buyer quote at the close of the day before FchEmis), by `${moneda}|${fchEmis}`. */
  fiscalRates: ReadonlyMap<string, string>;
}

/** The day before a YYYY-MM-DD date (the fiscal rate's quote day). */
export function dayBefore(fecha: string): string {
  const d = new Date(`${fecha}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

export function buildReportInput(rows: DayCfeRow[], voided: VoidedRange[], o: SourceOptions): ReporteDiarioInput {
  const cfes: ReporteCfe[] = [];
  const stored = new Set<string>();
  for (const row of rows) {
    stored.add(`${row.tipoCfe}:${row.serie}:${row.numero}`);
    const estado = reportState(row);
    if (!estado) continue;
    const t = row.totales as ReporteCfe['totales'];
    cfes.push({
      tipoCfe: row.tipoCfe,
      serie: row.serie,
      nro: row.numero,
      fchEmis: row.fechaEmision,
      cdgDGISucur: Number(row.cdgDgiSucur ?? 0),
      ...(row.indPagCta3ros === '1' ? { indPagCta3ros: 1 as const } : {}),
      ...(row.moneda !== 'UYU' ? { tpoMoneda: row.moneda } : {}),
      ...(row.tipoCambio ? { tpoCambio: row.tipoCambio } : {}),
      ...(row.moneda !== 'UYU' && o.fiscalRates.has(`${row.moneda}|${row.fechaEmision}`) ? { fiscalRate: o.fiscalRates.get(`${row.moneda}|${row.fechaEmision}`) } : {}),
      totales: t,
      estado,
      superaTopeUI: estado === 'emitido' && exceedsUiThreshold(row, o.uiThresholdUyu),
    });
  }
  // A rejected CFE may also be recorded as a voided number (cae motivo 'rechazo'): count it once.
  const anulados: ReporteDiarioInput['anulados'] = [];
  for (const v of voided) {
    if (v.tipoCfe >= 200) continue; // CFC numbering is not reported (FREP)
    for (let nro = v.desde; nro <= v.hasta; nro++) {
      if (!stored.has(`${v.tipoCfe}:${v.serie}:${nro}`)) anulados.push({ tipoCfe: v.tipoCfe, serie: v.serie, nro });
    }
  }
  return { rucEmisor: o.rucEmisor, fechaResumen: o.fechaResumen, secEnvio: o.secEnvio, tmstFirmaEnv: o.tmstFirmaEnv, cfes, anulados };
}
