/**
 * Real-looking receipts for looking at the printed representation by eye (scripts/render-samples.ts)
 * and for the render tests: one line on credit, thirty lines over two pages, an export e-Factura in
 * USD, a credit note with references, and an e-Ticket on the 80 mm roll (issue 27 point 6). Data is
 * made up (DGI's testing RUC as issuer); totals are computed by the emission library, never typed in.
 */
import { completeCfe, SAMPLE_EMISOR, type Cfe, type Item } from '../../emission/index.ts';
import type { CfePdfInput, PdfFormato } from './view.ts';

export interface SampleReceipt {
  name: string;
  formato: PdfFormato;
  input: CfePdfInput;
}

const digestValue = 'dpmLMfgpd/WbZvORW8oErIkY+DtbsUHnh2gnmZyu5HY=';
const CAE = { CAE_ID: '90120000194', DNro: 1, HNro: 9999999, FecVenc: '2027-12-31' };
const TMST = '2026-07-08T18:06:51-03:00';
const RECEPTOR = {
  TipoDocRecep: 2, CodPaisRecep: 'UY', DocRecep: '214844360018', RznSocRecep: 'Ferretería El Tornillo S.R.L.',
  DirRecep: 'Av. General Flores 3456', CiudadRecep: 'Montevideo', DeptoRecep: 'Montevideo',
} as const;
const extras = { digestValue, resolucion: { numero: '798', fecha: '2012-06-01' } };

/** [code, name, unit, quantity, unit price, IndFact] */
type Row = [string, string, string, string, string, number];

const HARDWARE: Row[] = [
  ['7730123000017', 'Tornillo autoperforante 8 x 1" (caja x 100)', 'unid', '4', '312.00', 3],
  ['FER-0042', 'Taladro percutor 650 W con maletín y juego de mechas para hormigón, madera y metal', 'unid', '1', '3890.00', 3],
  ['PIN-LAT-20', 'Pintura látex interior blanco 20 L', 'lt', '20', '189.50', 3],
  ['CAB-2.5', 'Cable unipolar 2,5 mm²', 'm', '50', '28.90', 3],
  ['ARE-FINA', 'Arena fina', 'm3', '1.5', '1450.00', 3],
  ['CLAV-2', 'Clavos 2" punta paris', 'kg', '2.75', '159.00', 3],
  ['LIB-MANUAL', 'Manual de instalaciones eléctricas', 'unid', '1', '690.00', 2],
  ['SERV-ENT', 'Entrega a domicilio', 'N/A', '1', '350.00', 3],
];

function items(rows: Row[]): Item[] {
  return rows.map(([Cod, NomItem, UniMed, Cantidad, PrecioUnitario, IndFact], i) => ({
    NroLinDet: i + 1, CodItem: [{ TpoCod: Cod.length === 13 ? 'EAN' : 'INT1', Cod }], IndFact, NomItem, Cantidad, UniMed, PrecioUnitario,
  }));
}

/** e-Factura on credit with one line: the due date, code and unit are all sent. */
export function oneLineInvoice(): Cfe {
  return completeCfe({
    TmstFirma: TMST, Emisor: SAMPLE_EMISOR, CAEData: CAE, Receptor: RECEPTOR,
    IdDoc: { TipoCFE: 111, Serie: 'A', Nro: 1523, FchEmis: '2026-07-08', MntBruto: 1, FmaPago: 2, FchVenc: '2026-08-07' },
    Detalle: [{ NroLinDet: 1, CodItem: [{ TpoCod: 'INT1', Cod: 'CEM-50' }], IndFact: 3, NomItem: 'Cemento portland bolsa 50 kg', Cantidad: '12', UniMed: 'unid', PrecioUnitario: '489.00' }],
  });
}

/** e-Factura with thirty lines (two A4 pages): long names, descriptions, a line discount, a global discount. */
export function thirtyLineInvoice(): Cfe {
  const rows = Array.from({ length: 30 }, (_, i) => {
    const [code, name, unit, qty, price, ind] = HARDWARE[i % HARDWARE.length];
    return [`${code}${i >= HARDWARE.length ? `-${Math.floor(i / HARDWARE.length)}` : ''}`, name, unit, qty, price, ind] as Row;
  });
  const Detalle = items(rows);
  Detalle[1].DscItem = 'Garantía 12 meses. Número de serie TPX-650-2026-000123.';
  Detalle[4].DescuentoPct = '10';
  return completeCfe({
    TmstFirma: TMST, Emisor: SAMPLE_EMISOR, CAEData: CAE, Receptor: RECEPTOR,
    IdDoc: { TipoCFE: 111, Serie: 'A', Nro: 1524, FchEmis: '2026-07-08', MntBruto: 1, FmaPago: 1 },
    Detalle,
    DscRcgGlobal: [{ NroLinDR: 1, TpoMovDR: 'D', TpoDR: 1, GlosaDR: 'Bonificación cliente frecuente', ValorDR: '500', IndFactDR: 3 }],
    MediosPago: [{ NroLinMP: 1, CodMP: 2, GlosaMP: 'Transferencia bancaria', ValorPago: '0' }],
  });
}

