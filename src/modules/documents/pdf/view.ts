/**
 * Presentation model of a CFE's printed representation (BRIEF 4; FCFE "Representación impresa"):
 * every label and formatted value the layouts draw, decided here once so that the A4 and ticket
 * layouts only place text. Pure: no pdfkit.
 */
import { buildQrUrl, getCfeType, securityCode, type Cfe, type Item } from '../../emission/index.ts';
import { formatCantidad, formatFecha, formatFechaHora, formatMonto, formatNumber, formatPrecio, formatTasa } from './format.ts';

export type PdfFormato = 'A4' | 'ticket80';

/** Stamped diagonally across every page, and once horizontally at the top, in preview mode. */
export const PREVIEW_TEXT = 'VISTA PREVIA - SIN VALIDEZ FISCAL';

/** What the renderer needs besides the CFE: signature data and presentation extras. */
export interface CfePdfInput {
  /** The complete (totals computed) CFE model, as signed. */
  cfe: Cfe;
  /** Base64 DigestValue of the signature Reference; the security code is its first 6 characters. Optional only in preview. */
  digestValue?: string;
  /** QR content; defaults to buildQrUrl(cfe, digestValue). */
  qrUrl?: string;
  /** Issuer logo, PNG or JPEG bytes; an undecodable one is left out (CfePdfOptions.onLogoSkipped). */
  logo?: Buffer;
  /** Website where the issuer publishes its e-Tickets (legend on e-Tickets, BRIEF 4). */
  sitioWebVerificacion?: string;
  /** The issuer's public page where buyers get this receipt (issue 47): printed as a legend. */
  urlConsulta?: string;
  /** DGI resolution authorising the issuer: printed "Res. numero/año". */
  resolucion?: { numero: string; fecha: string };
  /** Adenda: free commercial text, not signed (BRIEF 2.11). */
  adenda?: string;
  /** Stamps "VISTA PREVIA - SIN VALIDEZ FISCAL" across every page. */
  preview?: boolean;
}

export interface CfePdfOptions {
  formato: PdfFormato;
  /** Called when `logo` cannot be decoded and is left out (the document still renders); default: a process warning. */
  onLogoSkipped?: (problem: string) => void;
}

export interface ViewLine {
  codigo: string;
  nombre: string;
  descripcion?: string;
  cantidad: string;
  unidad: string;
  precio: string;
  descRec: string;
  indicador: string;
  importe: string;
}

export interface ViewTotal {
  label: string;
  value: string;
  strong?: boolean;
}

export interface CfeView {
  title: string;
  emisor: { nombre: string; comercial?: string; lines: string[]; ruc: string };
  tipoNombre: string;
  serieNumero: string;
  formaPago?: string;
  fecha: string;
  /** Payment due date (IdDoc FchVenc, credit sales), dd/mm/yyyy; never the CAE's expiry. */
  vencimiento?: string;
  /** Export terms (ClauVenta, ModVenta, ViaTransp) in words, export CFEs only. */
  exportacion?: string;
  /** Signing timestamp (TmstFirma), dd/mm/yyyy hh:mm. */
  firma: string;
  moneda: string;
  receptor: { label: string; documento?: string; lines: string[] };
  referencias: string[];
  lines: ViewLine[];
  ajustes: ViewTotal[];
  totals: ViewTotal[];
  mediosPago: ViewTotal[];
  showIva: boolean;
  securityCode: string;
  qrUrl?: string;
  cae: { numero: string; rango: string; vencimiento: string; especial?: string };
  legends: string[];
  adenda?: string;
  preview: boolean;
}

const DOC_TYPES: Readonly<Record<number, string>> = { 1: 'NIE', 2: 'RUC', 3: 'C.I.', 4: 'DOC.', 5: 'PASAPORTE', 6: 'DNI', 7: 'NIFE' };

const IND_FACT_SHORT: Readonly<Record<number, string>> = {
  1: 'Exento',
  2: 'Mín.',
  3: 'Básica',
  4: 'Otra',
  5: 'Gratuito',
  6: 'No fact.',
  7: 'No fact.',
  10: 'Export.',
  11: 'Percib.',
  12: 'Susp.',
  13: '',
  14: '',
  15: '',
  16: '',
  17: '',
};

