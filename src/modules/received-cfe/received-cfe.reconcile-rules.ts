/**
 * Reconciliation of received CFE against DGI (issue 31 point 6; BRIEF 7 EFACCONSULTARCFERECIBIDOS):
 * pure comparison of what the mailbox delivered with what DGI says other issuers sent it for the
 * company. Identity = (RUC emisor, tipo, serie, número). Categories:
 * - faltante_en_buzon: DGI has it (AE/CE) and it never reached us: ask the issuer to resend it.
 *   One DGI rejected (BE) is no valid CFE: not listed;
 * - no_registrado_en_dgi: we hold it (not duplicado / rechazado_formato) and DGI does not;
 * - diferencia_estado: DGI rejected it (BE) and we hold it as valid, or we hold it as voided by the
 *   issuer (anulado_emisor) and DGI has it accepted. The company's own commercial rejection is no
 *   DGI state (BRIEF 8) and is not compared;
 * - diferencia_monto: currency, MontoTotal, TotalIVA or TotalRetenido differ (decimal comparison).
 */
import { Decimal } from 'decimal.js';
import type { DatosCfeRecibido } from '../dgi/dgi.recibidos-client.js';
import type { ReconciliationCategory, ReconciliationItem } from './received-cfe.reports.tables.js';

export const CATEGORIES: readonly ReconciliationCategory[] = ['faltante_en_buzon', 'no_registrado_en_dgi', 'diferencia_estado', 'diferencia_monto'];

export interface LocalReceived {
  id: number;
  rutEmisor: string;
  tipoCfe: number;
  serie: string;
  numero: number;
  estado: string;
  fechaEmision: string | null;
  moneda: string | null;
  mntTotal: string | null;
  /** The CFE's Totales as read at intake (DGI names). */
  totales: Record<string, unknown> | null;
}

const key = (rut: string, tipo: number, serie: string, nro: number) => `${rut}:${tipo}:${serie}:${nro}`;
const dec = (v: unknown) => {
  try {
    return v === null || v === undefined || v === '' ? null : new Decimal(String(v));
  } catch {
    return null;
  }
};
const sum = (t: Record<string, unknown> | null, keys: string[]) => (t ? keys.reduce((acc, k) => acc.plus(dec(t[k]) ?? 0), new Decimal(0)) : null);

function amountDifferences(local: LocalReceived, dgi: DatosCfeRecibido): ReconciliationItem['diferencias'] {
  const out: ReconciliationItem['diferencias'] = [];
  if (dgi.Moneda && local.moneda && dgi.Moneda !== local.moneda) out.push({ campo: 'moneda', local: local.moneda, dgi: dgi.Moneda });
  const pairs: Array<[string, Decimal | null, string | null]> = [
    ['montoTotal', dec(local.mntTotal), dgi.MontoTotal],
    ['totalIva', sum(local.totales, ['MntIVATasaMin', 'MntIVATasaBasica', 'MntIVAOtra']), dgi.TotalIVA],
    ['totalRetenido', sum(local.totales, ['MntTotRetenido']), dgi.TotalRetenido],
  ];
  for (const [campo, mine, theirs] of pairs) {
    const d = dec(theirs);
    if (d === null || mine === null) continue;
    if (!mine.equals(d)) out.push({ campo, local: mine.toFixed(2), dgi: d.toFixed(2) });
  }
  return out;
}

export function reconcile(local: LocalReceived[], dgi: DatosCfeRecibido[]): { items: ReconciliationItem[]; conteos: Record<ReconciliationCategory, number> } {
  const byKey = new Map(local.map((l) => [key(l.rutEmisor, l.tipoCfe, l.serie, l.numero), l]));
  const matched = new Set<string>();
  const items: ReconciliationItem[] = [];
  const item = (categoria: ReconciliationCategory, l: LocalReceived | undefined, d: DatosCfeRecibido | undefined, diferencias: ReconciliationItem['diferencias'] = []): ReconciliationItem => ({
    categoria,
    rutEmisor: (l?.rutEmisor ?? d?.RUCEmisor)!, tipoCfe: (l?.tipoCfe ?? d?.TipoCFE)!, serie: (l?.serie ?? d?.Serie)!, numero: (l?.numero ?? d?.Nro)!,
    idCfeRecibido: l?.id ?? null, estadoLocal: l?.estado ?? null, estadoDgi: d?.Estado ?? null,
    fechaEmision: l?.fechaEmision ?? null, fechaDgi: d?.FechaHora ?? null, moneda: l?.moneda ?? d?.Moneda ?? null,
    montoLocal: l?.mntTotal ?? null, montoDgi: d?.MontoTotal ?? null, diferencias,
  });
  for (const d of dgi) {
    const k = key(d.RUCEmisor, d.TipoCFE, d.Serie, d.Nro);
    const l = byKey.get(k);
    if (!l) {
      if (d.Estado !== 'BE') items.push(item('faltante_en_buzon', undefined, d));
      continue;
    }
    matched.add(k);
    const dgiRejected = d.Estado === 'BE';
    const localVoided = l.estado === 'anulado_emisor';
    if (dgiRejected !== localVoided) items.push(item('diferencia_estado', l, d, [{ campo: 'estado', local: l.estado, dgi: d.Estado }]));
    const diffs = amountDifferences(l, d);
    if (diffs.length) items.push(item('diferencia_monto', l, d, diffs));
  }
  for (const [k, l] of byKey) if (!matched.has(k)) items.push(item('no_registrado_en_dgi', l, undefined));
  const conteos = Object.fromEntries(CATEGORIES.map((c) => [c, items.filter((i) => i.categoria === c).length])) as Record<ReconciliationCategory, number>;
  return { items, conteos };
}

/** [desde, hasta] split into consecutive windows of at most `maxDays` days (BRIEF 7: ≤ 31 days per call). */
export function splitPeriod(desde: string, hasta: string, maxDays: number): Array<{ desde: string; hasta: string }> {
  const day = 86_400_000;
  const out: Array<{ desde: string; hasta: string }> = [];
  const end = Date.parse(`${hasta}T00:00:00Z`);
  for (let start = Date.parse(`${desde}T00:00:00Z`); start <= end; start += maxDays * day) {
    out.push({ desde: new Date(start).toISOString().slice(0, 10), hasta: new Date(Math.min(end, start + (maxDays - 1) * day)).toISOString().slice(0, 10) });
  }
  return out;
}
