/**
 * The emitir request of spec 2.1, field names exactly as the spec writes them. Where the spec is
 * silent (references, discounts, payment means, export fields) the DGI element names are accepted in
 * lowerCamel form (mntBruto, clauVenta, viaTransp, …), documented in the OpenAPI description.
 */
import { z } from 'zod';
import { calendarDate } from '../../platform/http/dates.js';
import { withFreeTextPolicy } from './free-text.js';
import { companyRef } from '../../platform/http/company-refs.js';
import { dgiDecimal, dgiInt, dgiText } from '../../platform/http/dgi-fields.js';

/** Amounts travel as JSON numbers or decimal strings; both become exact decimal strings. */
const decimal = z
  .union([z.number().finite(), z.string().regex(/^-?\d+(\.\d+)?$/)])
  .transform((v) => (typeof v === 'number' ? numberToDecimal(v) : v))
  .describe('Decimal amount (number or string such as "1220.50").');

/**
 * Significant decimals and digits of a decimal string, as DGI's XSD facets count them on the value
 * ("1.50" has one decimal, "0.05" one digit).
 */
export function decimalDigits(s: string): { fraction: number; total: number } {
  // A scan instead of replace/split: every amount of every line is checked (issue 5 point 11).
  const start = s.charCodeAt(0) === 45 ? 1 : 0; // '-'
  const dot = s.indexOf('.', start);
  const wholeEnd = dot < 0 ? s.length : dot;
  let w = start;
  while (w < wholeEnd && s.charCodeAt(w) === 48) w++; // leading zeros
  let f = dot < 0 ? 0 : s.length;
  while (f > dot + 1 && s.charCodeAt(f - 1) === 48) f--; // trailing zeros
  const fraction = dot < 0 ? 0 : f - dot - 1;
  if (w < wholeEnd) return { fraction, total: wholeEnd - w + fraction };
  let lead = dot + 1;
  while (lead < f && s.charCodeAt(lead) === 48) lead++; // 0.05: zeros after the point are not digits
  return { fraction, total: dot < 0 ? 0 : f - lead };
}

/**
 * A decimal within its DGI type's fractionDigits/totalDigits (DGITypes.xsd: Monto* 2/17,
 * PrecioUnitarioType 6/17, Cant_admite_negType 3/17, PctType and TasaIVAType 3/6): refused here
 * with the field's path, not later as an XSD error of the whole CFE. A sent tipoCambio is held to
 * TipCambioType the same way (only central-bank and table rates are rounded to its 3 decimals).
 */
function decimalAt(fraction: number, total: number) {
  const tooManyDecimals = fraction === 0 ? 'no admite decimales' : `admite como máximo ${fraction} decimales`;
  const tooManyDigits = `admite como máximo ${total} dígitos`;
  // One check counting both (two refines counted the digits twice); each limit is its own issue.
  return decimal
    .superRefine((v, ctx) => {
      const d = decimalDigits(v);
      if (d.fraction > fraction) ctx.addIssue({ code: 'custom', message: tooManyDecimals });
      if (d.total > total) ctx.addIssue({ code: 'custom', message: tooManyDigits });
    })
    .describe(`Decimal (number or string such as "1220.50"), at most ${fraction} decimals and ${total} digits (DGI type).`);
}
const amount = decimalAt(2, 17);
const currencyCode = z.string().regex(/^[A-Z]{3}$/);
const pct = decimalAt(3, 6);

function numberToDecimal(n: number): string {
  // Shortest round-trip form; exponent notation (1e21, 1e-7) is expanded by toFixed.
  const s = String(n);
  return /e/i.test(s) ? n.toFixed(10).replace(/\.?0+$/, '') : s;
}

// A real calendar day: xs:date in DGI's XSD would otherwise reject 2026-02-30 late, with a technical message.
const date = calendarDate;
const int = z.number().int();

