/**
 * The receipts of DGI's "Prueba de Testing" (BRIEF 13): e-Tickets (101) and e-Facturas (111), then
 * their credit (102/112) and debit (103/113) notes, each note referencing a receipt DGI received.
 * Realistic and varied on purpose, so the test covers what the company will issue: both IVA rates and
 * exempt lines, prices with and without VAT (MntBruto), line and global discounts, US dollars,
 * credit sales, e-Tickets below and above the 5,000 UI threshold (identified buyer above, BRIEF 1).
 * Pure: bodies of the emitir request (issued-cfe.schemas.ts), nothing else.
 */
import type { CfeBody } from '../issued-cfe/issued-cfe.schemas.js';

export const TESTING_TYPES = [101, 102, 103, 111, 112, 113] as const;
export type TestingType = (typeof TESTING_TYPES)[number];

/** Uruguayan buyers with valid documents (check digits per lib/rut.ts); RUTs from DGI's Testing list (BRIEF 11). */
const EMPRESAS = [
  { documento: '219999830019', razonSocial: 'DGI Prueba CEDE', direccion: 'Fernández Crespo 1534', ciudad: 'Montevideo', departamento: 'Montevideo' },
  { documento: '214844360018', razonSocial: 'Distribuidora del Este S.A.', direccion: 'Av. Italia 2890', ciudad: 'Montevideo', departamento: 'Montevideo' },
  { documento: '210475730011', razonSocial: 'Agro Litoral S.R.L.', direccion: '18 de Julio 455', ciudad: 'Paysandú', departamento: 'Paysandú' },
];
const PERSONAS = [
  { tipoDocumento: 3, documento: '13353214', razonSocial: 'Juan Pérez', direccion: '18 de Julio 2016', ciudad: 'Montevideo', departamento: 'Montevideo' },
  { tipoDocumento: 3, documento: '41234563', razonSocial: 'María Rodríguez', direccion: 'Rambla Rep. de México 5500', ciudad: 'Montevideo', departamento: 'Montevideo' },
];

type Line = NonNullable<CfeBody['detalles']>[number];
const line = (nombreItem: string, indicadorFacturacion: number, cantidad: string, precioUnitario: string, extra: Partial<Line> = {}): Line => ({
  nombreItem, indicadorFacturacion, cantidad, precioUnitario, unidadMedida: 'N/A', ...extra,
});

/** A receipt of the set: 101 or 111, number `i` (0-based) of the run, on `fecha`. */
export function receiptBody(tipo: 101 | 111, i: number, fecha: string): CfeBody {
  const variant = i % 6;
  const idDoc: CfeBody['idDoc'] = { tipoCfe: tipo, fechaEmision: fecha, formaPago: 1 };
  const body: CfeBody = { idDoc, detalles: [] };
  if (tipo === 111) {
    const e = EMPRESAS[i % EMPRESAS.length];
    body.receptor = { tipoDocumento: 2, codPais: 'UY', ...e };
  }
  switch (variant) {
    case 0: // basic and minimum rate, prices without VAT
      body.detalles = [line('Yerba mate 1 kg', 3, String(2 + (i % 3)), '189.90'), line('Pan flauta', 2, '3', '45.50')];
      break;
    case 1: // prices with VAT included (MntBruto 1), an exempt line
      idDoc.mntBruto = 1;
      body.detalles = [line('Aceite girasol 900 ml', 3, '2', '129.99'), line('Leche entera 1 L', 1, '6', '38'), line('Arroz 1 kg', 2, '2', '61')];
      break;
    case 2: // line discounts (percentage and amount)
      body.detalles = [line('Auriculares', 3, '1', '1490', { descuentoPct: '10', descuentoMonto: '149' }), line('Libro de texto', 2, '2', '850', { descuentoPct: '5', descuentoMonto: '85' })];
      break;
    case 3: // US dollars (the rate is the BCU quote the service resolves, spec 2.3 rule 7)
      body.totales = { tipoMoneda: 'USD' };
      body.detalles = [line('Licencia de software (anual)', 3, '1', tipo === 101 ? '95' : '480'), line('Soporte técnico', 3, '2', '35')];
      break;
    case 4: // a global discount on the basic-rate lines
      body.detalles = [line('Detergente 3 L', 3, '2', '310'), line('Jabón en polvo', 3, '1', '420'), line('Fideos 500 g', 2, '4', '58')];
      body.descuentosRecargos = [{ tipoMovimiento: 'D', tipo: 1, glosa: 'Descuento cliente frecuente', valor: '50', indicadorFacturacion: 3 }];
      break;
    default: // the large sale: an e-Ticket above 5,000 UI identifies its buyer (BRIEF 1); the e-Factura is on credit
      body.detalles = [line('Heladera no frost 400 L', 3, '1', '41900'), line('Instalación', 3, '1', '2500')];
      if (tipo === 101) {
        const p = PERSONAS[i % PERSONAS.length];
        body.receptor = { codPais: 'UY', ...p };
      } else {
        idDoc.formaPago = 2;
        idDoc.fechaVencimiento = addDays(fecha, 30);
      }
  }
  return body;
}

/** What a note needs of the receipt it references. */
export interface ReferencedReceipt {
  tipoCfe: number;
  serie: string;
  numero: number;
  fechaEmision: string;
  moneda: string;
  tipoCambio: string | null;
  /** The receiver block as printed (issued-cfe view), copied so the note names the same buyer. */
  receptor?: { tipoDocumento?: number; documento?: string; codPais?: string; razonSocial?: string; direccion?: string; ciudad?: string; departamento?: string } | null;
}

/** A credit (102/112) or debit (103/113) note on `ref`, number `i` of its type. */
export function noteBody(tipo: 102 | 103 | 112 | 113, i: number, fecha: string, ref: ReferencedReceipt): CfeBody {
  const credit = tipo === 102 || tipo === 112;
  const usd = ref.moneda !== 'UYU';
  const body: CfeBody = {
    idDoc: { tipoCfe: tipo, fechaEmision: fecha, formaPago: 1 },
    // A small amount: partial return or a late-payment charge, below the referenced receipt's total and the UI threshold.
    detalles: credit
      ? [line(i % 2 ? 'Devolución parcial de mercadería' : 'Bonificación por pronto pago', 3, '1', usd ? '5' : String(40 + (i % 7) * 5))]
      : [line(i % 2 ? 'Recargo por pago fuera de plazo' : 'Flete adicional', 3, '1', usd ? '3' : String(25 + (i % 5) * 5))],
    referencias: [{ tipoCfe: ref.tipoCfe, serie: ref.serie, numero: ref.numero, fecha: ref.fechaEmision, razon: credit ? 'Devolución / bonificación' : 'Recargo' }],
  };
  if (usd) body.totales = { tipoMoneda: ref.moneda, ...(ref.tipoCambio ? { tipoCambio: ref.tipoCambio } : {}) };
  const r = ref.receptor;
  if (r?.documento) {
    body.receptor = { documento: r.documento, ...(r.tipoDocumento ? { tipoDocumento: r.tipoDocumento } : {}), codPais: r.codPais ?? 'UY', razonSocial: r.razonSocial, direccion: r.direccion, ciudad: r.ciudad, departamento: r.departamento };
  }
  return body;
}

function addDays(fecha: string, days: number): string {
  const d = new Date(`${fecha}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
