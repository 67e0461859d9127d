/**
 * Pure emission rules of spec 2.2-2.4 plus the DGI rules the XSD would otherwise catch late
 * (BRIEF 1, 2.5, 2.6; the reference zone, BRIEF 2.8, is issued-cfe.references.ts). No I/O: the service
 * resolves data, these functions decide.
 */
import { Decimal } from 'decimal.js';
import { ALLOWED_IND_FACT, IND_FACT_OPTIONAL, type CfeTypeInfo, computeMontoItem, findCfeType, isContingencyCode, totalesFor } from '../emission/index.js';
import type { Emisor, Receptor, Totales } from '../emission/index.js';
import { addDays, ddmmyyyy } from '../../lib/dates.js';
import { receiverDocumentProblem } from '../../lib/receiver-document.js';
import { isValidRut } from '../../lib/rut.js';
import { issuedCfeErrors as E } from './issued-cfe.errors.js';
import { TOTALS_AMOUNT_FIELDS, type CfeBody, type DetalleBody } from './issued-cfe.schemas.js';

/** Electronic types only: contingency (2xx) receipts are transcribed through the CFC flow, not emitir. */
export function cfeTypeOf(tipoCfe: number): CfeTypeInfo {
  const info = findCfeType(tipoCfe);
  if (!info || isContingencyCode(tipoCfe)) throw E.TIPO_CFE_INVALIDO(`El tipo de comprobante ${tipoCfe} no es un CFE electrónico válido.`);
  return info;
}

export function indCobPropiaOf(cfe: CfeBody): number | undefined {
  return cfe.indCobPropia ?? cfe.IndCobPropia ?? cfe.idDoc.indCobPropia;
}

/**
 * BRIEF 2.1 (IdDoc): FchEmis from 2011-10-01 to 2050-12-31 (XSD) and at most 60 days after DGI's
 * date, which DGI checks only on receipt: a receipt dated further ahead would be numbered, signed
 * and then rejected. `today` is the Uruguayan calendar date.
 */
export function checkFechaEmision(fecha: string, today: string): void {
  const latest = addDays(today, 60);
  const max = latest < '2050-12-31' ? latest : '2050-12-31';
  if (fecha < '2011-10-01' || fecha > max) {
    throw E.FECHA_EMISION_FUERA_DE_RANGO(`La fecha de emisión ${ddmmyyyy(fecha)} no es válida para DGI: debe estar entre el 01/10/2011 y el ${ddmmyyyy(max)} (hoy más 60 días).`);
  }
}

/**
 * Line count (BRIEF 1: 700/200, CantLinDet = number of items), IndFact per branch and regime
 * (BRIEF 2.5, 2.6), own collection without DscRcgGlobal (BRIEF 2.1, 2.7), and each line's price,
 * amount and GTIN codes (checkLineAmounts).
 */