/** ModVenta and ViaTransp codes (BRIEF 2.1, XSD). */
const MOD_VENTA: Readonly<Record<number, string>> = {
  1: 'Régimen general', 2: 'Consignación', 3: 'Precio revisable', 4: 'Bienes propios a exclaves aduaneros', 80: 'Tax Free', 90: 'Exportación de servicios', 91: 'Exportación mandante', 99: 'Otras',
};
const VIA_TRANSP: Readonly<Record<number, string>> = { 1: 'Marítimo', 2: 'Aéreo', 3: 'Terrestre', 8: 'N/A', 9: 'Otro' };

// Only "Exonerado" is printed: naming the IVA-mínimo regime would mention IVA (BRIEF 4).
const CAE_ESPECIAL: Readonly<Record<number, string>> = { 1: 'Exonerado' };

/** IVA-mínimo / Monotributo issuers must not mention IVA (BRIEF 4; FCFE A-C10). */
export function mentionsIva(cfe: Cfe): boolean {
  const esp = cfe.CAEData.CAEEspecial;
  return !(cfe.IdDoc.MntBruto === 3 || esp === 2 || esp === 3 || esp === 4);
}

function isZero(v: string | undefined): boolean {
  return v === undefined || Number(v) === 0;
}

function receptorView(cfe: Cfe): CfeView['receptor'] {
  const info = getCfeType(cfe.IdDoc.TipoCFE);
  const r = cfe.Receptor;
  const doc = r?.DocRecep ?? r?.DocRecepExt;
  const role =
    info.branch === 'eBoleta' ? 'VENDEDOR' : info.branch === 'eRem' || info.branch === 'eRem_Exp' ? 'DESTINATARIO' : info.branch === 'eResg' ? 'RETENIDO' : 'COMPRADOR';
  if (!r || (!doc && !r.RznSocRecep)) return { label: 'CONSUMO FINAL', lines: [] };
  const label = doc ? `${DOC_TYPES[r.TipoDocRecep ?? 4] ?? 'DOC.'} ${role}` : info.branch === 'eTck' ? 'CONSUMO FINAL' : role;
  const place = [r.CiudadRecep, r.DeptoRecep, r.PaisRecep ?? (r.CodPaisRecep && r.CodPaisRecep !== 'UY' ? r.CodPaisRecep : undefined)]
    .filter(Boolean)
    .join(' - ');
  const lines = [r.RznSocRecep, r.DirRecep, place, r.CP ? `C.P. ${r.CP}` : undefined, r.LugarDestEnt ? `Destino: ${r.LugarDestEnt}` : undefined, r.CompraID ? `Orden de compra: ${r.CompraID}` : undefined].filter(
    (s): s is string => Boolean(s),
  );
  return { label, documento: doc, lines };
}

