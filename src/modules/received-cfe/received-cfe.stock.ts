/**
 * marcarComoImportadoStock (issue 31 point 4): the company's stock system took the purchase in, under
 * its own document reference. Recorded once: the same reference again is a no-op (a retry after a
 * lost answer), another reference is refused (the goods would be counted twice). Per-line quantities
 * are optional and must name lines of the CFE (NroLinDet).
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { receivedErrors as E } from './received-cfe.errors.js';
import { receivedCfes, type ReceivedCfeRow, type StockLine } from './received-cfe.tables.js';

/** Not documents of the company's books: a duplicate, one that failed the format checks, one the issuer voided. */
const NOT_STOCKABLE = new Set(['duplicado', 'rechazado_formato', 'anulado_emisor']);

export interface StockInput {
  referencia: string;
  lineas?: Array<{ nroLinea: number; cantidad: string }>;
}

export function stockView(row: Pick<ReceivedCfeRow, 'stockReferencia' | 'stockLineas' | 'stockImportadoEn' | 'stockImportadoPor'>) {
  return row.stockReferencia === null
    ? null
    : { referencia: row.stockReferencia, lineas: row.stockLineas ?? [], fecha: row.stockImportadoEn!.toISOString(), idUsuario: row.stockImportadoPor };
}

function lineNumbers(row: ReceivedCfeRow): Set<number> {
  const detalle = (row.datos?.detalle ?? []) as Array<{ NroLinDet?: unknown }>;
  return new Set(detalle.map((d) => Number(d.NroLinDet)).filter(Number.isInteger));
}

export async function markImportedToStock(db: DbOrTx, row: ReceivedCfeRow, userId: number | null, input: StockInput) {
  if (row.stockReferencia !== null) return answer(row, input);
  if (NOT_STOCKABLE.has(row.estado)) throw E.CFE_RECIBIDO_NO_IMPORTABLE_STOCK(`El CFE recibido está ${row.estado}.`);
  const lines = input.lineas ?? [];
  const seen = new Set<number>();
  const known = lineNumbers(row);
  for (const l of lines) {
    if (seen.has(l.nroLinea)) throw E.STOCK_LINEA_INVALIDA(`La línea ${l.nroLinea} está repetida.`);
    if (!known.has(l.nroLinea)) throw E.STOCK_LINEA_INVALIDA(`El CFE no tiene la línea ${l.nroLinea}.`);
    seen.add(l.nroLinea);
  }
  const stockLineas: StockLine[] = lines.map((l) => ({ nroLinea: l.nroLinea, cantidad: l.cantidad }));
  // The guard on stock_referencia makes a concurrent second call lose cleanly: it re-reads and answers as a repeat.
  const [updated] = await db.update(receivedCfes)
    .set({ stockReferencia: input.referencia, stockLineas, stockImportadoEn: new Date(), stockImportadoPor: userId })
    .where(and(eq(receivedCfes.id, row.id), isNull(receivedCfes.stockReferencia)))
    .returning();
  if (updated) return { id: row.id, importadoStock: stockView(updated)!, repetido: false };
  const [now] = await db.select().from(receivedCfes).where(eq(receivedCfes.id, row.id));
  return answer(now, input);
}

function answer(row: ReceivedCfeRow, input: StockInput) {
  if (row.stockReferencia !== input.referencia) {
    throw E.CFE_RECIBIDO_YA_IMPORTADO_STOCK(`El CFE recibido ya se importó a stock con la referencia "${row.stockReferencia}".`);
  }
  return { id: row.id, importadoStock: stockView(row)!, repetido: true };
}
