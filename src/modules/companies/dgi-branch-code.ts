/**
 * Spec 2.2 rule 5: the DGI branch code (Emisor/CdgDGISucur) of a CFE is the branch history entry
 * valid at idDoc.fechaEmision; else Sucursal.CodigoCasaDgi; else Empresa.CodigoCasaDgiPorDefecto.
 * Validity windows are inclusive at both ends; an open end (null) means "still valid".
 */
import { companyErrors } from './companies.errors.js';

export interface DgiCodeEntry { codigoDgiSucursal: number; validFrom: string; validTo: string | null }
export type DgiCodeSource = 'historial' | 'sucursal' | 'empresa';

/** Dates are YYYY-MM-DD strings, so lexical order is date order. */
export function historyCodeAt(history: readonly DgiCodeEntry[], fecha: string): number | undefined {
  let best: DgiCodeEntry | undefined;
  for (const e of history) {
    if (e.validFrom <= fecha && (e.validTo === null || e.validTo >= fecha) && (!best || e.validFrom > best.validFrom)) best = e;
  }
  return best?.codigoDgiSucursal;
}

export function pickDgiBranchCode(
  historyCode: number | null | undefined,
  branchCode: number | null,
  companyDefault: number | null,
): { codigoDgiSucursal: number; origen: DgiCodeSource } | undefined {
  if (historyCode !== null && historyCode !== undefined) return { codigoDgiSucursal: historyCode, origen: 'historial' };
  if (branchCode !== null) return { codigoDgiSucursal: branchCode, origen: 'sucursal' };
  if (companyDefault !== null) return { codigoDgiSucursal: companyDefault, origen: 'empresa' };
  return undefined;
}

/**
 * Rejects a history whose windows overlap or end before they start: with overlaps, rule 5 would not
 * name one code for a date. Returns the entries sorted by start date.
 */
export function validateHistory<T extends DgiCodeEntry>(entries: readonly T[]): T[] {
  const sorted = [...entries].sort((a, b) => a.validFrom.localeCompare(b.validFrom));
  for (const [i, e] of sorted.entries()) {
    if (e.validTo !== null && e.validTo < e.validFrom) {
      throw companyErrors.HISTORIAL_CODIGOS_INVALIDO(`La vigencia del código ${e.codigoDgiSucursal} termina (${e.validTo}) antes de empezar (${e.validFrom}).`);
    }
    const next = sorted[i + 1];
    if (next && (e.validTo === null || e.validTo >= next.validFrom)) {
      throw companyErrors.HISTORIAL_CODIGOS_INVALIDO(
        `Las vigencias de los códigos ${e.codigoDgiSucursal} (desde ${e.validFrom}) y ${next.codigoDgiSucursal} (desde ${next.validFrom}) se superponen.`,
      );
    }
  }
  return sorted;
}
