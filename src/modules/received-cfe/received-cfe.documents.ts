/**
 * Printed representation of a received CFE (issue 31 point 2): drawn from the signed XML as received,
 * with the same pure renderer as issued CFEs (cfe-documents.render.ts), so it shows the issuer's data,
 * QR and security code (first 6 characters of the issuer's DigestValue, BRIEF 4) as the issuer's own
 * printed copy would. No logo, resolution or verification site: those are the issuer's settings,
 * which we do not have (the QR and legends fall back to DGI's defaults).
 */
import type { PdfFormato } from '../documents/pdf/index.js';
import { renderIssuedCfe } from '../cfe-documents/cfe-documents.render.js';
import type { ReceivedCfeRow } from './received-cfe.tables.js';

/** Only a CFE that was read at intake can be drawn; a format-rejected one may not even be a CFE. */
export function isPrintable(row: Pick<ReceivedCfeRow, 'datos' | 'tipoCfe' | 'estado'>): boolean {
  return row.datos !== null && row.tipoCfe !== null && row.estado !== 'rechazado_formato';
}

export function renderReceivedCfe(row: Pick<ReceivedCfeRow, 'xml' | 'adenda'>, formato: PdfFormato): Promise<Buffer> {
  return renderIssuedCfe({ xml: row.xml, adenda: row.adenda }, undefined, formato);
}

export function receivedPdfName(row: Pick<ReceivedCfeRow, 'id' | 'rutEmisor' | 'tipoCfe' | 'serie' | 'numero'>): string {
  return `CFE_${row.rutEmisor ?? 'desconocido'}_${row.tipoCfe ?? 0}_${row.serie ?? ''}${row.numero ?? row.id}.pdf`;
}
