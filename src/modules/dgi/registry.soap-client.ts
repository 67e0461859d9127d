/**
 * DGI's registry of electronic issuers: `WS_eFactura_Consultas.EFACCONSULTARRUCEMISORES` and its
 * compressed variant `…COMPRIMIDO` (BRIEF 7, WSC v1.10). WS-Security as the other consultas.
 *
 * Request `Consultarucemisores{Filtro_eFacDocNro?, Filtro_eFacDenominacion?,
 * Filtro_eFacRUCEmisorAudFchHora}`: the last filter returns the issuers whose registry entry
 * changed since that instant, which makes an incremental sync possible.
 * Plain answer: `Rucemisoresmail/RucEmisoresMail.RucEmisoresMailItem{RUC, DENOMINACION,
 * NOMBRE_FANTASIA?, FECHA_INICIO, FECHA_FIN_TRANSICION?, FECHA_FIN?, MAIL}` (element names as in
 * public JAXB bindings of DGI's WSDL; the repository has no WSDL of this service).
 * Compressed answer: BRIEF 7 only says "gzip + base64"; its element name is not published, so the
 * client takes the Response's single text child, base64-decodes and gunzips it and reads the same
 * item list from the result [I].
 */
import { gunzipSync } from 'node:zlib';
import type { WsSecurityCredentials } from './dgi.client.ts';
import { CONSULTAS_NAMESPACE } from './dgi.consultas-client.ts';
import { DgiPermanentError } from './dgi.errors.ts';
import { faultError } from './dgi.soap-client.ts';
import { createWsSecurity, escapeXml, parseXmlLoose, signEnvelope, soapBody, soapEnvelope } from './dgi.soap.ts';
import { postSoap } from './http-post.ts';

export const REGISTRY_OPERATION = 'EFACCONSULTARRUCEMISORES';
export const REGISTRY_OPERATION_COMPRESSED = 'EFACCONSULTARRUCEMISORESCOMPRIMIDO';
export const REGISTRY_ITEM = 'RucEmisoresMail.RucEmisoresMailItem';

/** One entry of DGI's registry; dates YYYY-MM-DD, null when DGI leaves them empty. */
export interface RegistryIssuer {
  RUC: string;
  DENOMINACION: string;
  FECHA_INICIO: string | null;
  FECHA_FIN_TRANSICION: string | null;
  FECHA_FIN: string | null;
  MAIL: string | null;
}

export interface RegistryQuery {
  /** Only issuers whose entry changed since this instant (Uruguay local time, YYYY-MM-DDTHH:mm:ss). */
  changedSince: string;
  ruc?: string;
  denominacion?: string;
  compressed?: boolean;
}

export interface IssuerRegistryClient {
  issuers(query: RegistryQuery): Promise<RegistryIssuer[]>;
}

export interface RegistrySoapClientOptions {
  /** The consultas endpoint, e.g. https://efactura.dgi.gub.uy:6460/ePrueba/ws_consultasPrueba. */
  endpoint: string;
  credentials: WsSecurityCredentials;
  timeoutMs?: number; // default 120 s: the full registry is large (at most 15 s for one RUC)
}

type Node = Record<string, unknown>;
const text = (v: unknown): string | null => {
  if (v === undefined || v === null || typeof v === 'object') return null;
  const s = String(v).trim();
  return s ? s : null;
};
const asList = (v: unknown): Node[] => (Array.isArray(v) ? v : v && typeof v === 'object' ? [v] : []) as Node[];
/** DGI dates may come as date or date-time; 0001-01-01 / 1900-01-01 are GeneXus' "empty". */
const date = (v: unknown): string | null => {
  const s = text(v)?.slice(0, 10) ?? null;
  return s && /^\d{4}-\d{2}-\d{2}$/.test(s) && s > '1900-01-01' ? s : null;
};

/** The item list of a plain answer or of a decompressed payload (wrapper optional). */
export function parseRegistryItems(node: Node | undefined): RegistryIssuer[] {
  const holder = (node?.Rucemisoresmail as Node | undefined) ?? node;
  return asList(holder?.[REGISTRY_ITEM])
    .map((i) => ({
      RUC: text(i.RUC) ?? '',
      DENOMINACION: text(i.DENOMINACION) ?? '',
      FECHA_INICIO: date(i.FECHA_INICIO),
      FECHA_FIN_TRANSICION: date(i.FECHA_FIN_TRANSICION),
      FECHA_FIN: date(i.FECHA_FIN),
      MAIL: text(i.MAIL),
    }))
    .filter((i) => /^\d{12}$/.test(i.RUC));
}

export function decodeCompressedRegistry(base64: string): RegistryIssuer[] {
  let xml: string;
  try {
    xml = gunzipSync(Buffer.from(base64.replace(/\s+/g, ''), 'base64')).toString('utf8');
  } catch (error) {
    throw new DgiPermanentError(`WS_eFactura_Consultas ${REGISTRY_OPERATION_COMPRESSED}: payload is not gzip + base64`, 'WS_eFactura_Consultas', null, null, null, { cause: error });
  }
  return parseRegistryItems(parseXmlLoose(xml));
}

export class RegistrySoapClient implements IssuerRegistryClient {
  private readonly security;

  constructor(private readonly options: RegistrySoapClientOptions) {
    this.security = createWsSecurity(options.credentials);
  }

  async issuers(query: RegistryQuery): Promise<RegistryIssuer[]> {
    const operation = query.compressed ? REGISTRY_OPERATION_COMPRESSED : REGISTRY_OPERATION;
    const filter = (name: string, value: string | undefined) => (value ? `<dgi:${name}>${escapeXml(value)}</dgi:${name}>` : '');
    const body =
      `<dgi:WS_eFactura_Consultas.${operation}><dgi:Consultarucemisores>` +
      filter('Filtro_eFacDocNro', query.ruc) +
      filter('Filtro_eFacDenominacion', query.denominacion) +
      `<dgi:Filtro_eFacRUCEmisorAudFchHora>${escapeXml(query.changedSince)}</dgi:Filtro_eFacRUCEmisorAudFchHora>` +
      `</dgi:Consultarucemisores></dgi:WS_eFactura_Consultas.${operation}>`;
    const result = await postSoap(
      'WS_eFactura_Consultas',
      this.options.endpoint,
      signEnvelope(soapEnvelope(body, { dgi: CONSULTAS_NAMESPACE }), this.security),
      `${CONSULTAS_NAMESPACE}action/AWS_EFACTURA_CONSULTAS.${operation}`,
      // One RUC answers fast; the full list is large.
      query.ruc ? Math.min(this.options.timeoutMs ?? 15_000, 15_000) : this.options.timeoutMs ?? 120_000,
    );
    if ('fault' in result) throw faultError(result.fault, 'WS_eFactura_Consultas');
    const response = soapBody(result.xml)?.[`WS_eFactura_Consultas.${operation}Response`] as Node | undefined;
    if (!response) throw new DgiPermanentError(`WS_eFactura_Consultas ${operation}: answer without its Response element`, 'WS_eFactura_Consultas', null);
    if (!query.compressed) return parseRegistryItems(response);
    const payload = Object.values(response).map(text).find((v) => v !== null);
    return payload ? decodeCompressedRegistry(payload) : [];
  }
}
