/**
 * Request → CFE model (emission library). Serie, Nro and CAEData are filled inside the numbering
 * transaction; everything else (items, totals, parties) is decided before it opens.
 */
import { checkSentTotales, negativeTotal, completeCfe, completeItem, type Cfe, type CfeDraft, type CfeTypeInfo, type Emisor, type Item, type Receptor, type Referencia, TotalsCheckError, TotalsError } from '../emission/index.js';
import { issuedCfeErrors as E } from './issued-cfe.errors.js';
import type { CfeBody } from './issued-cfe.schemas.js';
import { checkComplementoFiscal, hasSentAmounts, indCobPropiaOf, PRICED_BRANCHES as PRICED, sentTotales } from './issued-cfe.rules.js';

export function toItems(info: CfeTypeInfo, cfe: CfeBody): Item[] {
  return cfe.detalles.map((d, i) => {
    const NroLinDet = i + 1; // B-C1: sequential from 1, whatever the client numbered
    if (info.branch === 'eResg') {
      return { NroLinDet, IndFact: d.indicadorFacturacion, RetencPercep: d.retencPercep?.map((r) => ({ CodRet: r.codRet, Tasa: r.tasa, MntSujetoaRet: r.mntSujetoaRet, InfoAdicionalRet: r.infoAdicionalRet, ValRetPerc: r.valRetPerc })) };
    }
    // The field actually missing, by its path (after a variant filled what it could: issued-cfe.variants.ts).
    const missing = !d.nombreItem ? 'nombreItem' : d.cantidad === undefined ? 'cantidad' : undefined;
    if (missing) throw missingField(d, i, missing);
    const item: Item = {
      NroLinDet,
      CodItem: d.codigoItem?.map((c) => ({ TpoCod: c.tpoCod, Cod: c.cod })),
      IndFact: d.indicadorFacturacion,
      NomItem: d.nombreItem,
      DscItem: d.descripcionItem,
      Cantidad: d.cantidad,
      UniMed: d.unidadMedida ?? 'N/A',
    };
    if (!PRICED.has(info.branch)) return item;
    item.PrecioUnitario = d.precioUnitario ?? (d.indicadorFacturacion === 5 ? '0' : undefined);
    if (item.PrecioUnitario === undefined) throw missingField(d, i, 'precioUnitario');
    if (info.branch !== 'eRem_Exp') {
      item.DescuentoPct = d.descuentoPct;
      item.DescuentoMonto = d.descuentoMonto;
      item.RecargoPct = d.recargoPct;
      item.RecargoMnt = d.recargoMnt;
      if (info.branch !== 'eFact_Exp') item.RetencPercep = d.retencPercep?.map((r) => ({ CodRet: r.codRet, Tasa: r.tasa, MntSujetoaRet: r.mntSujetoaRet, InfoAdicionalRet: r.infoAdicionalRet, ValRetPerc: r.valRetPerc }));
    }
    item.MontoItem = d.montoItem;
    return item;
  });
}

function missingField(d: CfeBody['detalles'][number], i: number, field: string) {
  const from = d.idVariante ? ` (la variante ${d.idVariante} no lo tiene)` : '';
  return E.LINEA_INCOMPLETA(`Línea ${d.numeroLineaDetalle ?? i + 1}: falta ${field}${from}.`, { campo: `cfe.detalles.${i}.${field}` });
}

export function toReferencias(cfe: CfeBody): Referencia[] | undefined {
  if (!cfe.referencias?.length) return undefined;
  return cfe.referencias.map((r, i) => ({
    NroLinRef: i + 1,
    IndGlobal: r.indicadorGlobal,
    TpoDocRef: r.tipoCfe,
    Serie: r.serie,
    NroCFERef: r.numero,
    RazonRef: r.razon,
    FechaCFEref: r.fecha,
    MntCFEref: r.monto,
    TpoMonedaRef: r.tipoMoneda,
    TpoCambioRef: r.tipoCambio,
  }));
}

export interface DraftInput {
  info: CfeTypeInfo;
  cfe: CfeBody;
  emisor: Emisor;
  receptor?: Receptor;
  currency: { TpoMoneda: string; TpoCambio?: string };
  TmstFirma: string;
}

/**
 * The CFE with items and totals complete; Serie/Nro/CAEData are placeholders until numbering.
 * Compl_Fiscal is checked here, where it is built (BRIEF 2.10).
 */
