/** GET /api/v1/empresa/exportarExcel: a real .xlsx, streamed row by row (exceljs WorkbookWriter). */
import { PassThrough } from 'node:stream';
import type { CompanyRow } from './companies.repository.js';

const columns: Array<{ header: string; key: string; width: number; value: (c: CompanyRow) => string | number | boolean | null }> = [
  { header: 'Id', key: 'id', width: 8, value: (c) => c.id },
  { header: 'RUT', key: 'rut', width: 14, value: (c) => c.rut },
  { header: 'Razón social', key: 'razonSocial', width: 36, value: (c) => c.razonSocial },
  { header: 'Nombre comercial', key: 'nombreComercial', width: 28, value: (c) => c.nombreComercial },
  { header: 'Domicilio fiscal', key: 'domicilioFiscal', width: 36, value: (c) => c.domicilioFiscal },
  { header: 'Ciudad', key: 'ciudad', width: 18, value: (c) => c.ciudad },
  { header: 'Departamento', key: 'departamento', width: 18, value: (c) => c.departamento },
  { header: 'Teléfono', key: 'telefono', width: 16, value: (c) => c.telefono },
  { header: 'E-mail', key: 'email', width: 28, value: (c) => c.email },
  { header: 'Actividad', key: 'actividad', width: 28, value: (c) => c.actividad },
  { header: 'Habilitada', key: 'habilitada', width: 11, value: (c) => (c.enabled ? 'Sí' : 'No') },
  { header: 'Ambiente DGI', key: 'ambienteDgi', width: 14, value: (c) => c.ambienteDgi },
  { header: 'Régimen', key: 'regimenTributario', width: 16, value: (c) => c.regimenTributario },
];

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Returns the stream at once and fills it in the background; a failure mid-way destroys the stream. */
export function streamCompaniesXlsx(batches: AsyncIterable<CompanyRow[]>, onError: (err: unknown) => void): PassThrough {
  const out = new PassThrough();
  (async () => {
    // Loaded on first use (see ARCHITECTURE, memory): exceljs is ~7 MB of heap an idle `npm start` does not need.
    const { default: ExcelJS } = await import('exceljs');
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true });
    const sheet = workbook.addWorksheet('Empresas');
    sheet.columns = columns.map(({ header, key, width }) => ({ header, key, width }));
    sheet.getRow(1).font = { bold: true };
    sheet.getRow(1).commit();
    for await (const batch of batches) {
      for (const c of batch) sheet.addRow(columns.map((col) => col.value(c))).commit();
    }
    sheet.commit();
    await workbook.commit();
  })().catch((err) => {
    onError(err);
    out.destroy(err as Error);
  });
  return out;
}
