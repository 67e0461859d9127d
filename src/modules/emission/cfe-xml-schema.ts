/**
 * Element order of every complex type the CFE builder emits, copied from CFEType.xsd
 * (XSDs_FE 1.44.2). A field is a leaf name, or [name, childShape] for a nested type; arrays in the
 * model repeat the element. Keep these in XSD order: the builder writes exactly this order.
 */
import type { CfeBranch } from './cfe-types.ts';

export type Field = string | readonly [string, Shape];
export type Shape = readonly Field[];

const ID_DOC_HEAD = ['TipoCFE', 'Serie', 'Nro', 'NroInterno', 'FchEmis'] as const;
const PERIODO_PAGO = ['PeriodoDesde', 'PeriodoHasta', 'MntBruto', 'FmaPago', 'FchVenc'] as const;
const PROPIEDAD = ['TipoTraslado', 'IndPropiedad', 'TipoDocProp', 'CodPaisProp', 'DocProp', 'DocPropExt', 'RznSocProp'] as const;

export const ID_DOC: Readonly<Record<CfeBranch, Shape>> = {
  eTck: [...ID_DOC_HEAD, ...PERIODO_PAGO, 'ModVenta', 'InfoAdicionalDoc', 'IVAalDia', 'SecProf', 'IndPagCta3ros', 'IndCobPropia'],
  eFact: [...ID_DOC_HEAD, ...PERIODO_PAGO, 'ModVenta', 'InfoAdicionalDoc', 'IVAalDia', 'SecProf', 'IndPagCta3ros', 'IndCobPropia'],
  eFact_Exp: [
    ...ID_DOC_HEAD,
    ...PERIODO_PAGO,
    'ClauVenta',
    'ModVenta',
    'ViaTransp',
    'InfoAdicionalDoc',
    'IVAalDia',
    'SecProf',
    'IndPagCta3ros',
  ],
  eRem: [...ID_DOC_HEAD, ...PROPIEDAD, 'InfoAdicionalDoc', 'SecProf'],
  eRem_Exp: [...ID_DOC_HEAD, ...PROPIEDAD, 'ClauVenta', 'ModVenta', 'ViaTransp', 'InfoAdicionalDoc', 'SecProf'],
  eResg: [...ID_DOC_HEAD, 'FchValor', 'InfoAdicionalDoc', 'SecProf'],
  eBoleta: [...ID_DOC_HEAD, ...PERIODO_PAGO, 'InfoAdicionalDoc', 'SecProf', 'IndCompraMEReventa'],
};

export const EMISOR: Shape = [
  'RUCEmisor',
  'RznSoc',
  'NomComercial',
  'GiroEmis',
  'Telefono',
  'CorreoEmisor',
  'EmiSucursal',
  'CdgDGISucur',
  'DomFiscal',
  'Ciudad',
  'Departamento',
  'InfoAdicionalEmisor',
];

const RECEPTOR_HEAD = ['TipoDocRecep', 'CodPaisRecep', 'DocRecep', 'DocRecepExt'] as const;
const RECEPTOR_BODY = ['RznSocRecep', 'DirRecep', 'CiudadRecep', 'DeptoRecep', 'PaisRecep', 'CP', 'InfoAdicional'] as const;
const RECEPTOR_FULL: Shape = [...RECEPTOR_HEAD, ...RECEPTOR_BODY, 'LugarDestEnt', 'CompraID'];

export const RECEPTOR: Readonly<Record<CfeBranch, Shape>> = {
  eTck: RECEPTOR_FULL,
  // Receptor_Fact has no DocRecepExt: e-Factura receivers are Uruguayan RUCs (BRIEF 1).
  eFact: ['TipoDocRecep', 'CodPaisRecep', 'DocRecep', ...RECEPTOR_BODY, 'LugarDestEnt', 'CompraID'],
  eFact_Exp: RECEPTOR_FULL,
  eRem: RECEPTOR_FULL,
  eRem_Exp: RECEPTOR_FULL,
  eResg: [...RECEPTOR_HEAD, ...RECEPTOR_BODY],
  eBoleta: RECEPTOR_FULL,
};

const RETENC_TOTAL: Shape = ['CodRet', 'ValRetPerc'];

export const TOTALES: Readonly<Record<CfeBranch, Shape>> = {
  eTck: totalesFull(),
  eFact: totalesFull(),
  eFact_Exp: ['TpoMoneda', 'TpoCambio', 'MntExpoyAsim', 'MntTotal', 'CantLinDet', 'MontoNF', 'MntPagar'],
  eRem: ['CantLinDet'],
  eRem_Exp: ['TpoMoneda', 'TpoCambio', 'MntExpoyAsim', 'MntTotal', 'CantLinDet'],
  eResg: ['TpoMoneda', 'TpoCambio', 'MntTotRetenido', 'MntTotCredFisc', 'CantLinDet', ['RetencPercep', RETENC_TOTAL]],
  eBoleta: [
    'TpoMoneda',
    'TpoCambio',
    'MntNoGrv',
    'MntIVaenSusp',
    'MntTotal',
    'MntTotRetenido',
    'CantLinDet',
    ['RetencPercep', RETENC_TOTAL],
    'MontoNF',
    'MntPagar',
  ],
};

