/** Turns a draft CFE (items, no totals) into a complete one: item amounts, then Totales (BRIEF 2.4). */
import { getCfeType } from './cfe-types.ts';
import type { Cfe, Totales } from './cfe.model.ts';
import { completeItem, computeTotales, type TotalsOptions } from './totals.ts';

export type CfeDraft = Omit<Cfe, 'Totales'> & { Totales?: Pick<Totales, 'TpoMoneda' | 'TpoCambio'> };

/** Completes items (MontoItem, discount amounts) and computes Totales for a draft CFE. */
export function completeCfe(draft: CfeDraft, options: TotalsOptions = {}): Cfe {
  const { branch } = getCfeType(draft.IdDoc.TipoCFE);
  const pricedItems = branch !== 'eRem' && branch !== 'eResg';
  const Detalle = pricedItems ? draft.Detalle.map(completeItem) : draft.Detalle;
  const Totales = computeTotales(
    {
      TipoCFE: draft.IdDoc.TipoCFE,
      MntBruto: draft.IdDoc.MntBruto,
      IndCobPropia: draft.IdDoc.IndCobPropia,
      TpoMoneda: draft.Totales?.TpoMoneda,
      TpoCambio: draft.Totales?.TpoCambio,
      Detalle,
      DscRcgGlobal: draft.DscRcgGlobal,
    },
    options,
  );
  return { ...draft, Detalle, Totales };
}
