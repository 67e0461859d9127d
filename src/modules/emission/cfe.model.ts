/**
 * In-memory CFE model. Property names are DGI's element names exactly as the XSD writes them
 * (including its inconsistent casing: MntIVaenSusp, MntNetoIvaTasaMin). Amounts, quantities and
 * prices are decimal strings, never JS numbers, so nothing is lost to binary floating point.
 * Optional properties left undefined are not emitted. Which properties a branch accepts is
 * decided by the XSD order tables in cfe-xml-schema.ts.
 */

/** Decimal as a string: "1220", "1220.5", "-3.10". */
export type Decimal = string;

export interface IdDoc {
  TipoCFE: number;
  Serie: string;
  Nro: number;
  NroInterno?: string;
  /** xs:date, YYYY-MM-DD. */
  FchEmis: string;
  PeriodoDesde?: string;
  PeriodoHasta?: string;
  /** A-C10: 1 lines include VAT, 2 lines include IMEBA and surcharges, 3 IVA mínimo/Monotributo seller. */
  MntBruto?: 1 | 2 | 3;
  /** 1 Contado, 2 Crédito; absent on remitos and resguardos. */
  FmaPago?: 1 | 2;
  FchVenc?: string;
  /** Export only (eFact_Exp, eRem_Exp). */
  ClauVenta?: string;
  ModVenta?: number;
  ViaTransp?: number;
  /** eRem / eRem_Exp. */
  TipoTraslado?: 1 | 2;
  IndPropiedad?: number;
  TipoDocProp?: number;
  CodPaisProp?: string;
  DocProp?: string;
  DocPropExt?: string;
  RznSocProp?: string;
  /** eResg. */
  FchValor?: string;
  InfoAdicionalDoc?: string;
  IVAalDia?: number;
  SecProf?: number;
  IndPagCta3ros?: number;
  IndCobPropia?: number;
  /** eBoleta. */
  IndCompraMEReventa?: number;
}

export interface Emisor {
  RUCEmisor: string;
  RznSoc: string;
  NomComercial?: string;
  GiroEmis?: string;
  Telefono?: string[];
  CorreoEmisor?: string;
  EmiSucursal?: string;
  /** Branch code DGI registered for this RUC (BRIEF 2.2), not an internal id. */
  CdgDGISucur: number;
  DomFiscal: string;
  Ciudad: string;
  Departamento: string;
  InfoAdicionalEmisor?: string;
}

export interface Receptor {
  TipoDocRecep?: number;
  CodPaisRecep?: string;
  DocRecep?: string;
  DocRecepExt?: string;
  RznSocRecep?: string;
  DirRecep?: string;
  CiudadRecep?: string;
  DeptoRecep?: string;
  PaisRecep?: string;
  CP?: string;
  InfoAdicional?: string;
  LugarDestEnt?: string;
  CompraID?: string;
}

export interface RetencPercepTotal {
  CodRet: string;
  ValRetPerc: Decimal;
}

export interface Totales {
  TpoMoneda?: string;
  TpoCambio?: Decimal;
  MntNoGrv?: Decimal;
  MntExpoyAsim?: Decimal;
  MntImpuestoPerc?: Decimal;
  MntIVaenSusp?: Decimal;
  MntNetoIvaTasaMin?: Decimal;
  MntNetoIVATasaBasica?: Decimal;
  MntNetoIVAOtra?: Decimal;
  IVATasaMin?: Decimal;
  IVATasaBasica?: Decimal;
  MntIVATasaMin?: Decimal;
  MntIVATasaBasica?: Decimal;
  MntIVAOtra?: Decimal;
  MntTotal?: Decimal;
  MntTotRetenido?: Decimal;
  MntTotCredFisc?: Decimal;
  CantLinDet: number;
  RetencPercep?: RetencPercepTotal[];
  MontoNF?: Decimal;
  MntPagar?: Decimal;
}

export interface CodItem {
  TpoCod: string;
  Cod: string;
}

export interface RetencPercepItem {
  CodRet: string;
  Tasa?: Decimal;
  MntSujetoaRet?: Decimal;
  InfoAdicionalRet?: string;
  ValRetPerc: Decimal;
}

export interface Item {
  NroLinDet: number;
  CodItem?: CodItem[];
  IndFact?: number;
  IndAgenteResp?: 'R' | 'A';
  NomItem?: string;
  /** Export items only. */
  NCM?: string;
  DscItem?: string;
  Cantidad?: Decimal;
  UniMed?: string;
  PrecioUnitario?: Decimal;
  DescuentoPct?: Decimal;
  DescuentoMonto?: Decimal;
  SubDescuento?: Array<{ DescTipo: number; DescVal: Decimal }>;
  RecargoPct?: Decimal;
  RecargoMnt?: Decimal;
  SubRecargo?: Array<{ RecargoTipo: number; RecargoVal: Decimal }>;
  RetencPercep?: RetencPercepItem[];
  MontoItem?: Decimal;
}

export interface STI_Item {
  NroSTI: number;
  GlosaSTI: string;
  OrdenSTI?: number;
  ValSubtotSTI: Decimal;
}

export interface DRG_Item {
  NroLinDR: number;
  /** D descuento, R recargo. */
  TpoMovDR: 'D' | 'R';
  /** 1 = amount ($), 2 = percentage (%). */
  TpoDR: 1 | 2;
  CodDR?: number;
  GlosaDR: string;
  ValorDR: Decimal;
  IndFactDR: number;
}

export interface MedioPago {
  NroLinMP: number;
  CodMP?: number;
  GlosaMP: string;
  OrdenMP?: number;
  ValorPago: Decimal;
}

export interface Referencia {
  NroLinRef: number;
  IndGlobal?: 1;
  TpoDocRef?: number;
  Serie?: string;
  NroCFERef?: number;
  RazonRef?: string;
  FechaCFEref?: string;
  MntCFEref?: Decimal;
  TpoMonedaRef?: string;
  TpoCambioRef?: Decimal;
}

export interface CAEData {
  CAE_ID: string;
  DNro: number;
  HNro: number;
  /** xs:date */
  FecVenc: string;
  CAEEspecial?: 1 | 2 | 3 | 4;
  CausalCAEEsp?: number;
}

/** Plain (unencrypted) Compl_Fiscal_Data (FCFE zone K). */
export interface Compl_Fiscal_Data {
  RUCEmisor: string;
  TipoDocMdte: number;
  Pais: string;
  DocMdte: string;
  NombreMdte: string;
}

export interface Cfe {
  /** Signing timestamp with offset, e.g. 2026-07-08T18:06:51-03:00 (zone H). */
  TmstFirma: string;
  IdDoc: IdDoc;
  Emisor: Emisor;
  Receptor?: Receptor;
  Totales: Totales;
  Detalle: Item[];
  SubTotInfo?: STI_Item[];
  DscRcgGlobal?: DRG_Item[];
  MediosPago?: MedioPago[];
  Referencia?: Referencia[];
  CAEData: CAEData;
  Compl_Fiscal?: Compl_Fiscal_Data;
}
