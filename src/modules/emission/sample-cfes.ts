/**
 * Realistic sample CFEs for every branch, used by tests, the bench and the demo. Data is made up
 * (DGI's testing RUC 219999830019 as issuer); totals are computed, never typed in.
 */
import { getCfeType } from './cfe-types.ts';
import type { Cfe, Emisor, Item, Receptor } from './cfe.model.ts';
import { completeCfe, type CfeDraft } from './complete-cfe.ts';

export const SAMPLE_EMISOR: Emisor = {
  RUCEmisor: '219999830019',
  RznSoc: 'Empresa Demo S.A.',
  NomComercial: 'Demo & Cía',
  Telefono: ['29001234'],
  CorreoEmisor: 'facturacion@demo.com.uy',
  EmiSucursal: 'Casa central',
  CdgDGISucur: 1,
  DomFiscal: 'Av. 18 de Julio 1234',
  Ciudad: 'Montevideo',
  Departamento: 'Montevideo',
};

const RECEPTOR_RUC: Receptor = {
  TipoDocRecep: 2,
  CodPaisRecep: 'UY',
  DocRecep: '214844360018',
  RznSocRecep: 'Cliente <Mayorista> S.R.L.',
  DirRecep: 'Fernández Crespo 1534',
  CiudadRecep: 'Montevideo',
  DeptoRecep: 'Montevideo',
};

const RECEPTOR_EXT: Receptor = {
  TipoDocRecep: 4,
  CodPaisRecep: 'AR',
  DocRecepExt: '30-71234567-8',
  RznSocRecep: 'Importadora del Plata S.A.',
  DirRecep: 'Av. Corrientes 1000',
  CiudadRecep: 'Buenos Aires',
  DeptoRecep: 'CABA',
  PaisRecep: 'Argentina',
};

function ticketItems(lines: number): Item[] {
  const catalog: Array<[number, string, string, string]> = [
    [3, 'Yerba mate 1 kg', '2', '189.90'],
    [2, 'Pan flauta', '3', '45.5'],
    [1, 'Leche entera 1 L', '4', '38'],
    [3, 'Aceite girasol 900 ml', '1', '129.99'],
  ];
  return Array.from({ length: lines }, (_, i) => {
    const [IndFact, NomItem, Cantidad, PrecioUnitario] = catalog[i % catalog.length];
    return { NroLinDet: i + 1, CodItem: [{ TpoCod: 'INT1', Cod: `SKU-${i + 1}` }], IndFact, NomItem, Cantidad, UniMed: 'N/A', PrecioUnitario };
  });
}

export interface SampleOptions {
  Nro?: number;
  lines?: number;
  TmstFirma?: string;
}

