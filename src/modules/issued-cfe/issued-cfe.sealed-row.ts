/**
 * A prepared CFE becomes a row to store (issue 5 point 4): numbered, sealed (signed, XSD-validated,
 * QR) and flattened into the issued_cfes columns, plus its `Cfe.Emitido` event. Used by the
 * emission batcher and by the contingency transcription.
 */
import { CfeXmlError, securityCode, type Cfe, type CfeTypeInfo, type Emisor, type SigningContext } from '../emission/index.js';
import { issuedCfeErrors as E } from './issued-cfe.errors.js';
import { printingBlockOf } from './issued-cfe.printing.js';
import type { ReservedNumber } from './issued-cfe.ports.js';
import type { Sealer } from './issued-cfe.sealer.js';
import { SealError } from './issued-cfe.sealing.js';
import type { issuedCfes, IssuedCfeRow } from './issued-cfe.tables.js';

/** Everything decided before numbering (issued-cfe.service `prepare`). */
export interface PreparedCfe {
  companyId: number;
  branchId: number;
  emissionPointId: number;
  info: CfeTypeInfo;
  fecha: string;
  signedAt: Date;
  emisor: Emisor;
  draft: Cfe;
  customerId?: number;
  currency: { TpoMoneda: string; TpoCambio?: string };
  adenda?: string;
  ctx: SigningContext;
  idempotencyKey?: string;
  requestHash?: string;
}

/** Number assigned to a prepared CFE: from a CAE range, or the paper number of a contingency CFC. */
export type Numbering = Pick<ReservedNumber, 'serie' | 'numero' | 'cae'> & { caeRangeId: number | null; cfcRangeId?: number };

/** The CAE block and the printing block of the response, taken from what the XML was built from instead of read back from it. */
export interface Printed {
  cae: { numero: string; desde: number; hasta: number; fechaVencimiento: string };
  block: ReturnType<typeof printingBlockOf>;
}

/** A stored receipt, its QR image (drawn while sealing; the response's `qrPng`) and what it prints. */
export interface Emitted {
  row: IssuedCfeRow;
  qrPng: string;
  printed?: Printed;
}

/** Numbers the CFE, seals it (sign, XSD, QR) and turns it into the row to store; throws 422 XML_INVALIDO. */
export async function sealedRow(sealer: Sealer, p: PreparedCfe, n: Numbering): Promise<{ row: typeof issuedCfes.$inferInsert; qrPng: string; printed: Printed }> {
  const draft = p.draft;
  draft.IdDoc.Serie = n.serie;
  draft.IdDoc.Nro = n.numero;
  draft.CAEData = { CAE_ID: n.cae.NA, DNro: n.cae.DNro, HNro: n.cae.HNro, FecVenc: n.cae.FVD, CAEEspecial: n.cae.CAEEspecial as 1 | undefined, CausalCAEEsp: n.cae.CausalCAEEsp };
  // The sealer copies the draft before its first await; a later reseal of the same receipt renumbers
  // the shared draft, so what prints is taken now, from the state the XML is built from.
  const sealing = sealer.seal(draft, p.ctx, { RUCEmisor: p.emisor.RUCEmisor, TipoCFE: p.info.code, Serie: n.serie, Nro: n.numero });
  let printed: Printed;
  let sealed;
  try {
    printed = { cae: { numero: String(n.cae.NA), desde: n.cae.DNro, hasta: n.cae.HNro, fechaVencimiento: n.cae.FVD }, block: printingBlockOf(draft) };
    sealed = await sealing;
  } catch (err) {
    // The sealing may still be pending (the printing block failed first): it must not reject unobserved.
    sealing.catch(() => undefined);
    if (err instanceof SealError) throw E.XML_INVALIDO(err.message, err.data);
    if (err instanceof CfeXmlError) throw E.XML_INVALIDO(`El comprobante no se puede representar en el XML de DGI: ${err.message}.`);
    throw err;
  }
  const t = draft.Totales;
  const row = {
    companyId: p.companyId, branchId: p.branchId, emissionPointId: p.emissionPointId, caeRangeId: n.caeRangeId,
    tipoCfe: p.info.code, serie: n.serie, numero: n.numero, fechaEmision: p.fecha, tmstFirma: draft.TmstFirma, firmadoEn: p.signedAt,
    receptorTipoDoc: draft.Receptor?.TipoDocRecep, receptorDocumento: draft.Receptor?.DocRecep ?? draft.Receptor?.DocRecepExt, receptorNombre: draft.Receptor?.RznSocRecep, customerId: p.customerId,
    moneda: p.currency.TpoMoneda, tipoCambio: p.currency.TpoCambio, mntTotal: t.MntTotal, mntPagar: t.MntPagar,
    mntNetoIvaTasaMin: t.MntNetoIvaTasaMin, mntNetoIvaTasaBasica: t.MntNetoIVATasaBasica, mntIvaTasaMin: t.MntIVATasaMin, mntIvaTasaBasica: t.MntIVATasaBasica, mntNoGrv: t.MntNoGrv,
    totales: t, xml: sealed.xml, digestValue: sealed.digestValue, codigoSeguridad: securityCode(sealed.digestValue), urlQr: sealed.urlQr,
    adenda: p.adenda, idempotencyKey: p.idempotencyKey, requestHash: p.requestHash,
  };
  return { row, qrPng: sealed.qrPng, printed };
}

type EmittedRow = Pick<IssuedCfeRow, 'companyId' | 'tipoCfe' | 'serie' | 'numero' | 'fechaEmision' | 'tmstFirma' | 'moneda' | 'codigoSeguridad' | 'urlQr'>
  & { tipoCambio?: string | null; totales: unknown; id?: number };

/**
 * The `Cfe.Emitido` event of a stored row (docs/EVENTS.md): what an integration needs to print or
 * file the receipt without a second call (identity, CAE, security code, QR URL, DGI totals).
 * A row not inserted yet has no id: the single-statement batch adds `idCfeEmitido` in SQL.
 */
export function emittedEvent(row: EmittedRow, cae: Printed['cae']) {
  return {
    type: 'Cfe.Emitido' as const,
    companyId: row.companyId,
    resource: {
      idCfeEmitido: row.id, idEmpresa: row.companyId, tipoCfe: row.tipoCfe, serie: row.serie, numero: row.numero, fechaEmision: row.fechaEmision,
      fechaFirma: row.tmstFirma, moneda: row.moneda, tipoCambio: row.tipoCambio ?? null, cae, codigoSeguridad: row.codigoSeguridad, urlQr: row.urlQr, totales: row.totales,
    },
  };
}

export type SealedRow = Awaited<ReturnType<typeof sealedRow>>;
