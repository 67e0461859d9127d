/**
 * A late correction of a closed period (issue 34 point 4), pure: the rating the period's CFE was
 * built from and the rating of the period now give, per priced line and minimum, the difference.
 * Increases go in a debit note, decreases in a credit note (BRIEF 2.2: notes of the original's
 * family, 101 → 102/103, 111 → 112/113), each referencing the period's CFE. A note line is one unit
 * at the difference (B-C24 holds: 1 × precio = monto), named after the original line and saying what
 * was billed and what is due; never a silent change.
 */
import { Decimal } from 'decimal.js';
import type { PeriodCfeBody, PeriodCfeLine } from '../price-books/period-cfe.js';
import type { RatingResult } from '../price-books/rating.js';

export interface OriginalRef { tipoCfe: number; serie: string; numero: number; fecha: string }
export interface NotePlan { kind: 'credito' | 'debito'; amount: string; body: PeriodCfeBody & { cfe: { referencias: unknown[] } } }

interface Piece { name: string; indFact: number; about: string; amount: string }

const dims = (d?: Record<string, string>) => Object.entries(d ?? {}).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(',');

function pieces(r: RatingResult): Map<string, Piece> {
  const out = new Map<string, Piece>();
  for (const l of r.lineas) {
    const about = dims(l.dimensiones) ? `${l.metrica} (${dims(l.dimensiones)})` : l.metrica;
    out.set(`p|${l.metrica}|${dims(l.dimensiones)}`, { name: l.nombreItem, indFact: l.indicadorFacturacion, about, amount: l.monto });
  }
  for (const m of r.minimos) {
    const about = m.alcance === 'periodo' ? 'mínimo del período' : `mínimo de ${m.metrica}${dims(m.dimensiones) ? ` (${dims(m.dimensiones)})` : ''}`;
    out.set(`m|${m.alcance}|${m.metrica ?? ''}|${dims(m.dimensiones)}`, { name: m.nombreItem, indFact: m.indicadorFacturacion, about, amount: m.monto });
  }
  return out;
}

export function correctionNotes(billed: RatingResult, now: RatingResult, header: PeriodCfeBody, original: OriginalRef): NotePlan[] {
  const before = pieces(billed);
  const after = pieces(now);
  const { desde, hasta } = { desde: header.cfe.idDoc.periodoDesde, hasta: header.cfe.idDoc.periodoHasta };
  const lines: Record<NotePlan['kind'], Array<Omit<PeriodCfeLine, 'numeroLineaDetalle'>>> = { credito: [], debito: [] };
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const b = before.get(key);
    const a = after.get(key);
    const delta = new Decimal(a?.amount ?? 0).minus(b?.amount ?? 0);
    if (delta.isZero()) continue;
    const p = (a ?? b)!;
    const amount = delta.abs().toFixed(2);
    lines[delta.isPositive() ? 'debito' : 'credito'].push({
      indicadorFacturacion: p.indFact, nombreItem: p.name, cantidad: '1', precioUnitario: amount, montoItem: amount,
      descripcionItem: `Corrección de ${p.about}, período ${desde} a ${hasta}: facturado ${b?.amount ?? '0.00'}, corresponde ${a?.amount ?? '0.00'}.`,
    });
  }
  const plans: NotePlan[] = [];
  for (const kind of ['debito', 'credito'] as const) {
    if (!lines[kind].length) continue;
    const amount = lines[kind].reduce((s, l) => s.plus(l.montoItem), new Decimal(0)).toFixed(2);
    const razon = `Corrección de consumo del período ${desde} a ${hasta}`;
    plans.push({
      kind, amount,
      body: {
        ...header,
        cfe: {
          ...header.cfe,
          idDoc: { ...header.cfe.idDoc, tipoCfe: original.tipoCfe + (kind === 'credito' ? 1 : 2) },
          detalles: lines[kind].map((l, i) => ({ numeroLineaDetalle: i + 1, ...l })),
          referencias: [{ tipoCfe: original.tipoCfe, serie: original.serie, numero: original.numero, fecha: original.fecha, razon }],
          adenda: `${razon}; nota ${kind === 'credito' ? 'de crédito' : 'de débito'} por ${amount} sobre el CFE ${original.serie}-${original.numero}.`,
        },
      },
    });
  }
  return plans;
}
