/**
 * Security code and QR for the printed representation (BRIEF 4; FCFE "5- Pie del comprobante",
 * TDOC Anexo B/E). The hash is the signature's base64 DigestValue [I, strong: BRIEF 4].
 */
import QRCode from 'qrcode';
import { getCfeType } from './cfe-types.ts';
import type { Totales } from './cfe.model.ts';

export const QR_BASE_URL = 'https://www.efactura.dgi.gub.uy/consultaQR/cfe';

/** "Código de seguridad": the first 6 characters of the hash. */
export function securityCode(digestValue: string): string {
  return digestValue.slice(0, 6);
}

export interface QrInput {
  RUCEmisor: string;
  TipoCFE: number;
  Serie: string;
  Nro: number;
  Totales: Pick<Totales, 'MntPagar' | 'MntTotal' | 'MntTotRetenido'>;
  /** TmstFirma as written in the CFE; the QR date is its calendar date (signing date). */
  TmstFirma: string;
  digestValue: string;
}

/**
 * monto per type: e-Remito → 0; e-Resguardo → MntTotRetenido (A-C125); e-Remito de Exportación →
 * MntTotal (A-C124); any other → MntPagar (A-C130).
 */
export function qrAmount(tipoCFE: number, totales: QrInput['Totales']): string {
  const rule = getCfeType(tipoCFE).qrAmount;
  if (rule === 'ZERO') return '0';
  const value = totales[rule];
  if (value === undefined) throw new Error(`QR: ${rule} missing for CFE type ${tipoCFE}`);
  return value;
}

/** dd/mm/yyyy of the signing date as the document specifies (BRIEF 4: YYYYMMDD is also seen in the wild). */
export function qrDate(tmstFirma: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T/.exec(tmstFirma);
  if (!m) throw new Error(`QR: TmstFirma is not an xs:dateTime: ${tmstFirma}`);
  return `${m[3]}/${m[2]}/${m[1]}`;
}

/** `…/consultaQR/cfe?ruc,tipoCFE,serie,nroCFE,monto,fecha,hash`: comma-separated, not key=value. */
export function buildQrUrl(input: QrInput): string {
  const params = [
    input.RUCEmisor,
    String(input.TipoCFE),
    input.Serie,
    String(input.Nro),
    qrAmount(input.TipoCFE, input.Totales),
    qrDate(input.TmstFirma),
    encodeURIComponent(input.digestValue),
  ];
  return `${QR_BASE_URL}?${params.join(',')}`;
}

/** PNG of the QR as base64 (no data: prefix). Error correction M; the printer scales it to 22–30 mm. */
export async function qrPngBase64(url: string, options: { width?: number } = {}): Promise<string> {
  const png = await QRCode.toBuffer(url, { type: 'png', errorCorrectionLevel: 'M', margin: 1, width: options.width ?? 300 });
  return png.toString('base64');
}