export function checkLines(info: CfeTypeInfo, cfe: CfeBody): void {
  const n = cfe.detalles.length;
  if (n > info.maxLines) throw E.LINEAS_FUERA_DE_RANGO(`Un ${info.name} admite hasta ${info.maxLines} líneas de detalle; se enviaron ${n}.`);
  const cantLinDet = cfe.totales?.cantLinDet;
  if (cantLinDet !== undefined && cantLinDet !== n) throw E.CANTIDAD_LINEAS_DISTINTA(`totales.cantLinDet es ${cantLinDet} pero se enviaron ${n} líneas de detalle: corríjalo u omítalo.`);
  const allowed = ALLOWED_IND_FACT[info.branch];
  const cobPropia = indCobPropiaOf(cfe) === 1;
  if (cobPropia && cfe.descuentosRecargos?.length) throw E.COBRANZA_PROPIA_DESCUENTOS();
  const sentAmounts = hasSentAmounts(cfe.totales);
  checkMntBruto(info, cfe.idDoc.mntBruto, sentAmounts);
  cfe.detalles.forEach((d, i) => {
    const line = d.numeroLineaDetalle ?? i + 1;
    // B-C1: NroLinDet is 1..n in order; a client's other numbering would be silently replaced.
    if (line !== i + 1) throw E.LINEA_NUMERO_INVALIDO(`La línea ${i + 1} trae numeroLineaDetalle ${line}: DGI numera las líneas 1, 2, … en orden; envíe ${i + 1} u omítalo.`);
    const ind = d.indicadorFacturacion;
    if (ind === undefined) {
      if (!IND_FACT_OPTIONAL.has(info.branch)) throw E.INDICADOR_FACTURACION_INVALIDO(`Línea ${line}: falta indicadorFacturacion.`);
    } else {
      if (!allowed.includes(ind)) {
        throw E.INDICADOR_FACTURACION_INVALIDO(`Línea ${line}: indicadorFacturacion ${ind} no está permitido en ${info.name} (permitidos: ${allowed.join(', ')}).`);
      }
      if (cobPropia && ![6, 7].includes(ind)) throw E.COBRANZA_PROPIA_INDICADOR(`Línea ${line}: con cobranza propia solo se admiten los indicadores 6 y 7.`);
      if (cfe.idDoc.mntBruto === 3 && [1, 2, 3, 4, 11, 12].includes(ind)) {
        throw E.INDICADOR_FACTURACION_INVALIDO(`Línea ${line}: con mntBruto = 3 (IVA mínimo / Monotributo) no se admite el indicador ${ind}.`);
      }
      // computeTotales needs the rate of IndFact 4, which the request cannot carry: only sent totales work.
      if (ind === 4 && !sentAmounts) {
        throw E.OTRA_TASA_SIN_TOTALES(`Línea ${line}: con indicadorFacturacion 4 (otra tasa / IVA sobre fictos) los totales no se pueden calcular; envíe cfe.totales con mntNetoIVAOtra, mntIVAOtra, mntTotal y mntPagar.`);
      }
    }
    checkLineAmounts(info, d, line);
  });
}

/**
 * MntBruto (BRIEF 2.1 A-C10; XSD: 1-3 on e-Ticket, e-Factura and e-Boleta, 1-2 on e-Factura de
 * exportación, absent on remitos and resguardos). 2 (lines include IMEBA) has totals this service
 * computes only for the e-Boleta (BRIEF 2.4 A-C130); elsewhere it needs sent totales.
 */
export function checkMntBruto(info: CfeTypeInfo, mntBruto: number | undefined, sentAmounts: boolean): void {
  if (mntBruto === undefined) return;
  if (info.branch === 'eRem' || info.branch === 'eRem_Exp' || info.branch === 'eResg') throw E.MONTO_BRUTO_INVALIDO(`Un ${info.name} no lleva mntBruto: quítelo.`);
  if (mntBruto === 3 && info.branch === 'eFact_Exp') throw E.MONTO_BRUTO_INVALIDO(`Un ${info.name} admite mntBruto 1 o 2.`);
  if (mntBruto === 2 && info.branch !== 'eBoleta' && !sentAmounts) {
    throw E.MONTO_BRUTO_INVALIDO(`mntBruto 2 (líneas con IMEBA incluido) en un ${info.name}: los totales no se pueden calcular; envíe cfe.totales.`);
  }
}

/** Branches whose items carry PrecioUnitario and MontoItem (XSD Item_Det_Fact and Item_Rem_Exp). */
export const PRICED_BRANCHES: ReadonlySet<CfeTypeInfo['branch']> = new Set(['eTck', 'eFact', 'eFact_Exp', 'eRem_Exp', 'eBoleta']);

/**
 * One line's PrecioUnitario (BRIEF 2.4: > 0; 0 with IndFact 5; ≥ 0 with IndFact 8), MontoItem
 * (B-C24: Cantidad × PrecioUnitario − DescuentoMonto + RecargoMnt, 0 with IndFact 5; compared
 * after rounding to 2 decimals) and GTIN codes (BRIEF 2.5). e-Remitos and e-Resguardos carry no price.
 */