export const idDocBody = z.object({
  tipoCfe: int.describe('CFE type code (101 e-Ticket, 111 e-Factura, 112 NC e-Factura, 181 e-Remito, …).').meta({ example: 101 }),
  fechaEmision: date.describe('FchEmis, YYYY-MM-DD.').meta({ example: '2026-03-10' }),
  formaPago: z.union([z.literal(1), z.literal(2)]).optional().describe('FmaPago: 1 contado, 2 crédito. Default 1 (omitted on remitos/resguardos).'),
  mntBruto: z.union([z.literal(1), z.literal(2), z.literal(3)]).optional().describe('MntBruto: 1 = line prices include VAT.'),
  fechaVencimiento: date.optional().describe('FchVenc'),
  numeroInterno: z.string().max(50).optional().describe('NroInterno'),
  periodoDesde: date.optional(),
  periodoHasta: date.optional(),
  clauVenta: z.string().regex(/^([A-Za-z|]{1,3}|N\/A)$/, 'Incoterm de 1 a 3 letras, o N/A (ClauVenta de DGI)').optional().describe('Export: Incoterm (ClauVenta): 1-3 letters or N/A.'),
  modVenta: dgiInt('ModVentaType').optional().describe('ModVenta (DGI ModVentaType).'),
  viaTransp: dgiInt('ViaTranspType').optional().describe('Export: ViaTransp (DGI ViaTranspType).'),
  tipoTraslado: z.union([z.literal(1), z.literal(2)]).optional().describe('e-Remito: TipoTraslado (1 venta, 2 traslado interno).'),
  fchValor: date.optional().describe('e-Resguardo: FchValor.'),
  indCompraMEReventa: dgiInt('IndCompraMEReventaType').optional(),
  infoAdicionalDoc: z.string().max(150).optional(),
  ivaAlDia: dgiInt('IndIVAalDiaType').optional().describe('IVAalDia (DGI IndIVAalDiaType).'),
  secProf: dgiInt('SecProfType').optional(),
  indPagCta3ros: dgiInt('IndPagCta3rosType').optional(),
  indCobPropia: dgiInt('IndCobPropiaType').optional(),
});

export const emisorBody = z.object({
  ruc: z.string().regex(/^\d{12}$/).optional().describe('RUCEmisor; when absent the issuer is built from company and branch (spec 2.2).'),
  razonSocial: z.string().max(150).optional(),
  nombreComercial: z.string().max(30).optional(),
  giro: z.string().max(60).optional().describe('GiroEmis (≤ 60 characters, DGI GiroType).'),
  telefono: z.string().max(20).optional(),
  correo: z.string().max(80).optional(),
  sucursal: z.string().max(20).optional(),
  codigoDgiSucursal: int.optional().describe('CdgDGISucur'),
  domicilioFiscal: z.string().max(70).optional(),
  ciudad: z.string().max(30).optional(),
  departamento: z.string().max(30).optional(),
});

export const receptorBody = z.object({
  idCliente: companyRef(int.positive(), 'cliente', { error: 'CLIENTE_RECEPTOR_NO_ENCONTRADO' }).optional().describe('Customer of the same company (spec 2.3 rule 3).'),
  documento: z.string().min(1).max(20).optional().describe('Tax id / document of the receiver.'),
  tipoDocumento: int.min(1).max(7).optional().describe('TipoDocRecep: 2 RUT, 3 C.I., 4 otros, 5 pasaporte, 6 DNI, 7 NIFE. Default: 2 for 12-digit documents, 3 otherwise.'),
  codPais: dgiText('CodPaisType', { required: true }).optional().describe('CodPaisRecep: DGI\'s CodPaisType table (ISO 3166 alpha-2, or 99); default UY.'),
  razonSocial: z.string().max(150).optional(),
  direccion: z.string().max(70).optional(),
  ciudad: z.string().max(30).optional(),
  departamento: z.string().max(30).optional(),
  pais: z.string().max(30).optional(),
  codigoPostal: dgiText('CodPostalType').optional().describe('CP: digits only, 0..99999 (DGI CodPostalType).'),
  compraId: z.string().max(50).optional(),
});

/** Amount fields accepted in totales with DGI's names in lowerCamel form (BRIEF 2.4). */
export const TOTALS_AMOUNT_FIELDS = [
  'mntNoGrv', 'mntExpoyAsim', 'mntImpuestoPerc', 'mntIVaenSusp', 'mntNetoIvaTasaMin', 'mntNetoIVATasaBasica', 'mntNetoIVAOtra',
  'ivaTasaMin', 'ivaTasaBasica', 'mntIVATasaMin', 'mntIVATasaBasica', 'mntIVAOtra', 'mntTotal', 'mntTotRetenido', 'mntTotCredFisc',
  'montoNF', 'mntPagar',
] as const;

