/**
 * The column catalogue of exportarExcel (issue 7 point 4): stable keys a user's export
 * configuration stores (cfe_export_configs), the Spanish header, the cell type and the value of a
 * search row. Money stays a decimal string until documents/xlsx.ts writes the cell.
 */
import type { XlsxColumn } from '../documents/xlsx.js';
import { getCfeType } from '../emission/index.js';
import type { IssuedCfeSummary } from './issued-cfe.search.js';

type Row = IssuedCfeSummary;

const typeName = (code: number) => {
  try {
    return getCfeType(code).name;
  } catch {
    return String(code);
  }
};
const total = (r: Row, k: string) => (r.totales?.[k] as string | undefined) ?? null;

export const EXPORT_COLUMNS = {
  id: { header: 'Id', type: 'integer', value: (r) => r.id },
  fechaEmision: { header: 'Fecha emisión', type: 'date', value: (r) => r.fechaEmision },
  fechaFirma: { header: 'Fecha firma', type: 'text', width: 26, value: (r) => r.tmstFirma },
  tipoCfe: { header: 'Tipo CFE', type: 'integer', width: 10, value: (r) => r.tipoCfe },
  nombreTipoCfe: { header: 'Tipo', type: 'text', width: 34, value: (r) => typeName(r.tipoCfe) },
  serie: { header: 'Serie', type: 'text', width: 7, value: (r) => r.serie },
  numero: { header: 'Número', type: 'integer', width: 10, value: (r) => r.numero },
  idSucursal: { header: 'Sucursal', type: 'integer', width: 10, value: (r) => r.branchId },
  idPuntoEmision: { header: 'Punto de emisión', type: 'integer', width: 10, value: (r) => r.emissionPointId },
  receptorTipoDocumento: { header: 'Tipo doc. receptor', type: 'integer', width: 10, value: (r) => r.receptorTipoDoc },
  receptorDocumento: { header: 'Documento receptor', type: 'text', value: (r) => r.receptorDocumento },
  receptorNombre: { header: 'Receptor', type: 'text', width: 36, value: (r) => r.receptorNombre },
  moneda: { header: 'Moneda', type: 'text', width: 8, value: (r) => r.moneda },
  tipoCambio: { header: 'Tipo de cambio', type: 'number', width: 12, value: (r) => r.tipoCambio },
  mntNoGrv: { header: 'No gravado', type: 'money', value: (r) => r.mntNoGrv },
  mntNetoIvaTasaMin: { header: 'Neto IVA tasa mínima', type: 'money', value: (r) => r.mntNetoIvaTasaMin },
  mntNetoIvaTasaBasica: { header: 'Neto IVA tasa básica', type: 'money', value: (r) => r.mntNetoIvaTasaBasica },
  mntIvaTasaMin: { header: 'IVA tasa mínima', type: 'money', value: (r) => r.mntIvaTasaMin },
  mntIvaTasaBasica: { header: 'IVA tasa básica', type: 'money', value: (r) => r.mntIvaTasaBasica },
  mntExpoyAsim: { header: 'Exportación y asimiladas', type: 'money', value: (r) => total(r, 'MntExpoyAsim') },
  mntTotRetenido: { header: 'Total retenido', type: 'money', value: (r) => total(r, 'MntTotRetenido') },
  mntTotal: { header: 'Total', type: 'money', value: (r) => r.mntTotal },
  mntPagar: { header: 'Monto a pagar', type: 'money', value: (r) => r.mntPagar },
  estado: { header: 'Estado DGI', type: 'text', width: 16, value: (r) => r.estado },
  estadoReceptor: { header: 'Estado receptor', type: 'text', width: 18, value: (r) => r.estadoReceptor },
  codigoSeguridad: { header: 'Código de seguridad', type: 'text', width: 10, value: (r) => r.codigoSeguridad },
  adenda: { header: 'Adenda', type: 'text', width: 40, value: (r) => r.adenda },
} satisfies Record<string, XlsxColumn<Row>>;

export type ExportColumnKey = keyof typeof EXPORT_COLUMNS;
export const EXPORT_COLUMN_KEYS = Object.keys(EXPORT_COLUMNS) as ExportColumnKey[];

/** Used when the user saved no configuration. */
export const DEFAULT_EXPORT_COLUMNS: ExportColumnKey[] = [
  'fechaEmision', 'nombreTipoCfe', 'serie', 'numero', 'receptorDocumento', 'receptorNombre', 'moneda', 'tipoCambio',
  'mntNetoIvaTasaMin', 'mntNetoIvaTasaBasica', 'mntIvaTasaMin', 'mntIvaTasaBasica', 'mntNoGrv', 'mntTotal', 'estado',
];

/** Columns that need the stored DGI Totales JSON (read only when chosen). */
export const NEEDS_TOTALES: ReadonlySet<ExportColumnKey> = new Set(['mntExpoyAsim', 'mntTotRetenido']);

export function xlsxColumns(keys: readonly ExportColumnKey[]): XlsxColumn<Row>[] {
  return keys.map((k) => EXPORT_COLUMNS[k] as XlsxColumn<Row>);
}

/** The catalogue as published by getConfiguracionExportacionCfe and the OpenAPI description. */
export const columnCatalogue = () => EXPORT_COLUMN_KEYS.map((clave) => ({ clave, titulo: EXPORT_COLUMNS[clave].header, tipo: EXPORT_COLUMNS[clave].type }));