export function checkLineAmounts(info: CfeTypeInfo, d: DetalleBody, line: number): void {
  for (const c of d.codigoItem ?? []) checkGtin(c.tpoCod, c.cod, line);
  if (!PRICED_BRANCHES.has(info.branch)) return;
  const ind = d.indicadorFacturacion;
  if (d.precioUnitario !== undefined) {
    const price = new Decimal(d.precioUnitario);
    if (ind === 5 && !price.isZero()) throw E.PRECIO_UNITARIO_INVALIDO(`Línea ${line}: en una entrega gratuita (indicadorFacturacion 5) precioUnitario debe ser 0.`);
    if (ind === 8 && price.isNegative()) throw E.PRECIO_UNITARIO_INVALIDO(`Línea ${line}: precioUnitario no puede ser negativo.`);
    if (ind !== 5 && ind !== 8 && !price.gt(0)) {
      throw E.PRECIO_UNITARIO_INVALIDO(`Línea ${line}: precioUnitario debe ser mayor que 0 (para una entrega gratuita use indicadorFacturacion 5).`);
    }
  }
  if (d.montoItem === undefined || d.cantidad === undefined) return;
  if (ind === 5) {
    if (!new Decimal(d.montoItem).isZero()) throw E.MONTO_ITEM_INCORRECTO(`Línea ${line}: en una entrega gratuita (indicadorFacturacion 5) montoItem debe ser 0.`);
    return;
  }
  if (d.precioUnitario === undefined) return;
  // The same fields toItems signs: an e-Remito de exportación carries no discounts or surcharges.
  const adjustments = info.branch === 'eRem_Exp' ? {} : { DescuentoPct: d.descuentoPct, DescuentoMonto: d.descuentoMonto, RecargoPct: d.recargoPct, RecargoMnt: d.recargoMnt };
  const expected = computeMontoItem({ NroLinDet: line, IndFact: ind, NomItem: '', Cantidad: d.cantidad, UniMed: '', PrecioUnitario: d.precioUnitario, ...adjustments });
  if (!new Decimal(d.montoItem).eq(expected)) {
    throw E.MONTO_ITEM_INCORRECTO(`Línea ${line}: montoItem ${d.montoItem} no coincide con cantidad × precioUnitario − descuento + recargo = ${expected}; corríjalo u omítalo para que se calcule.`);
  }
}

const GTIN = /^GTIN(8|12|13|14)$/;

/** BRIEF 2.5: GTIN8/12/13/14 have exactly that many digits and a GS1 mod-10 check digit. */
export function checkGtin(tpoCod: string, cod: string, line: number): void {
  const m = GTIN.exec(tpoCod);
  if (!m) return;
  const len = Number(m[1]);
  if (cod.length !== len || !/^\d+$/.test(cod)) throw E.CODIGO_ITEM_INVALIDO(`Línea ${line}: el código ${tpoCod} debe tener ${len} dígitos; se envió ${cod}.`);
  if (gtinCheckDigit(cod.slice(0, -1)) !== Number(cod.at(-1))) throw E.CODIGO_ITEM_INVALIDO(`Línea ${line}: el dígito verificador del código ${tpoCod} ${cod} no es correcto.`);
}

/** GS1 check digit: weights 3 and 1 alternate from the rightmost digit of the body. */
export function gtinCheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[body.length - 1 - i]) * (i % 2 === 0 ? 3 : 1);
  return (10 - (sum % 10)) % 10;
}

/**
 * BRIEF 2.10: Compl_Fiscal (the mandante) is required on cuenta-ajena sales (131-133, 141-143)
 * unless SecProf = 2, and belongs only to them and to e-Boletas with IndCompraMEReventa = 2.
 */
export function checkComplementoFiscal(info: CfeTypeInfo, cfe: CfeBody): void {
  const allowed = info.isCuentaAjena || (info.branch === 'eBoleta' && cfe.idDoc.indCompraMEReventa === 2);
  if (cfe.complementoFiscal && !allowed) {
    throw E.COMPLEMENTO_FISCAL_NO_CORRESPONDE(`Un ${info.name} no lleva complementoFiscal (datos del mandante): solo corresponde a ventas por cuenta ajena y e-Boletas con indCompraMEReventa = 2. Quítelo.`);
  }
  if (info.isCuentaAjena && !cfe.complementoFiscal && cfe.idDoc.secProf !== 2) {
    throw E.COMPLEMENTO_FISCAL_REQUERIDO(`Un ${info.name} requiere complementoFiscal con el tipo, país, documento y nombre del mandante.`);
  }
}