export const totalesBody = z.object({
  tipoMoneda: currencyCode.optional().describe('TpoMoneda, ISO 4217 (UYU default).').meta({ example: 'UYU' }),
  tipoCambio: dgiDecimal('TipCambioType').optional().describe('TpoCambio; when omitted for a foreign currency it is resolved (spec 2.3 rule 7). Used as sent (spec 2.3 rule 7), so it must fit DGI\'s TipCambioType: 0.001..9999.999 with at most 3 decimals; 39.5001 is a 400, never rounded to 39.5.'),
  ...Object.fromEntries(TOTALS_AMOUNT_FIELDS.map((f) => [f, (f.startsWith('ivaTasa') ? pct : amount).optional()])) as Record<(typeof TOTALS_AMOUNT_FIELDS)[number], z.ZodOptional<typeof amount>>,
  cantLinDet: int.optional(),
  retencPercep: z.array(z.object({ codRet: dgiText('CodRetType', { required: true }), valRetPerc: amount })).max(20).optional(),
});

const retencionItem = z.object({
  codRet: z.string().max(7), tasa: pct.optional(), mntSujetoaRet: amount.optional(), infoAdicionalRet: z.string().max(50).optional(), valRetPerc: amount,
});

export const detalleBody = z.object({
  numeroLineaDetalle: int.positive().optional().describe('When sent, must be the line\'s position (1, 2, …): DGI numbers the lines NroLinDet 1..n in order (B-C1), so any other numbering is refused (422 LINEA_NUMERO_INVALIDO) rather than silently renumbered.'),
  indicadorFacturacion: int.optional().describe('IndFact (BRIEF 2.6). Required except on remitos/resguardos.'),
  nombreItem: dgiText('NomItemType', { required: true }).optional().describe('NomItem (≤ 80 characters); required on every type except e-Resguardo (182), or taken from idVariante. Trimmed; a name of only spaces is a 400 (DGI requires a non-empty NomItem).'),
  descripcionItem: z.string().max(1000).optional(),
  // 0 (or -0) sells nothing: refused. Negative is DGI's way to take back an item of the same CFE (BRIEF 2.4): accepted.
  cantidad: decimalAt(3, 17).refine((v) => !/^-?0*(\.0*)?$/.test(v), 'debe ser distinta de 0 (una línea con cantidad 0 no vende nada)').optional()
    .describe('Cantidad (3 decimals, 17 digits); required except on e-Resguardo. 0 and -0 are a 400; a negative quantity is accepted (DGI: it removes an item of the same CFE).'),
  unidadMedida: z.string().min(1).max(4).optional().describe('UniMed; default "N/A".'),
  precioUnitario: decimalAt(6, 17).optional(),
  montoItem: amount.optional().describe('MontoItem; computed when omitted.'),
  descuentoPct: pct.optional(),
  descuentoMonto: amount.optional(),
  recargoPct: pct.optional(),
  recargoMnt: amount.optional(),
  // Unbounded before: a long code passed here and failed the XSD after numbering (XML_INVALIDO).
  codigoItem: z.array(z.object({ tpoCod: dgiText('TipoCodType', { required: true }), cod: dgiText('CodItemType', { required: true }) })).max(5).optional()
    .describe('CodItem: tpoCod (≤ 10 characters: GTIN8/12/13/14, PLU, INT1, INT2, ARCE…) and cod (≤ 35).'),
  retencPercep: z.array(retencionItem).max(5).optional(),
  idVariante: companyRef(int.positive(), 'variante').optional(),
  datosTrazabilidad: z.object({ id_lote: companyRef(int.positive(), 'lote').optional(), id_serie: int.positive().optional() }).optional(),
});

