/** Pure emission library: CFE model, totals, canonical XML, XMLDSig, QR. No database, no HTTP. */
export * from './cfe-types.ts';
export type * from './cfe.model.ts';
export { computeMontoItem, completeItem, computeTotales, IVA_TASA_BASICA, IVA_TASA_MINIMA, TotalsError, totalesFor } from './totals.ts';
export { checkSentTotales, negativeTotal, TotalsCheckError } from './totals-check.ts';
export { ID_DOC, ZONES } from './cfe-xml-schema.ts';
export type { TotalsInput, TotalsOptions } from './totals.ts';
export { completeCfe, type CfeDraft } from './complete-cfe.ts';
export { buildCfeXml, CFE_NAMESPACE, CfeXmlError, escapeC14nText, formatTmstFirma, readBackZones, totalesInXsdOrder } from './cfe-xml.ts';
export {
  createSigningContext,
  DSIG_NS,
  SignatureError,
  signCanonicalXml,
  signCfe,
  signXmlDocument,
  verifyXmlSignature,
} from './signer.ts';
export type { SignatureHash, SignedXmlResult, SigningContext, SigningContextInput, SigningKeyMaterial, VerifyOptions, VerifyResult } from './signer.ts';
export { extractEnvelopeCfes, type EnvelopeCfes } from './envelope-cfes.ts';
export { buildQrUrl, QR_BASE_URL, qrAmount, qrDate, qrPngBase64, securityCode, type QrInput } from './qr.ts';
export { SAMPLE_EMISOR, SAMPLE_TYPES, sampleCfe } from './sample-cfes.ts';
export * from './sobre.ts';
export * from './reporte-diario.ts';
export * from './cfe-states.ts';
export * from './cfes-anulados.ts';