/** What the companies module resolves for (idEmpresa, codComercio, fechaEmision). */
export interface IssuerData {
  rut: string;
  razonSocial: string;
  nombreComercial?: string | null;
  actividad?: string | null;
  domicilioFiscal?: string | null;
  ciudad?: string | null;
  departamento?: string | null;
  telefono?: string | null;
  email?: string | null;
  branch: { nombre?: string | null; direccion?: string | null; ciudad?: string | null; departamento?: string | null; telefono?: string | null; email?: string | null };
  /** Already resolved by spec 2.2 rule 5 (history at fechaEmision → branch → company default). */
  codigoDgiSucursal: number | null;
}

type IssuerCompany = Omit<IssuerData, 'branch' | 'codigoDgiSucursal'>;

/**
 * The issuer of a resolved emission point. Listed field by field, not spread: on Node 20's V8 an
 * object made by a spread misses its inline caches for every property added to it, on every call
 * (measured ~1.7 µs for `{ ...company, branch }`).
 */
export function issuerOf(c: IssuerCompany, branch: IssuerData['branch'], codigoDgiSucursal: number | null): IssuerData {
  return {
    rut: c.rut, razonSocial: c.razonSocial, nombreComercial: c.nombreComercial, actividad: c.actividad, domicilioFiscal: c.domicilioFiscal,
    ciudad: c.ciudad, departamento: c.departamento, telefono: c.telefono, email: c.email, branch, codigoDgiSucursal,
  };
}

/** At most `max` characters: XSD maxLength counts code points, so an emoji is never split in two. */
export function cutChars(v: string | null | undefined, max: number): string | undefined {
  if (!v) return undefined;
  if (v.length <= max) return v; // UTF-16 length ≥ code points: nothing to cut
  return Array.from(v).slice(0, max).join('');
}
const cut = cutChars;

/**
 * Spec 2.2: the sent issuer when it has a ruc, otherwise company + branch (branch first for contact
 * data). A sent ruc must be the company's RUT: the CFE is signed with the company's certificate
 * and numbered with its CAE (BRIEF 2.2, 2.9, 3).
 */
export function buildEmisor(sent: CfeBody['emisor'], issuer: IssuerData): Emisor {
  if (sent?.ruc) {
    if (sent.ruc !== issuer.rut) throw E.EMISOR_RUC_DISTINTO(`El RUT del emisor enviado (${sent.ruc}) no es el RUT de la empresa (${issuer.rut}): omita emisor.ruc o envíe el RUT de la empresa.`);
    return {
      RUCEmisor: sent.ruc,
      RznSoc: sent.razonSocial ?? issuer.razonSocial,
      NomComercial: sent.nombreComercial,
      GiroEmis: sent.giro,
      Telefono: sent.telefono ? [sent.telefono] : undefined,
      CorreoEmisor: sent.correo,
      EmiSucursal: sent.sucursal,
      CdgDGISucur: sent.codigoDgiSucursal ?? issuer.codigoDgiSucursal ?? 1,
      DomFiscal: sent.domicilioFiscal ?? cut(issuer.branch.direccion ?? issuer.domicilioFiscal, 70) ?? 'N/A',
      Ciudad: sent.ciudad ?? cut(issuer.branch.ciudad ?? issuer.ciudad, 30) ?? 'N/A',
      Departamento: sent.departamento ?? cut(issuer.branch.departamento ?? issuer.departamento, 30) ?? 'N/A',
    };
  }
  const b = issuer.branch;
  const phone = b.telefono ?? issuer.telefono;
  return {
    RUCEmisor: issuer.rut,
    RznSoc: cut(issuer.razonSocial, 150)!,
    NomComercial: cut(issuer.nombreComercial, 30),
    GiroEmis: cut(issuer.actividad, 60), // GiroType (≤ 60): 100 made a longer activity an XML_INVALIDO
    Telefono: phone ? [cut(phone, 20)!] : undefined,
    CorreoEmisor: cut(b.email ?? issuer.email, 80),
    EmiSucursal: cut(b.nombre, 20),
    // [I] XSD requires CdgDGISucur; with no code anywhere 1 (casa principal) is DGI's usual first code.
    CdgDGISucur: issuer.codigoDgiSucursal ?? 1,
    DomFiscal: cut(b.direccion ?? issuer.domicilioFiscal, 70) ?? 'N/A',
    Ciudad: cut(b.ciudad ?? issuer.ciudad, 30) ?? 'N/A',
    Departamento: cut(b.departamento ?? issuer.departamento, 30) ?? 'N/A',
  };
}

