/**
 * The printed sworn declaration (issue 35 point 5): A4, the company as it was when it declared,
 * the regime and its grounds or investments, the declarant, the oath, the date it was made and the
 * date it was printed. A superseded declaration says so on top and across the page. Pure: the
 * project's pdfkit helpers (documents/pdf), no I/O besides the returned buffer.
 */
import { font, hr, para, stamp } from '../documents/pdf/draw.js';
import { loadStandardFonts } from '../documents/pdf/fonts.js';
import { endToBuffer, pdfkit } from '../documents/pdf/render.js';
import { formatFecha, formatFechaHora, formatMonto, formatNumber } from '../documents/pdf/format.js';
import type { DeclarationView } from './tax-benefit.service.js';

const REGIME_TITLE = {
  decreto_206_019: 'Decreto 206/019 — Crédito fiscal por servicios de facturación electrónica (hasta 80 UI mensuales)',
  decreto_324_011: 'Decreto 324/011 — Exoneración de IRAE por la inversión inicial en facturación electrónica',
} as const;
const GROUND_TEXT = {
  literal_e: 'Contribuyente comprendido en el literal E del artículo 52 del Título 4 (IVA mínimo).',
  ingresos_hasta_750000_ui: 'Ingresos del ejercicio anterior no superiores a 750.000 UI.',
  inicio_actividad: 'Contribuyente que inicia actividades.',
} as const;
const SOURCE_TEXT = { registro_dgi: 'registro de emisores electrónicos de DGI', empresa: 'resolución de habilitación registrada en la empresa', declarada: 'declarada' } as const;
const OATH = 'Declaro bajo juramento que los datos precedentes son verdaderos y que la empresa cumple las condiciones del régimen indicado, conforme a la normativa vigente. Esta declaración sustituye a cualquier otra anterior para el mismo ejercicio y régimen.';

/** Uruguay local date-time of an instant, dd/mm/yyyy hh:mm. */
const uyDateTime = (iso: string) => formatFechaHora(new Date(Date.parse(iso) - 3 * 3600_000).toISOString().slice(0, 16));

export async function renderDeclarationPdf(d: DeclarationView, printedAt: Date): Promise<Buffer> {
  const PDFDocument = await pdfkit();
  const doc = new PDFDocument({ size: 'A4', margin: 50, autoFirstPage: false, font: null as unknown as string, compress: true, info: { Title: `Declaración jurada ${d.id}`, Author: d.hechos.empresa.razonSocial, Subject: 'Beneficio fiscal' } });
  loadStandardFonts(doc);
  doc.addPage();
  const x = 50;
  const w = doc.page.width - 100;
  let y = 50;
  const text = (t: string, size = 10, bold = false, gap = 4) => {
    font(doc, size, bold);
    y += para(doc, t, x, y, w) + gap;
    if (y > doc.page.height - 80) {
      doc.addPage();
      y = 50;
    }
  };
  const section = (title: string) => {
    y += 6;
    text(title, 11, true, 2);
    hr(doc, x, x + w, y);
    y += 6;
  };
  const e = d.hechos.empresa;

  text('DECLARACIÓN JURADA — BENEFICIO FISCAL', 15, true, 2);
  text(REGIME_TITLE[d.regimen], 10, false, 2);
  text(`Declaración N° ${d.id} · Ejercicio fiscal ${d.anioFiscal} · Montevideo, ${uyDateTime(d.fechaDeclaracion).slice(0, 10)}`, 10, true);
  if (d.estado === 'reemplazada') text(`REEMPLAZADA por la declaración N° ${d.reemplazadaPor} el ${d.reemplazadaEn ? uyDateTime(d.reemplazadaEn) : ''}.`, 10, true);

  section('Empresa');
  text(`Razón social: ${e.razonSocial}`);
  text(`RUT: ${e.rut}`);
  text(`Domicilio fiscal: ${[e.domicilioFiscal, e.ciudad, e.departamento].filter(Boolean).join(', ') || '—'}`);
  if (d.fechaInicioEmisor) text(`Inicio como emisor electrónico: ${formatFecha(d.fechaInicioEmisor)} (${SOURCE_TEXT[d.fuenteFechaInicio ?? 'declarada']})`);

  section('Hechos declarados');
  if (d.regimen === 'decreto_206_019' && d.fundamento) {
    text(`Fundamento: ${GROUND_TEXT[d.fundamento]}`);
    const h = d.hechos;
    if (h.ingresosAnioAnterior) text(`Ingresos del ejercicio ${d.anioFiscal - 1}: ${formatMonto(h.ingresosAnioAnterior)} = ${formatNumber(h.ingresosAnioAnteriorUi ?? '0')} UI (UI al 31/12/${d.anioFiscal - 1}: ${h.valorUiCierre}).`);
    if (h.fechaInicioActividad) text(`Inicio de actividad: ${formatFecha(h.fechaInicioActividad)}`);
  } else {
    const h = d.hechos;
    text(`CEDE o gran contribuyente: ${h.grandeContribuyente ? 'sí' : 'no'}`);
    for (const inv of h.inversiones ?? []) text(`• ${formatFecha(inv.fecha)} · ${inv.tipo} · ${inv.descripcion} · ${formatMonto(inv.montoSinIva, inv.moneda)} sin IVA`);
    const ex = h.exoneracion;
    if (ex) {
      const sums = Object.entries(ex.invertido).map(([m, v]) => `${formatMonto(v, m)} (exonerable ${formatMonto(ex.exonerable[m], m)})`).join('; ');
      text(`Inversión total: ${sums}. Exoneración: ${ex.porcentaje} % en ${ex.ejercicios} ejercicios${ex.topeImpuestoPorcentaje ? `, hasta el ${ex.topeImpuestoPorcentaje} % del impuesto` : ''}.`);
    }
  }

  section('Declarante');
  text(`${d.declarante.nombre} · Documento ${d.declarante.documento} · ${d.declarante.cargo}`);
  y += 4;
  text(OATH, 10);
  y += 30;
  hr(doc, x, x + 220, y);
  y += 4;
  text('Firma del declarante', 9);

  font(doc, 8, false, '#555555');
  doc.text(`Impreso el ${uyDateTime(printedAt.toISOString())} (hora de Uruguay).`, x, doc.page.height - 60, { width: w, lineBreak: false });
  if (d.estado === 'reemplazada') stamp(doc, 'REEMPLAZADA', doc.page.width / 2, doc.page.height / 2, 60, -30);
  return endToBuffer(doc);
}
