/**
 * The column catalogue of POST /api/v1/cferecibido/exportarExcel (issue 31 point 3): stable keys a
 * user's export configuration stores (received_cfe_export_configs), the Spanish header, the cell
 * type and the value of a search row. Same mechanism as the issued CFEs' catalogue
 * (issued-cfe.export-columns.ts); money stays a decimal string until documents/xlsx.ts writes it.
 */
import type { XlsxColumn } from '../documents/xlsx.js';
import { getCfeType } from '../emission/index.js';
import type { ReceivedCfeSummary } from './received-cfe.search.js';

type Row = ReceivedCfeSummary;

const typeName = (code: number | null) => {
  if (code === null) return null;
  try {
    return getCfeType(code).name;
  } catch {
    return String(code);
  }
};

export const RECEIVED_EXPORT_COLUMNS = {
  id: { header: 'Id', type: 'integer', value: (r) => r.id },
  secuencia: { header: 'Secuencia', type: 'integer', width: 10, value: (r) => r.secuencia },
  canal: { header: 'Canal', type: 'text', width: 12, value: (r) => r.canal },
  fechaEmision: { header: 'Fecha comprobante', type: 'date', value: (r) => r.fechaEmision },
  recibidoEn: { header: 'Recibido', type: 'text', width: 26, value: (r) => r.recibidoEn },
  rutEmisor: { header: 'RUT emisor', type: 'text', width: 14, value: (r) => r.rutEmisor },
  razonSocialEmisor: { header: 'Emisor', type: 'text', width: 36, value: (r) => r.razonSocialEmisor },
  tipoCfe: { header: 'Tipo CFE', type: 'integer', width: 10, value: (r) => r.tipoCfe },
  nombreTipoCfe: { header: 'Tipo', type: 'text', width: 34, value: (r) => typeName(r.tipoCfe) },
  serie: { header: 'Serie', type: 'text', width: 7, value: (r) => r.serie },
  numero: { header: 'Número', type: 'integer', width: 10, value: (r) => r.numero },
  moneda: { header: 'Moneda', type: 'text', width: 8, value: (r) => r.moneda },
  tipoCambio: { header: 'Tipo de cambio', type: 'number', width: 12, value: (r) => r.tipoCambio },
  mntTotal: { header: 'Total', type: 'money', value: (r) => r.mntTotal },
  mntPagar: { header: 'Monto a pagar', type: 'money', value: (r) => r.mntPagar },
  estado: { header: 'Estado', type: 'text', width: 18, value: (r) => r.estado },
  motivos: { header: 'Motivos', type: 'text', width: 30, value: (r) => r.motivos.map((m) => `${m.codigo} ${m.glosa}`).join('; ') || null },
  vencimientoRespuesta: { header: 'Vencimiento respuesta', type: 'date', value: (r) => r.vencimientoRespuesta },
  decididoEn: { header: 'Decidido', type: 'text', width: 26, value: (r) => r.decididoEn },
  stockReferencia: { header: 'Referencia stock', type: 'text', width: 20, value: (r) => r.importadoStock?.referencia ?? null },
  stockFecha: { header: 'Importado a stock', type: 'text', width: 26, value: (r) => r.importadoStock?.fecha ?? null },
} satisfies Record<string, XlsxColumn<Row>>;

export type ReceivedExportColumnKey = keyof typeof RECEIVED_EXPORT_COLUMNS;
export const RECEIVED_EXPORT_COLUMN_KEYS = Object.keys(RECEIVED_EXPORT_COLUMNS) as ReceivedExportColumnKey[];

/** Used when the user saved no configuration: what a payables clerk hands the accountant. */
export const DEFAULT_RECEIVED_EXPORT_COLUMNS: ReceivedExportColumnKey[] = [
  'fechaEmision', 'rutEmisor', 'razonSocialEmisor', 'nombreTipoCfe', 'serie', 'numero', 'moneda', 'tipoCambio', 'mntTotal', 'mntPagar', 'estado', 'vencimientoRespuesta',
];

export function receivedXlsxColumns(keys: readonly ReceivedExportColumnKey[]): XlsxColumn<Row>[] {
  return keys.map((k) => RECEIVED_EXPORT_COLUMNS[k] as XlsxColumn<Row>);
}

export const receivedColumnCatalogue = () =>
  RECEIVED_EXPORT_COLUMN_KEYS.map((clave) => ({ clave, titulo: RECEIVED_EXPORT_COLUMNS[clave].header, tipo: RECEIVED_EXPORT_COLUMNS[clave].type }));