function totalesFull(): Shape {
  return [
    'TpoMoneda',
    'TpoCambio',
    'MntNoGrv',
    'MntExpoyAsim',
    'MntImpuestoPerc',
    'MntIVaenSusp',
    'MntNetoIvaTasaMin',
    'MntNetoIVATasaBasica',
    'MntNetoIVAOtra',
    'IVATasaMin',
    'IVATasaBasica',
    'MntIVATasaMin',
    'MntIVATasaBasica',
    'MntIVAOtra',
    'MntTotal',
    'MntTotRetenido',
    'MntTotCredFisc',
    'CantLinDet',
    ['RetencPercep', RETENC_TOTAL],
    'MontoNF',
    'MntPagar',
  ];
}

const COD_ITEM: Field = ['CodItem', ['TpoCod', 'Cod']];
const ITEM_ADJUSTMENTS: Shape = [
  'DescuentoPct',
  'DescuentoMonto',
  ['SubDescuento', ['DescTipo', 'DescVal']],
  'RecargoPct',
  'RecargoMnt',
  ['SubRecargo', ['RecargoTipo', 'RecargoVal']],
];
const RET_PERC_ITEM: Field = ['RetencPercep', ['CodRet', 'Tasa', 'MntSujetoaRet', 'InfoAdicionalRet', 'ValRetPerc']];
const ITEM_DET_FACT: Shape = [
  'NroLinDet',
  COD_ITEM,
  'IndFact',
  'IndAgenteResp',
  'NomItem',
  'DscItem',
  'Cantidad',
  'UniMed',
  'PrecioUnitario',
  ...ITEM_ADJUSTMENTS,
  RET_PERC_ITEM,
  'MontoItem',
];

export const ITEM: Readonly<Record<CfeBranch, Shape>> = {
  eTck: ITEM_DET_FACT,
  eFact: ITEM_DET_FACT,
  eFact_Exp: [
    'NroLinDet',
    COD_ITEM,
    'IndFact',
    'NomItem',
    'NCM',
    'DscItem',
    'Cantidad',
    'UniMed',
    'PrecioUnitario',
    ...ITEM_ADJUSTMENTS,
    'MontoItem',
  ],
  eRem: ['NroLinDet', COD_ITEM, 'IndFact', 'NomItem', 'DscItem', 'Cantidad', 'UniMed'],
  eRem_Exp: ['NroLinDet', COD_ITEM, 'IndFact', 'NomItem', 'NCM', 'DscItem', 'Cantidad', 'UniMed', 'PrecioUnitario', 'MontoItem'],
  eResg: ['NroLinDet', 'IndFact', RET_PERC_ITEM],
  eBoleta: ITEM_DET_FACT,
};

export const STI_ITEM: Shape = ['NroSTI', 'GlosaSTI', 'OrdenSTI', 'ValSubtotSTI'];
export const DRG_ITEM: Shape = ['NroLinDR', 'TpoMovDR', 'TpoDR', 'CodDR', 'GlosaDR', 'ValorDR', 'IndFactDR'];
export const MEDIO_PAGO: Shape = ['NroLinMP', 'CodMP', 'GlosaMP', 'OrdenMP', 'ValorPago'];
export const REFERENCIA: Shape = [
  'NroLinRef',
  'IndGlobal',
  'TpoDocRef',
  'Serie',
  'NroCFERef',
  'RazonRef',
  'FechaCFEref',
  'MntCFEref',
  'TpoMonedaRef',
  'TpoCambioRef',
];
export const CAE_DATA: Shape = ['CAE_ID', 'DNro', 'HNro', 'FecVenc', 'CAEEspecial', 'CausalCAEEsp'];
export const COMPL_FISCAL_DATA: Shape = ['RUCEmisor', 'TipoDocMdte', 'Pais', 'DocMdte', 'NombreMdte'];

/** Optional zones after Detalle, per branch (XSD CFEDefType). */
export const ZONES: Readonly<Record<CfeBranch, { dscRcgMediosPago: boolean; complFiscal: boolean }>> = {
  eTck: { dscRcgMediosPago: true, complFiscal: true },
  eFact: { dscRcgMediosPago: true, complFiscal: true },
  eFact_Exp: { dscRcgMediosPago: true, complFiscal: false },
  eRem: { dscRcgMediosPago: false, complFiscal: false },
  eRem_Exp: { dscRcgMediosPago: false, complFiscal: false },
  eResg: { dscRcgMediosPago: false, complFiscal: false },
  eBoleta: { dscRcgMediosPago: true, complFiscal: true },
};