export const referenciaBody = z.object({
  indicadorGlobal: z.literal(1).optional().describe('1 = the referenced document cannot be identified; then razon is required.'),
  tipoCfe: int.optional().describe('TpoDocRef: type of the referenced receipt.'),
  serie: z.string().max(2).optional(),
  numero: int.positive().optional().describe('NroCFERef'),
  razon: z.string().max(90).optional().describe('RazonRef'),
  fecha: date.optional().describe('FechaCFEref: the referenced receipt\'s date (checked against it when it is one of the company\'s).'),
  monto: amount.refine((v) => !v.startsWith('-'), 'debe ser 0 o mayor').optional().describe('MntCFEref (Formato v25): the amount of the referenced receipt this one corrects, in its currency, 0 .. its MntPagar.'),
  tipoMoneda: currencyCode.optional().describe('TpoMonedaRef (Formato v25): the referenced receipt\'s currency.'),
  tipoCambio: decimalAt(3, 7).refine((v) => Number(v) >= 0.001 && Number(v) <= 9999.999, 'debe estar entre 0.001 y 9999.999').optional().describe('TpoCambioRef (Formato v25): the referenced receipt\'s exchange rate; required when tipoMoneda is not UYU.'),
});

export const cfeBody = z.object({
  idDoc: idDocBody,
  emisor: emisorBody.optional(),
  receptor: receptorBody.optional(),
  totales: totalesBody.optional(),
  detalles: z.array(detalleBody).min(1).max(700),
  referencias: z.array(referenciaBody).max(40).optional(),
  indCobPropia: dgiInt('IndCobPropiaType').optional(),
  IndCobPropia: dgiInt('IndCobPropiaType').optional(),
  descuentosRecargos: z.array(z.object({
    tipoMovimiento: z.enum(['D', 'R']), tipo: z.union([z.literal(1), z.literal(2)]), glosa: z.string().max(50), valor: amount, indicadorFacturacion: int, codigo: int.optional(),
  })).max(20).optional().describe('DscRcgGlobal lines.'),
  mediosPago: z.array(z.object({ codigo: int.optional(), glosa: z.string().max(50), valor: amount })).max(40).optional(),
  complementoFiscal: z.object({ tipoDocMandante: int, pais: dgiText('CodPaisType', { required: true }), documentoMandante: z.string().max(20), nombreMandante: z.string().max(150) }).optional()
    .describe('Cuenta ajena (131-133, 141-143): the mandante (Compl_Fiscal_Data).'),
  adenda: z.string().max(10000).optional().describe('Free text; stored and printed, not part of the signed CFE (BRIEF 2.11).'),
});

const issueCfeObject = z.object({
  idEmpresa: int.positive(),
  codComercio: z.string().min(1).max(40),
  codTerminal: z.string().min(1).max(40),
  cfe: cfeBody,
});

/** Every string of the body follows the free-text policy (free-text.ts: CR → LF, controls refused). */
export const issueCfeBody = withFreeTextPolicy(issueCfeObject);

export type IssueCfeBody = z.infer<typeof issueCfeBody>;

/** Transcription of a paper contingency CFC (BRIEF 10): the emitir body plus the printed serie and number. */
export const contingencyBody = withFreeTextPolicy(issueCfeObject.extend({
  cfe: cfeBody.extend({
    idDoc: idDocBody.extend({
      tipoCfe: int.describe('Contingency type (2xx: 201 e-Ticket, 211 e-Factura, … = electronic code + 100).').meta({ example: 211 }),
      serie: z.string().regex(/^[A-Z]{1,2}$/, '1 o 2 letras mayúsculas').describe('Serie printed on the paper CFC.'),
      numero: int.positive().max(9_999_999).describe('Number printed on the paper CFC: must be in a registered CFC range (altaCfc) and not used before.'),
    }),
  }),
}));
export type ContingencyBody = z.infer<typeof contingencyBody>;
export type CfeBody = IssueCfeBody['cfe'];
export type DetalleBody = z.infer<typeof detalleBody>;

export const cfeIdParams = z.object({ id: z.coerce.number().int().positive() });
export const getByIdQuery = z.object({ idCfeEmitido: z.coerce.number().int().positive() });

export const signXmlBody = z.object({
  idEmpresa: int.positive(),
  xml: z.string().min(1).max(2_000_000).describe('A CFE XML (root CFE in http://cfe.dgi.gub.uy), unsigned.'),
});
