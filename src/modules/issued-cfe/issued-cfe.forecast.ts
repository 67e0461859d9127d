/**
 * Number forecasting for the emission pipeline (issued-cfe.batcher.ts). A batch's numbers are
 * only known once its transaction holds the CAE range lock, and the signature covers them, so
 * signing inside the lock made sealing and the database strictly serial. Instead the next batch is
 * sealed ahead with the numbers that follow the previous batch in the same range; its transaction
 * then compares what it really reserved with the forecast and seals again on any difference (the
 * range ran out, another process took numbers, an earlier batch rolled back). A wrong forecast
 * costs time, never a wrong number: what is stored is always signed with the reserved numbers.
 */
import type { ReservedNumber } from './issued-cfe.ports.js';

/** The `count` numbers after `last` in the same range, or undefined when the range cannot hold them. */
export function forecastNumbers(last: ReservedNumber, count: number): ReservedNumber[] | undefined {
  if (count < 1 || last.numero + count > last.cae.HNro) return undefined;
  // A literal, not `{ ...last, numero }`: V8's spread copy missed its inline cache here on every receipt.
  return Array.from({ length: count }, (_, i) => ({ caeRangeId: last.caeRangeId, serie: last.serie, numero: last.numero + 1 + i, cae: last.cae }));
}

/** Same range, serie, numbers and CAE data, position by position (everything sealing writes into the CFE). */
export function sameNumbers(a: readonly ReservedNumber[], b: readonly ReservedNumber[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x.caeRangeId !== y.caeRangeId || x.serie !== y.serie || x.numero !== y.numero) return false;
    if (x.cae.NA !== y.cae.NA || x.cae.DNro !== y.cae.DNro || x.cae.HNro !== y.cae.HNro || x.cae.FVD !== y.cae.FVD) return false;
    if (x.cae.CAEEspecial !== y.cae.CAEEspecial || x.cae.CausalCAEEsp !== y.cae.CausalCAEEsp) return false;
  }
  return true;
}