function lineView(item: Item, currencyFmt: (v: string) => string): ViewLine {
  const negative = item.IndFact === 7;
  const importe = item.MontoItem ?? '0';
  const descRec = [
    item.DescuentoMonto && !isZero(item.DescuentoMonto) ? `-${formatPrecio(item.DescuentoMonto)}` : '',
    item.RecargoMnt && !isZero(item.RecargoMnt) ? `+${formatPrecio(item.RecargoMnt)}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const retenciones = (item.RetencPercep ?? []).map((r) => `Ret./Perc. ${r.CodRet}: ${currencyFmt(r.ValRetPerc)}`).join('; ');
  return {
    codigo: item.CodItem?.[0]?.Cod ?? '',
    nombre: item.NomItem ?? (retenciones ? 'Retención/Percepción' : ''),
    descripcion: [item.DscItem, retenciones].filter(Boolean).join(' - ') || undefined,
    cantidad: item.Cantidad !== undefined ? formatCantidad(item.Cantidad) : '',
    unidad: item.UniMed && item.UniMed !== 'N/A' ? item.UniMed : '',
    precio: item.PrecioUnitario !== undefined ? formatPrecio(item.PrecioUnitario) : '',
    descRec,
    indicador: item.IndFact !== undefined ? (IND_FACT_SHORT[item.IndFact] ?? '') : '',
    importe: item.MontoItem !== undefined ? currencyFmt(negative && !importe.startsWith('-') ? `-${importe}` : importe) : '',
  };
}

function totalsView(cfe: Cfe, fmt: (v: string) => string, showIva: boolean): ViewTotal[] {
  // MntPagar of a credit note is what the buyer is credited, not what anyone pays.
  const payLabel = getCfeType(cfe.IdDoc.TipoCFE).note === 'NC' ? 'TOTAL A ACREDITAR' : 'TOTAL A PAGAR';
  const t = cfe.Totales;
  const out: ViewTotal[] = [];
  const add = (label: string, value: string | undefined, strong = false) => {
    if (!isZero(value)) out.push({ label, value: fmt(value as string), strong });
  };
  const min = t.IVATasaMin ? ` (${formatTasa(t.IVATasaMin)})` : '';
  const bas = t.IVATasaBasica ? ` (${formatTasa(t.IVATasaBasica)})` : '';
  if (showIva) {
    add('No gravado', t.MntNoGrv);
    add('Exportación y asimiladas', t.MntExpoyAsim);
    add('Impuesto percibido', t.MntImpuestoPerc);
    add('IVA en suspenso', t.MntIVaenSusp);
    add(`Neto IVA tasa mínima${min}`, t.MntNetoIvaTasaMin);
    add(`Neto IVA tasa básica${bas}`, t.MntNetoIVATasaBasica);
    add('Neto IVA otra tasa', t.MntNetoIVAOtra);
    add(`IVA tasa mínima${min}`, t.MntIVATasaMin);
    add(`IVA tasa básica${bas}`, t.MntIVATasaBasica);
    add('IVA otra tasa', t.MntIVAOtra);
  } else {
    add('Subtotal', t.MntNoGrv);
    add('Exportación y asimiladas', t.MntExpoyAsim);
  }
  if (t.MntTotal !== undefined) out.push({ label: 'Total', value: fmt(t.MntTotal), strong: true });
  for (const r of t.RetencPercep ?? []) add(`Retención/Percepción ${r.CodRet}`, r.ValRetPerc);
  add('Total retenido/percibido', t.MntTotRetenido);
  add('Crédito fiscal', t.MntTotCredFisc);
  add('Monto no facturable', t.MontoNF);
  if (t.MntPagar !== undefined) out.push({ label: payLabel, value: fmt(t.MntPagar), strong: true });
  return out;
}

function referenciaText(ref: NonNullable<Cfe['Referencia']>[number]): string {
  if (ref.IndGlobal === 1) return `Referencia global: ${ref.RazonRef ?? ''}`;
  const tipo = ref.TpoDocRef !== undefined ? (safeTypeName(ref.TpoDocRef) ?? `Tipo ${ref.TpoDocRef}`) : '';
  const parts = [`${tipo} ${ref.Serie ?? ''}-${ref.NroCFERef ?? ''}`.trim()];
  if (ref.FechaCFEref) parts.push(`del ${formatFecha(ref.FechaCFEref)}`);
  // Formato v25: the referenced amount in the referenced receipt's currency (and its rate).
  if (ref.MntCFEref !== undefined) parts.push(`por ${formatMonto(ref.MntCFEref, ref.TpoMonedaRef ?? 'UYU')}${ref.TpoCambioRef !== undefined ? ` (T/C ${ref.TpoCambioRef})` : ''}`);
  if (ref.RazonRef) parts.push(`- ${ref.RazonRef}`);
  return `Ref.: ${parts.join(' ')}`;
}

function exportTerms(idDoc: Cfe['IdDoc']): string | undefined {
  const parts = [
    idDoc.ClauVenta ? `Cláusula de venta: ${idDoc.ClauVenta}` : undefined,
    idDoc.ModVenta !== undefined ? `Modalidad: ${MOD_VENTA[idDoc.ModVenta] ?? idDoc.ModVenta}` : undefined,
    idDoc.ViaTransp !== undefined ? `Vía de transporte: ${VIA_TRANSP[idDoc.ViaTransp] ?? idDoc.ViaTransp}` : undefined,
  ].filter(Boolean);
  return parts.length ? parts.join(' - ') : undefined;
}

function safeTypeName(code: number): string | undefined {
  try {
    return getCfeType(code).name;
  } catch {
    return undefined;
  }
}

/** Builds the presentation model; throws when a signed CFE lacks its DigestValue (only a preview may). */
export function buildCfeView(input: CfePdfInput): CfeView {
  const { cfe } = input;
  const info = getCfeType(cfe.IdDoc.TipoCFE);
  const moneda = cfe.Totales.TpoMoneda ?? 'UYU';
  const fmt = (v: string) => formatMonto(v, moneda);
  const showIva = mentionsIva(cfe);
  const preview = input.preview === true;
  if (!input.digestValue && !preview) throw new Error('renderCfePdf: digestValue is required unless preview is set');
  const e = cfe.Emisor;
  const emisorLines = [
    e.DomFiscal,
    `${e.Ciudad} - ${e.Departamento}`,
    e.Telefono?.length ? `Tel.: ${e.Telefono.join(' / ')}` : undefined,
    e.CorreoEmisor,
    e.EmiSucursal ? `Sucursal: ${e.EmiSucursal}` : undefined,
    e.GiroEmis,
  ].filter((s): s is string => Boolean(s));
  const legends: string[] = [];
  if (info.branch === 'eTck' && input.sitioWebVerificacion && input.sitioWebVerificacion === input.urlConsulta) {
    legends.push(`Puede verificar y obtener este comprobante (PDF y XML) en ${input.urlConsulta}`);
  } else {
    if (info.branch === 'eTck' && input.sitioWebVerificacion) legends.push(`Puede verificar comprobante en ${input.sitioWebVerificacion}`);
    else legends.push('Puede verificar comprobante en www.dgi.gub.uy');
    if (input.urlConsulta) legends.push(`Obtenga este comprobante (PDF y XML) en ${input.urlConsulta}`);
  }
  if (input.resolucion) legends.push(`Res. ${input.resolucion.numero}/${input.resolucion.fecha.slice(0, 4)}`);
  if (showIva && cfe.IdDoc.IVAalDia === undefined) legends.push('IVA al día');
  const t = cfe.Totales;
  const monedaText = t.TpoCambio ? `Moneda: ${moneda} - T.C. ${formatNumber(t.TpoCambio, 0, 3)}` : `Moneda: ${moneda}`;
  const fmaPago = cfe.IdDoc.FmaPago === 1 ? 'Contado' : cfe.IdDoc.FmaPago === 2 ? 'Crédito' : undefined;
  const serieNumero = preview && !cfe.IdDoc.Nro ? '(sin asignar)-(sin asignar)' : `${cfe.IdDoc.Serie}-${String(cfe.IdDoc.Nro).padStart(7, '0')}`;
  return {
    title: `${info.name} ${serieNumero}`,
    emisor: { nombre: e.RznSoc, comercial: e.NomComercial, lines: emisorLines, ruc: e.RUCEmisor },
    tipoNombre: info.name,
    serieNumero,
    formaPago: fmaPago,
    fecha: formatFecha(cfe.IdDoc.FchEmis),
    vencimiento: cfe.IdDoc.FchVenc ? formatFecha(cfe.IdDoc.FchVenc) : undefined,
    exportacion: exportTerms(cfe.IdDoc),
    firma: formatFechaHora(cfe.TmstFirma),
    moneda: monedaText,
    receptor: receptorView(cfe),
    referencias: (cfe.Referencia ?? []).map(referenciaText),
    lines: cfe.Detalle.map((i) => lineView(i, fmt)),
    ajustes: (cfe.DscRcgGlobal ?? []).map((d) => ({
      label: `${d.TpoMovDR === 'D' ? 'Descuento' : 'Recargo'}: ${d.GlosaDR}`,
      value: d.TpoDR === 2 ? `${d.TpoMovDR === 'D' ? '-' : ''}${formatTasa(d.ValorDR)}` : fmt(d.TpoMovDR === 'D' ? `-${d.ValorDR}` : d.ValorDR),
    })),
    totals: totalsView(cfe, fmt, showIva),
    mediosPago: (cfe.MediosPago ?? []).filter((m) => !isZero(m.ValorPago)).map((m) => ({ label: m.GlosaMP, value: fmt(m.ValorPago) })),
    showIva,
    securityCode: input.digestValue ? securityCode(input.digestValue) : '------',
    qrUrl: input.digestValue
      ? (input.qrUrl ??
        buildQrUrl({ RUCEmisor: e.RUCEmisor, TipoCFE: cfe.IdDoc.TipoCFE, Serie: cfe.IdDoc.Serie, Nro: cfe.IdDoc.Nro, Totales: t, TmstFirma: cfe.TmstFirma, digestValue: input.digestValue }))
      : input.qrUrl,
    // A preview has no number and no CAE yet (nothing is reserved): say so instead of placeholders.
    cae: preview && !input.digestValue ? { numero: 'a asignar al emitir', rango: 'Serie y rango a asignar al emitir', vencimiento: '--/--/----' } : {
      numero: cfe.CAEData.CAE_ID,
      rango: `Serie ${cfe.IdDoc.Serie} del ${cfe.CAEData.DNro} al ${cfe.CAEData.HNro}`,
      vencimiento: formatFecha(cfe.CAEData.FecVenc),
      especial: cfe.CAEData.CAEEspecial ? CAE_ESPECIAL[cfe.CAEData.CAEEspecial] : undefined,
    },
    legends,
    adenda: input.adenda?.trim() || undefined,
    preview,
  };
}

