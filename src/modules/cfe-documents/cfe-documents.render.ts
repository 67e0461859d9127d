/**
 * Stored issued CFE → printed representation (BRIEF 4). The CFE is read back from the signed XML
 * (what was signed is what is printed); the security code and the QR come from the signature's
 * DigestValue (BRIEF 4: first 6 characters; QR parameters from the same data as emitir's urlQr).
 */
import { renderCfePdf, type CfePdfInput, type PdfFormato } from '../documents/pdf/index.js';
import type { PrintingProfile } from '../companies/companies.printing.js';
import { readSignedCfe } from './signed-cfe-reader.js';

export const PDF_FORMATOS = ['A4', 'ticket80'] as const satisfies readonly PdfFormato[];

/** What rendering needs from a stored row (the search iterator's rows with XML qualify too). */
export interface PrintableCfe {
  xml: string;
  adenda: string | null;
  /** Stored DigestValue / QR URL when at hand; otherwise taken from the XML's Signature. */
  digestValue?: string;
  urlQr?: string;
}

const DIGEST = /<(?:\w+:)?DigestValue>([^<]+)<\/(?:\w+:)?DigestValue>/;

export function pdfInput(row: PrintableCfe, profile: PrintingProfile | undefined): CfePdfInput {
  const digestValue = row.digestValue ?? DIGEST.exec(row.xml)?.[1];
  if (!digestValue) throw new Error('stored CFE has no DigestValue');
  return {
    cfe: readSignedCfe(row.xml),
    digestValue,
    qrUrl: row.urlQr,
    logo: profile?.logo,
    sitioWebVerificacion: profile?.urlVerificacion,
    urlConsulta: profile?.urlConsulta,
    resolucion: profile?.resolucion,
    adenda: row.adenda ?? undefined,
  };
}

export function renderIssuedCfe(row: PrintableCfe, profile: PrintingProfile | undefined, formato: PdfFormato): Promise<Buffer> {
  return renderCfePdf(pdfInput(row, profile), { formato });
}
