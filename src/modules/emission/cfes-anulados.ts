/**
 * The issuer's notice to an electronic receiver that DGI rejected CFEs already sent to it
 * (BRIEF 8): `CFEs_Anulados_x_RechazoDGI` per CFEs_Anulados_x_RechazoDGI.xsd (version 1.11):
 * Caratula{RUCEmisor, RUCReceptor, IDComunicacion?, CantCFEAnulados, Tmst}, CFEAnulado[1..250]
 * {TipoCFE, Serie, NroCFE, FechaCFE, Motivo_Cod, Motivo_Glosa}, then ds:Signature. Not sent to DGI.
 *
 * Built already in inclusive-C14N form (default namespace on the root, no declaration), so the
 * CFE template signer (signer.ts, BRIEF 3 profile) digests the bytes as they are, as for the
 * daily report (reporte-diario.ts).
 */
import { CFE_NAMESPACE, CfeXmlError, escapeC14nText } from './cfe-xml.ts';
import { signCanonicalXml, type SignedXmlResult, type SigningKeyMaterial } from './signer.ts';

/** XSD: CFEAnulado maxOccurs="250". */
export const CFES_ANULADOS_MAX = 250;
/** The only values the XSD enumerates for Motivo_Cod / Motivo_Glosa. */
export const MOTIVO_RECHAZO_DGI = { cod: 'RD', glosa: 'Comprobante anulado por rechazo de DGI' } as const;

export interface CfeAnulado {
  tipoCfe: number;
  serie: string;
  nro: number;
  /** FechaCFE = the CFE's FchEmis (YYYY-MM-DD). */
  fechaCfe: string;
}

export interface CfesAnuladosInput {
  rucEmisor: string;
  rucReceptor: string;
  /** Our id of the notice (receiver_notices.id); also in the file name. XSD: integer, ≤ 10 digits. */
  idComunicacion?: number;
  /** FechaHoraType: date-time with offset (formatTmstFirma). */
  tmst: string;
  cfes: readonly CfeAnulado[];
}

const el = (name: string, value: string | number) => `<${name}>${typeof value === 'number' ? String(value) : escapeC14nText(value)}</${name}>`;

function check(input: CfesAnuladosInput): void {
  const n = input.cfes.length;
  if (n < 1 || n > CFES_ANULADOS_MAX) throw new CfeXmlError(`CFEs_Anulados_x_RechazoDGI carries 1..${CFES_ANULADOS_MAX} CFEAnulado, got ${n}`);
  for (const ruc of [input.rucEmisor, input.rucReceptor]) if (!/^\d{12}$/.test(ruc)) throw new CfeXmlError(`RUC must have 12 digits: ${ruc}`);
  if (input.idComunicacion !== undefined && !(Number.isInteger(input.idComunicacion) && input.idComunicacion >= 0 && input.idComunicacion < 1e10)) {
    throw new CfeXmlError(`IDComunicacion must be an integer of at most 10 digits: ${input.idComunicacion}`);
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/.test(input.tmst)) throw new CfeXmlError(`Tmst must be a date-time with offset: ${input.tmst}`);
  for (const c of input.cfes) {
    // CFCs (2xx) never reach a receiver (BRIEF 5, 10), so they are never annulled towards one.
    if (c.tipoCfe >= 200) throw new CfeXmlError(`A contingency CFC (${c.tipoCfe}) is never sent to a receiver`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(c.fechaCfe)) throw new CfeXmlError(`FechaCFE must be YYYY-MM-DD: ${c.fechaCfe}`);
  }
}

/** The unsigned notice, canonical; sign it with signCfesAnulados. */
export function buildCfesAnulados(input: CfesAnuladosInput): string {
  check(input);
  const caratula =
    '<Caratula>' +
    el('RUCEmisor', input.rucEmisor) +
    el('RUCReceptor', input.rucReceptor) +
    (input.idComunicacion !== undefined ? el('IDComunicacion', input.idComunicacion) : '') +
    el('CantCFEAnulados', input.cfes.length) +
    el('Tmst', input.tmst) +
    '</Caratula>';
  const items = input.cfes.map(
    (c) =>
      '<CFEAnulado>' +
      el('TipoCFE', c.tipoCfe) + el('Serie', c.serie) + el('NroCFE', c.nro) + el('FechaCFE', c.fechaCfe) +
      el('Motivo_Cod', MOTIVO_RECHAZO_DGI.cod) + el('Motivo_Glosa', MOTIVO_RECHAZO_DGI.glosa) +
      '</CFEAnulado>',
  );
  return `<CFEs_Anulados_x_RechazoDGI xmlns="${CFE_NAMESPACE}" version="1.0">${caratula}${items.join('')}</CFEs_Anulados_x_RechazoDGI>`;
}

/** Enveloped XMLDSig with the CFE profile; the Signature becomes the last child, as the XSD requires. */
export function signCfesAnulados(unsignedXml: string, ctx: SigningKeyMaterial): SignedXmlResult {
  return signCanonicalXml(unsignedXml, ctx);
}

/** BRIEF 8: `Rech_<RUC>_<IdComunicacion>.xml`, RUC = the issuer's. */
export function cfesAnuladosFileName(rucEmisor: string, idComunicacion: number): string {
  return `Rech_${rucEmisor}_${idComunicacion}.xml`;
}