/**
 * Spec 2.3 rules 1-2: totales "present and non-empty" means at least one amount was sent; a
 * totales carrying only tipoMoneda/tipoCambio selects the currency and the amounts are computed.
 */
export function hasSentAmounts(totales: CfeBody['totales']): boolean {
  if (!totales) return false;
  return TOTALS_AMOUNT_FIELDS.some((f) => totales[f] !== undefined) || (totales.retencPercep?.length ?? 0) > 0;
}

const upperFirst = (s: string) => (s.startsWith('iva') ? `IVA${s.slice(3)}` : s[0].toUpperCase() + s.slice(1));

/** The sent totals, as sent (spec 2.3 rule 1), in DGI's element names. */
export function sentTotales(totales: NonNullable<CfeBody['totales']>, currency: { TpoMoneda: string; TpoCambio?: string }, cantLinDet: number): Totales {
  const out = totalesFor(currency) as unknown as Record<string, unknown>;
  for (const f of TOTALS_AMOUNT_FIELDS) if (totales[f] !== undefined) out[upperFirst(f)] = totales[f];
  out.CantLinDet = cantLinDet; // BRIEF 1, A-C126: the number of items (a different sent value is refused by checkLines)
  if (totales.retencPercep?.length) out.RetencPercep = totales.retencPercep.map((r) => ({ CodRet: r.codRet, ValRetPerc: r.valRetPerc }));
  return out as unknown as Totales;
}

/** BRIEF 1: net amount excluding VAT, Σ(A-C112..A-C118), in pesos. */
export function netAmountUyu(t: Totales): Decimal {
  const fields = ['MntNoGrv', 'MntExpoyAsim', 'MntImpuestoPerc', 'MntIVaenSusp', 'MntNetoIvaTasaMin', 'MntNetoIVATasaBasica', 'MntNetoIVAOtra'] as const;
  const net = fields.reduce((acc, f) => acc.plus(t[f] ?? 0), new Decimal(0));
  return t.TpoMoneda && t.TpoMoneda !== 'UYU' ? net.times(t.TpoCambio ?? 1) : net;
}

/** Receiver rules per type (BRIEF 1); `uiThresholdUyu` = 5,000 × UI at the close of the previous year. */
export function checkReceptor(info: CfeTypeInfo, receptor: Receptor | undefined, totales: Totales, uiThresholdUyu: Decimal): void {
  const identified = !!receptor?.TipoDocRecep && !!(receptor.DocRecep || receptor.DocRecepExt);
  if (info.receptor === 'RUC') {
    if (receptor?.TipoDocRecep !== 2 || !receptor.DocRecep || !isValidRut(receptor.DocRecep) || !receptor.RznSocRecep) throw E.RECEPTOR_RUC_REQUERIDO();
    return;
  }
  if ((info.receptor === 'IDENTIFIED' || info.receptor === 'SELLER') && !identified) {
    throw E.RECEPTOR_REQUERIDO(`Un ${info.name} requiere identificar al receptor (documento y tipo de documento).`);
  }
  if (info.receptor === 'THRESHOLD' && !identified) {
    const hasRetentions = (totales.RetencPercep?.length ?? 0) > 0;
    if (hasRetentions) throw E.RECEPTOR_REQUERIDO('Un e-Ticket con retenciones o percepciones requiere identificar al receptor.');
    if (netAmountUyu(totales).gt(uiThresholdUyu)) throw E.RECEPTOR_REQUERIDO_TOPE_UI();
  }
}

/** Document checks of BRIEF 1 (A-C60..A-C62), the same rule customers are stored with (lib/receiver-document.ts). */
export function checkDocument(tipo: number, codPais: string, doc: string): void {
  const problem = receiverDocumentProblem(tipo, codPais, doc);
  if (problem) throw E.DOCUMENTO_RECEPTOR_INVALIDO(problem);
}

/** Default document type when the client sends only `documento`: 12 digits with a valid RUT check digit → RUT. */
export function guessDocumentType(doc: string): number {
  if (/^\d{12}$/.test(doc)) return 2;
  if (/^\d{6,8}$/.test(doc)) return 3;
  return 4;
}