export function draftCfe(input: DraftInput): Cfe {
  const { info, cfe } = input;
  checkComplementoFiscal(info, cfe);
  const idDoc = cfe.idDoc;
  const noFmaPago = info.branch === 'eRem' || info.branch === 'eResg' || info.branch === 'eRem_Exp';
  const cobPropia = indCobPropiaOf(cfe);
  const base = {
    TmstFirma: input.TmstFirma,
    IdDoc: {
      TipoCFE: info.code,
      Serie: 'A',
      Nro: 0,
      NroInterno: idDoc.numeroInterno,
      FchEmis: idDoc.fechaEmision,
      PeriodoDesde: idDoc.periodoDesde,
      PeriodoHasta: idDoc.periodoHasta,
      MntBruto: idDoc.mntBruto,
      FmaPago: noFmaPago ? undefined : (idDoc.formaPago ?? 1),
      FchVenc: idDoc.fechaVencimiento,
      ClauVenta: idDoc.clauVenta,
      ModVenta: idDoc.modVenta,
      ViaTransp: idDoc.viaTransp,
      TipoTraslado: idDoc.tipoTraslado ?? (info.branch === 'eRem' || info.branch === 'eRem_Exp' ? 1 : undefined),
      FchValor: idDoc.fchValor,
      InfoAdicionalDoc: idDoc.infoAdicionalDoc,
      IVAalDia: idDoc.ivaAlDia,
      SecProf: idDoc.secProf,
      IndPagCta3ros: idDoc.indPagCta3ros,
      IndCobPropia: cobPropia,
      IndCompraMEReventa: idDoc.indCompraMEReventa,
    },
    Emisor: input.emisor,
    Receptor: input.receptor,
    Detalle: toItems(info, cfe),
    DscRcgGlobal: cfe.descuentosRecargos?.map((d, i) => ({ NroLinDR: i + 1, TpoMovDR: d.tipoMovimiento, TpoDR: d.tipo, CodDR: d.codigo, GlosaDR: d.glosa, ValorDR: d.valor, IndFactDR: d.indicadorFacturacion })),
    MediosPago: cfe.mediosPago?.map((m, i) => ({ NroLinMP: i + 1, CodMP: m.codigo, GlosaMP: m.glosa, ValorPago: m.valor })),
    Referencia: toReferencias(cfe),
    CAEData: { CAE_ID: '00000000000', DNro: 1, HNro: 1, FecVenc: '2050-12-31' },
    Compl_Fiscal: cfe.complementoFiscal
      ? { RUCEmisor: input.emisor.RUCEmisor, TipoDocMdte: cfe.complementoFiscal.tipoDocMandante, Pais: cfe.complementoFiscal.pais, DocMdte: cfe.complementoFiscal.documentoMandante, NombreMdte: cfe.complementoFiscal.nombreMandante }
      : undefined,
    // Present from the start (the currency, until the totals replace it): on Node 20's V8 adding a
    // property to a spread copy misses its inline cache on every call (~1.7 µs here).
    Totales: input.currency,
  } satisfies CfeDraft;
  try {
    if (hasSentAmounts(cfe.totales)) {
      // Spec 2.3 rule 1: used as sent, not recalculated; only missing item amounts are filled.
      // Checked first against DGI's equations (BRIEF 2.4), before anything is numbered.
      const priced = PRICED.has(info.branch);
      const Detalle = priced ? base.Detalle.map(completeItem) : base.Detalle;
      const Totales = sentTotales(cfe.totales!, input.currency, Detalle.length);
      const id = base.IdDoc;
      checkSentTotales(Totales, { TipoCFE: id.TipoCFE, MntBruto: id.MntBruto, IndCobPropia: id.IndCobPropia, TpoMoneda: Totales.TpoMoneda, TpoCambio: Totales.TpoCambio, Detalle, DscRcgGlobal: base.DscRcgGlobal });
      return { ...base, Detalle, Totales };
    }
    const cfeDone = completeCfe(base);
    // Negative quantities only take back items of the same CFE (BRIEF 2.4): totals below 0 are not DGI's (MontoType).
    const negative = negativeTotal(info.code, cfeDone.Totales);
    if (negative) throw E.TOTALES_INVALIDOS(`Las líneas dan ${negative.campo} = ${negative.valor}, y DGI solo admite ese total mayor o igual que 0: una cantidad negativa solo anula ítems del mismo comprobante.`);
    return cfeDone;
  } catch (err) {
    if (err instanceof TotalsCheckError) throw E.TOTALES_DESCUADRADOS(`Los totales enviados no cumplen la regla ${err.message}.`, { ecuacion: err.ecuacion, valores: err.valores });
    if (err instanceof TotalsError) throw E.TOTALES_INVALIDOS(`No se pudieron calcular los totales: ${err.message}.`);
    throw err;
  }
}