/** A complete CFE (totals computed) of the given type. */
export function sampleCfe(tipoCFE: number, options: SampleOptions = {}): Cfe {
  const info = getCfeType(tipoCFE);
  const Serie = 'A';
  const base = {
    TmstFirma: options.TmstFirma ?? '2026-07-08T18:06:51-03:00',
    Emisor: SAMPLE_EMISOR,
    CAEData: { CAE_ID: '90120000194', DNro: 1, HNro: 9999999, FecVenc: '2027-12-31' },
  };
  const idDoc = { TipoCFE: tipoCFE, Serie, Nro: options.Nro ?? 1, FchEmis: '2026-07-08' };
  const referencia = info.note
    ? [{ NroLinRef: 1, TpoDocRef: tipoCFE - (info.note === 'NC' ? 1 : 2), Serie, NroCFERef: 10, RazonRef: 'Devolución parcial', FechaCFEref: '2026-07-01' }]
    : undefined;
  let draft: CfeDraft;
  switch (info.branch) {
    case 'eTck':
    case 'eFact':
      draft = {
        ...base,
        IdDoc: { ...idDoc, MntBruto: 1, FmaPago: 1 },
        Receptor: info.branch === 'eFact' ? RECEPTOR_RUC : undefined,
        Detalle: ticketItems(options.lines ?? 4),
        DscRcgGlobal:
          info.note === null ? [{ NroLinDR: 1, TpoMovDR: 'D', TpoDR: 1, GlosaDR: 'Descuento socio', ValorDR: '10', IndFactDR: 3 }] : undefined,
        MediosPago: [{ NroLinMP: 1, CodMP: 1, GlosaMP: 'Efectivo', ValorPago: '0' }],
        Referencia: referencia,
        Compl_Fiscal: info.isCuentaAjena
          ? { RUCEmisor: SAMPLE_EMISOR.RUCEmisor, TipoDocMdte: 2, Pais: 'UY', DocMdte: '211111110014', NombreMdte: 'Mandante S.A.' }
          : undefined,
      };
      break;
    case 'eFact_Exp':
      draft = {
        ...base,
        IdDoc: { ...idDoc, FmaPago: 2, FchVenc: '2026-08-07', ClauVenta: 'FOB', ModVenta: 1, ViaTransp: 1 },
        Receptor: RECEPTOR_EXT,
        Totales: { TpoMoneda: 'USD', TpoCambio: '39.875' },
        Detalle: [
          { NroLinDet: 1, IndFact: 10, NomItem: 'Carne bovina congelada', NCM: '0202.30.00', Cantidad: '1000', UniMed: 'kg', PrecioUnitario: '5.25' },
          { NroLinDet: 2, IndFact: 6, NomItem: 'Flete (no facturable)', Cantidad: '1', UniMed: 'N/A', PrecioUnitario: '150' },
        ],
        Referencia: referencia,
      };
      break;
    case 'eRem_Exp':
      draft = {
        ...base,
        IdDoc: { ...idDoc, TipoTraslado: 1, ClauVenta: 'FOB', ModVenta: 1, ViaTransp: 3 },
        Receptor: RECEPTOR_EXT,
        Totales: { TpoMoneda: 'USD', TpoCambio: '39.875' },
        Detalle: [{ NroLinDet: 1, NomItem: 'Lana sucia', Cantidad: '500', UniMed: 'kg', PrecioUnitario: '3.1' }],
      };
      break;
    case 'eRem':
      draft = {
        ...base,
        IdDoc: { ...idDoc, TipoTraslado: 1 },
        Receptor: RECEPTOR_RUC,
        Detalle: [
          { NroLinDet: 1, NomItem: 'Manzanas', Cantidad: '10', UniMed: 'kg' },
          { NroLinDet: 2, NomItem: 'Arroz', Cantidad: '8.5', UniMed: 'kg' },
        ],
      };
      break;
    case 'eResg':
      draft = {
        ...base,
        IdDoc: { ...idDoc },
        Receptor: { TipoDocRecep: 2, CodPaisRecep: 'UY', DocRecep: '214844360018', RznSocRecep: 'Proveedor S.A.' },
        Detalle: [
          { NroLinDet: 1, RetencPercep: [{ CodRet: '2183165', Tasa: '50', MntSujetoaRet: '22000', ValRetPerc: '11000' }] },
          { NroLinDet: 2, RetencPercep: [{ CodRet: '2183165', Tasa: '50', MntSujetoaRet: '88000', ValRetPerc: '44000' }] },
        ],
        Referencia: [{ NroLinRef: 1, TpoDocRef: 111, Serie, NroCFERef: 25 }],
      };
      break;
    case 'eBoleta':
      draft = {
        ...base,
        IdDoc: { ...idDoc, FmaPago: 1 },
        Receptor: { TipoDocRecep: 3, CodPaisRecep: 'UY', DocRecep: '13353214', RznSocRecep: 'Juan Pérez', DirRecep: 'Ruta 5 km 40' },
        Detalle: [
          { NroLinDet: 1, IndFact: 13, NomItem: 'Leña', Cantidad: '2', UniMed: 'm3', PrecioUnitario: '1500' },
          { NroLinDet: 2, IndFact: 5, NomItem: 'Bolsa', Cantidad: '1', UniMed: 'N/A', PrecioUnitario: '0' },
        ],
        Referencia: referencia,
      };
      break;
  }
  return completeCfe(draft);
}

/** The type codes the tests cover: one or more per branch/family. */
export const SAMPLE_TYPES = [101, 102, 103, 111, 112, 113, 121, 124, 131, 141, 151, 181, 182] as const;
