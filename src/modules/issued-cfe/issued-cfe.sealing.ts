/**
 * Sealing a numbered CFE (issue 5 point 4): sign it (BRIEF 3), validate the signed bytes against
 * DGI's XSD, and derive the QR URL and image (BRIEF 4). Pure CPU work with no I/O, so it can run
 * inline or in a worker thread (issued-cfe.sealer.ts); both run this same function.
 */
import { validateXml } from '../../platform/xml/xsd.js';
import { buildQrUrl, CfeXmlError, qrPngBase64, signCfe, type Cfe, type QrInput, type SigningKeyMaterial } from '../emission/index.js';

/** The QR fields that are not in the draft itself. */
export type SealQr = Pick<QrInput, 'RUCEmisor' | 'TipoCFE' | 'Serie' | 'Nro'>;

export interface Sealed {
  xml: string;
  digestValue: string;
  urlQr: string;
  /** PNG of the QR, base64 (the emitir response's `qrPng`). */
  qrPng: string;
}

/** The CFE cannot become valid DGI XML: answered as 422 XML_INVALIDO. `data.errores` lists XSD errors. */
export class SealError extends Error {
  constructor(message: string, readonly data?: { errores: string[] }) {
    super(message);
    this.name = 'SealError';
  }
}

export function sealCfe(draft: Cfe, key: SigningKeyMaterial, qr: SealQr): Sealed {
  let signed;
  try {
    signed = signCfe(draft, key);
  } catch (err) {
    if (err instanceof CfeXmlError) throw new SealError(`El comprobante no se puede representar en el XML de DGI: ${err.message}.`);
    throw err;
  }
  // As UTF-8 bytes: Node encodes natively, a few µs less than libxml2-wasm's JS string encoder.
  const xsd = validateXml('CFE', Buffer.from(signed.xml, 'utf8'));
  if (!xsd.ok) throw new SealError(`El comprobante no cumple el esquema XSD de DGI: ${xsd.errors.slice(0, 3).join('; ')}`, { errores: xsd.errors });
  const urlQr = buildQrUrl({ ...qr, Totales: draft.Totales, TmstFirma: draft.TmstFirma, digestValue: signed.digestValue });
  return { xml: signed.xml, digestValue: signed.digestValue, urlQr, qrPng: qrPngBase64(urlQr) };
}
