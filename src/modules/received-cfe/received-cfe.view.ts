/**
 * The received CFE as the API shows it (Spanish names, like the spec), and the fiscal data read
 * from its signed XML at intake (readSignedCfe: the same reader the printed representation uses).
 */
import { readSignedCfe } from '../cfe-documents/signed-cfe-reader.js';
import type { Cfe } from '../emission/index.js';
import { stockView } from './received-cfe.stock.js';
import type { ReceivedAnswerRow, ReceivedCfeRow, ReceivedEnvelopeRow } from './received-cfe.tables.js';

export interface FiscalData {
  rutEmisor: string | null;
  razonSocialEmisor: string | null;
  tipoCfe: number | null;
  serie: string | null;
  numero: number | null;
  fechaEmision: string | null;
  tmstFirma: string | null;
  moneda: string | null;
  tipoCambio: string | null;
  mntTotal: string | null;
  mntPagar: string | null;
  datos: Record<string, unknown> | null;
}

const str = (v: unknown) => (v === undefined || v === null ? null : String(v));
/** The index columns only take values their SQL types hold: a malformed CFE (stored, format-rejected) must not fail the insert. */
const amount = (v: unknown) => (/^-?\d{1,15}(\.\d{1,2})?$/.test(String(v ?? '')) ? String(v) : null);
const rate = (v: unknown) => (/^\d{1,7}(\.\d{1,3})?$/.test(String(v ?? '')) ? String(v) : null);
const int = (v: unknown, max: number) => (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= max ? (v as number) : null);
const isoDate = (v: unknown) => (/^\d{4}-\d{2}-\d{2}$/.test(String(v)) && !Number.isNaN(Date.parse(`${String(v)}T00:00:00Z`)) && new Date(`${String(v)}T00:00:00Z`).toISOString().startsWith(String(v)) ? String(v) : null);
const text = (v: unknown, max: number) => (v === undefined || v === null ? null : String(v).slice(0, max));

/** Reads what the index columns and `datos` keep; undefined when the XML is not a readable CFE. */
export function fiscalDataOf(xml: string): FiscalData | undefined {
  let cfe: Cfe;
  try {
    cfe = readSignedCfe(xml);
  } catch {
    return undefined;
  }
  const id = cfe.IdDoc ?? ({} as Cfe['IdDoc']);
  const tot = cfe.Totales ?? ({} as Cfe['Totales']);
  return {
    rutEmisor: /^\d{12}$/.test(String(cfe.Emisor?.RUCEmisor)) ? String(cfe.Emisor.RUCEmisor) : null,
    razonSocialEmisor: text(cfe.Emisor?.RznSoc, 150),
    tipoCfe: int(id.TipoCFE, 999),
    serie: text(id.Serie, 2),
    numero: int(id.Nro, 9_999_999),
    fechaEmision: isoDate(id.FchEmis),
    tmstFirma: text(cfe.TmstFirma, 40),
    moneda: text(tot.TpoMoneda ?? 'UYU', 3),
    tipoCambio: rate(tot.TpoCambio),
    mntTotal: amount(tot.MntTotal),
    mntPagar: amount(tot.MntPagar),
    datos: {
      idDoc: id,
      emisor: cfe.Emisor ?? null,
      receptor: cfe.Receptor ?? null,
      totales: tot,
      detalle: cfe.Detalle ?? [],
      referencias: cfe.Referencia ?? [],
      caeData: cfe.CAEData ?? null,
    },
  };
}

export function receivedCfeView(row: ReceivedCfeRow, envelope?: ReceivedEnvelopeRow) {
  return {
    id: row.id,
    idEmpresa: row.companyId,
    secuencia: row.secuencia,
    canal: row.canal,
    sobre: envelope
      ? { id: envelope.id, rutEmisor: envelope.rutEmisor, idEmisor: envelope.idemisor, fecha: envelope.fecha, cantidadCfe: envelope.cantCfe, estado: envelope.estado, sinSobre: envelope.sinSobre, nroOrdinal: row.nroOrdinal, verificaciones: envelope.verificaciones }
      : null,
    rutEmisor: row.rutEmisor,
    razonSocialEmisor: row.razonSocialEmisor,
    tipoCfe: row.tipoCfe,
    serie: row.serie,
    numero: row.numero,
    fechaEmision: row.fechaEmision,
    tmstFirma: row.tmstFirma,
    moneda: row.moneda,
    tipoCambio: row.tipoCambio,
    mntTotal: row.mntTotal,
    mntPagar: row.mntPagar,
    datos: row.datos,
    adenda: row.adenda,
    verificaciones: row.verificaciones,
    estado: row.estado,
    motivos: row.motivos,
    vencimientoRespuesta: row.vencimientoRespuesta,
    decididoEn: row.decididoEn?.toISOString() ?? null,
    idRespuesta: row.respuestaId,
    recibidoEn: row.recibidoEn.toISOString(),
    importadoStock: stockView(row),
  };
}

export type ReceivedCfeView = ReturnType<typeof receivedCfeView>;

/** One of our answers as the API lists it, with its download path (issue 42 point 3). */
export function answerRefView(a: ReceivedAnswerRow) {
  return {
    id: a.id, tipo: a.tipo, archivo: a.fileName, estado: a.estado, email: a.email, enviadoEn: a.enviadoEn?.toISOString() ?? null,
    transporte: a.transporte, ultimoError: a.ultimoError, enlace: `/api/v1/cferecibido/respuesta/${a.id}`,
  };
}