/** Export e-Factura in USD on credit: clauses, exchange rate, a non-billable freight line. */
export function exportInvoice(): Cfe {
  return completeCfe({
    TmstFirma: TMST, Emisor: SAMPLE_EMISOR, CAEData: CAE,
    Receptor: {
      TipoDocRecep: 4, CodPaisRecep: 'BR', DocRecepExt: '12.345.678/0001-90', RznSocRecep: 'Frigorífico Gaúcho Importação Ltda.',
      DirRecep: 'Rua dos Andradas 1500', CiudadRecep: 'Porto Alegre', DeptoRecep: 'RS', PaisRecep: 'Brasil',
    },
    IdDoc: { TipoCFE: 121, Serie: 'A', Nro: 87, FchEmis: '2026-07-08', FmaPago: 2, FchVenc: '2026-09-06', ClauVenta: 'FOB', ModVenta: 1, ViaTransp: 3 },
    Totales: { TpoMoneda: 'USD', TpoCambio: '39.875' },
    Detalle: [
      { NroLinDet: 1, CodItem: [{ TpoCod: 'INT1', Cod: 'CB-CONG-01' }], IndFact: 10, NomItem: 'Carne bovina congelada deshuesada', NCM: '0202.30.00', Cantidad: '18500', UniMed: 'kg', PrecioUnitario: '5.25' },
      { NroLinDet: 2, CodItem: [{ TpoCod: 'INT1', Cod: 'CB-MENU-07' }], IndFact: 10, NomItem: 'Menudencias bovinas congeladas', NCM: '0206.29.90', Cantidad: '2400', UniMed: 'kg', PrecioUnitario: '2.1' },
      { NroLinDet: 3, CodItem: [{ TpoCod: 'INT1', Cod: 'FLETE' }], IndFact: 6, NomItem: 'Flete hasta frontera (no facturable)', Cantidad: '1', UniMed: 'N/A', PrecioUnitario: '950' },
    ],
  });
}

/** Credit note of e-Factura for returned goods, referencing two invoices (one with its Formato v25 amount). */
export function creditNote(): Cfe {
  return completeCfe({
    TmstFirma: TMST, Emisor: SAMPLE_EMISOR, CAEData: CAE, Receptor: RECEPTOR,
    IdDoc: { TipoCFE: 112, Serie: 'A', Nro: 31, FchEmis: '2026-07-08', MntBruto: 1, FmaPago: 2 },
    Detalle: items([HARDWARE[0], HARDWARE[2]]).map((it) => ({ ...it, Cantidad: '1' })),
    Referencia: [
      { NroLinRef: 1, TpoDocRef: 111, Serie: 'A', NroCFERef: 1498, FechaCFEref: '2026-06-30', MntCFEref: '12780.00', TpoMonedaRef: 'UYU', RazonRef: 'Devolución de mercadería' },
      { NroLinRef: 2, TpoDocRef: 111, Serie: 'A', NroCFERef: 1502, FechaCFEref: '2026-07-02', RazonRef: 'Devolución de mercadería' },
    ],
  });
}

/** e-Ticket for the 80 mm roll: mixed rates, weighed goods, two payment methods, an adenda. */
export function rollTicket(): Cfe {
  const Detalle = items([
    ['7790070012050', 'Yerba mate Canarias 1 kg', 'unid', '2', '289.00', 3],
    ['FRU-BAN', 'Banana Ecuador', 'kg', '1.235', '119.00', 2],
    ['LAC-LE1', 'Leche entera Conaprole 1 L', 'unid', '4', '42.00', 1],
    ['PAN-FL', 'Pan flauta', 'unid', '3', '45.50', 2],
    ['7730205037027', 'Detergente líquido concentrado aroma limón 750 ml edición especial', 'unid', '1', '129.99', 3],
    ['CAR-PIC', 'Carne picada especial', 'kg', '0.850', '399.00', 2],
  ]);
  return completeCfe({
    TmstFirma: TMST, Emisor: SAMPLE_EMISOR, CAEData: CAE,
    IdDoc: { TipoCFE: 101, Serie: 'B', Nro: 40213, FchEmis: '2026-07-08', MntBruto: 1, FmaPago: 1 },
    Detalle,
    MediosPago: [
      { NroLinMP: 1, CodMP: 1, GlosaMP: 'Efectivo', ValorPago: '900.62' },
      { NroLinMP: 2, CodMP: 3, GlosaMP: 'Tarjeta de débito', ValorPago: '597.99' },
    ],
  });
}

/** The five receipts with the format each is printed on. */
export function sampleReceipts(): SampleReceipt[] {
  return [
    { name: 'una-linea-credito', formato: 'A4', input: { cfe: oneLineInvoice(), ...extras, adenda: 'Pedido 4471. Entregar en depósito de calle Grecia.' } },
    { name: 'treinta-lineas', formato: 'A4', input: { cfe: thirtyLineInvoice(), ...extras } },
    { name: 'exportacion-usd', formato: 'A4', input: { cfe: exportInvoice(), ...extras } },
    { name: 'nota-credito', formato: 'A4', input: { cfe: creditNote(), ...extras } },
    { name: 'eticket-80mm', formato: 'ticket80', input: { cfe: rollTicket(), ...extras, sitioWebVerificacion: 'www.demo.com.uy/cfe', adenda: '¡Gracias por su compra! Cambios dentro de los 30 días con este ticket.' } },
  ];
}
