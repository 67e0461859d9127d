/**
 * The reference zone's rules (spec 2.4 rules 1-2, BRIEF 2.8): the body's own consistency, and the
 * references to the company's own CFEs checked against them. Pure: the service looks them up.
 */
import { Decimal } from 'decimal.js';
import { findCfeType, type CfeTypeInfo } from '../emission/index.js';
import { ddmmyyyy } from '../../lib/dates.js';
import { issuedCfeErrors as E } from './issued-cfe.errors.js';
import { indCobPropiaOf } from './issued-cfe.rules.js';
import type { CfeBody } from './issued-cfe.schemas.js';

/** A referenced receipt as the issued_cfes number key names it. */
export interface ReferencedKey { tipoCfe: number; serie: string; numero: number }

/** One of the company's own CFEs that a reference names, as the service looks it up. */
export interface OwnReferencedCfe extends ReferencedKey { fechaEmision: string; rejectedByDgi: boolean; moneda: string; tipoCambio: string | null; mntPagar: string | null }

const keyOf = (r: { tipoCfe?: number; serie?: string; numero?: number }) => `${r.tipoCfe}/${r.serie}/${r.numero}`;

/** Spec 2.4 rules 1-2 and BRIEF 2.8. */
export function checkReferences(info: CfeTypeInfo, cfe: CfeBody): void {
  const refs = cfe.referencias ?? [];
  refs.forEach((r, i) => {
    if (r.indicadorGlobal === 1) {
      // BRIEF 2.8: with IndGlobal, TpoDocRef, Serie, NroCFERef, FechaCFEref, MntCFEref, TpoMonedaRef and TpoCambioRef must be absent.
      const sent = (['tipoCfe', 'serie', 'numero', 'fecha', 'monto', 'tipoMoneda', 'tipoCambio'] as const).filter((f) => r[f] !== undefined);
      if (sent.length) throw E.REFERENCIA_GLOBAL_CON_DATOS(`Referencia ${i + 1}: una referencia global (indicadorGlobal = 1) no lleva ${sent.join(', ')}; envíe solo la razon o quite indicadorGlobal.`);
    }
    if (r.tipoMoneda !== undefined && r.tipoMoneda !== 'UYU' && r.tipoCambio === undefined) {
      throw E.REFERENCIA_TIPO_CAMBIO_REQUERIDO(`Referencia ${i + 1}: en ${r.tipoMoneda} debe indicar el tipoCambio del comprobante referenciado (BRIEF 2.8).`);
    }
    const complete = r.indicadorGlobal === 1 ? !!r.razon : r.tipoCfe !== undefined && !!r.serie && r.numero !== undefined;
    if (!complete) throw E.REFERENCIA_INCOMPLETA(`Referencia ${i + 1}: debe ser global (indicadorGlobal = 1 con razon) o indicar tipoCfe, serie y numero.`);
  });
  const seen = new Set<string>();
  for (const r of refs) {
    if (r.indicadorGlobal === 1) continue;
    const key = keyOf(r);
    if (seen.has(key)) throw E.REFERENCIA_INCOMPLETA(`La referencia ${key} está repetida.`);
    seen.add(key);
  }
  if (indCobPropiaOf(cfe) === 1 && refs.length === 0) throw E.COBRANZA_PROPIA_SIN_REFERENCIA();
  if (info.note && refs.length === 0) throw E.REFERENCIA_REQUERIDA(`Una ${info.name} debe indicar en referencias el comprobante que corrige.`);
}

/** The non-global references of a CFE body, as keys of the issued CFEs they name. */
export function referencedKeys(cfe: CfeBody): ReferencedKey[] {
  return (cfe.referencias ?? []).flatMap((r) => (r.indicadorGlobal === 1 || r.tipoCfe === undefined || !r.serie || r.numero === undefined ? [] : [{ tipoCfe: r.tipoCfe, serie: r.serie, numero: r.numero }]));
}

/**
 * BRIEF 2.8 against the company's own records: FechaCFEref must equal the referenced CFE's date, and
 * a CFE that DGI rejected is not in its records (E12; but an E02 rejection says the original is, so
 * `rejectedByDgi` is false for it); TpoMonedaRef and TpoCambioRef must be its own, and
 * 0 ≤ MntCFEref ≤ its MntPagar. Only what we issued can be checked: a reference
 * to a receipt issued elsewhere (another system, paper) is left to DGI.
 */
export function checkReferencedCfes(cfe: CfeBody, ours: OwnReferencedCfe[]): void {
  const byKey = new Map(ours.map((o) => [keyOf(o), o]));
  (cfe.referencias ?? []).forEach((r, i) => {
    const own = r.indicadorGlobal === 1 ? undefined : byKey.get(keyOf(r));
    if (!own) return;
    const name = `${findCfeType(own.tipoCfe)?.name ?? `tipo ${own.tipoCfe}`} ${own.serie}-${own.numero}`;
    if (r.fecha !== undefined && r.fecha !== own.fechaEmision) {
      throw E.REFERENCIA_FECHA_DISTINTA(`Referencia ${i + 1}: la fecha ${ddmmyyyy(r.fecha)} no coincide con la del comprobante ${name}, emitido el ${ddmmyyyy(own.fechaEmision)}; corríjala u omítala.`);
    }
    if (own.rejectedByDgi) {
      throw E.REFERENCIA_RECHAZADA_DGI(`Referencia ${i + 1}: el comprobante ${name} fue rechazado por DGI y no figura en sus registros; referencie el comprobante emitido en su lugar.`);
    }
    if (r.tipoMoneda !== undefined && r.tipoMoneda !== own.moneda) {
      throw E.REFERENCIA_MONEDA_DISTINTA(`Referencia ${i + 1}: el comprobante ${name} es en ${own.moneda}, no en ${r.tipoMoneda}.`);
    }
    if (r.tipoCambio !== undefined && own.tipoCambio !== null && !new Decimal(r.tipoCambio).eq(own.tipoCambio)) {
      throw E.REFERENCIA_MONEDA_DISTINTA(`Referencia ${i + 1}: el comprobante ${name} se emitió con tipo de cambio ${own.tipoCambio}, no ${r.tipoCambio}.`);
    }
    if (r.monto !== undefined && own.mntPagar !== null && new Decimal(r.monto).gt(own.mntPagar)) {
      throw E.REFERENCIA_MONTO_EXCEDE(`Referencia ${i + 1}: el monto ${r.monto} supera el monto a pagar del comprobante ${name} (${own.mntPagar} ${own.moneda}).`);
    }
  });
}
