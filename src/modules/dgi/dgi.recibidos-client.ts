/**
 * EFACCONSULTARCFERECIBIDOS of DGI's consultas service `WS_eFactura_Consultas` (BRIEF 7, WSC v1.10
 * p.10): the CFE other issuers sent DGI with the calling company as receiver, for reconciling the
 * received CFE (issue 31 point 6). WS-Security as WS_eFactura (BRIEF 6), signed with the company's
 * certificate: DGI answers for the RUC of that certificate.
 *
 * Hand-built like dgi.consultas-client.ts (no WSDL of this service in the repository): body
 * `Consultacferecibidos{RUCEmisor, TipoCFE?, Serie?, Nro?, FechaDesde, FechaHasta}`, answer a list
 * of `DatosCFE{TipoCFE, Serie, Nro, Estado, FechaHora, RUCEmisor, Moneda, TotalNeto, TotalIVA,
 * MontoTotal, TotalRetenido}`, read wherever it sits in the Response (the wrapper's name is not
 * printed in WSC). `RUCEmisor` is not marked optional, yet DGI's own example sends it empty: empty
 * here means every issuer (RECEIVED-RECURRING-USAGE A.5; to confirm in Testing). WSC caps a call at
 * 31 days and dates to 2011-10-01..2050-12-31: the caller splits longer periods.
 */
import type { WsSecurityCredentials } from './dgi.client.ts';
import { CONSULTAS_NAMESPACE } from './dgi.consultas-client.ts';
import { DgiPermanentError } from './dgi.errors.ts';
import { faultError } from './dgi.soap-client.ts';
import { createWsSecurity, escapeXml, signEnvelope, soapBody, soapEnvelope } from './dgi.soap.ts';
import { postSoap } from './http-post.ts';

export const CFE_RECIBIDOS_OPERATION = 'EFACCONSULTARCFERECIBIDOS';
/** WSC: one call covers at most 31 days. */
export const CFE_RECIBIDOS_MAX_DAYS = 31;

export interface CfeRecibidosQuery {
  RUCEmisor?: string;
  TipoCFE?: number;
  Serie?: string;
  Nro?: number;
  /** YYYY-MM-DD, inclusive. */
  FechaDesde: string;
  FechaHasta: string;
}

export interface DatosCfeRecibido {
  TipoCFE: number;
  Serie: string;
  Nro: number;
  /** DGI's state of the CFE: AE (accepted), BE (rejected), CE (observed CFC)… as DGI writes it. */
  Estado: string;
  FechaHora: string | null;
  RUCEmisor: string;
  Moneda: string | null;
  TotalNeto: string | null;
  TotalIVA: string | null;
  MontoTotal: string | null;
  TotalRetenido: string | null;
}

export interface DgiRecibidosClient {
  cfeRecibidos(query: CfeRecibidosQuery): Promise<DatosCfeRecibido[]>;
}

type Node = Record<string, unknown>;
const text = (v: unknown): string | null => (v === undefined || v === null || typeof v === 'object' ? null : String(v).trim() || null);

/** Every DatosCFE element under `node`, wherever the answer nests it. */
function collect(node: unknown, out: Node[] = []): Node[] {
  if (Array.isArray(node)) for (const n of node) collect(n, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node as Node)) {
      if (k.replace(/^[^:]*:/, '') === 'DatosCFE') for (const d of Array.isArray(v) ? v : [v]) out.push(d as Node);
      else collect(v, out);
    }
  }
  return out;
}

export function parseDatosCfe(response: unknown): DatosCfeRecibido[] {
  return collect(response).flatMap((d) => {
    const tipo = Number(text(d.TipoCFE));
    const nro = Number(text(d.Nro));
    const ruc = text(d.RUCEmisor);
    const serie = text(d.Serie);
    if (!Number.isInteger(tipo) || !Number.isInteger(nro) || !ruc || !serie) return [];
    return [{
      TipoCFE: tipo, Serie: serie, Nro: nro, Estado: text(d.Estado) ?? '', FechaHora: text(d.FechaHora), RUCEmisor: ruc,
      Moneda: text(d.Moneda), TotalNeto: text(d.TotalNeto), TotalIVA: text(d.TotalIVA), MontoTotal: text(d.MontoTotal), TotalRetenido: text(d.TotalRetenido),
    }];
  });
}

export function cfeRecibidosBody(q: CfeRecibidosQuery): string {
  const el = (name: string, v: string | number | undefined) => (v === undefined ? '' : `<dgi:${name}>${escapeXml(String(v))}</dgi:${name}>`);
  return (
    `<dgi:WS_eFactura_Consultas.${CFE_RECIBIDOS_OPERATION}><dgi:Consultacferecibidos>` +
    `<dgi:RUCEmisor>${escapeXml(q.RUCEmisor ?? '')}</dgi:RUCEmisor>${el('TipoCFE', q.TipoCFE)}${el('Serie', q.Serie)}${el('Nro', q.Nro)}` +
    `${el('FechaDesde', q.FechaDesde)}${el('FechaHasta', q.FechaHasta)}</dgi:Consultacferecibidos></dgi:WS_eFactura_Consultas.${CFE_RECIBIDOS_OPERATION}>`
  );
}

export class DgiSoapRecibidosClient implements DgiRecibidosClient {
  private readonly security;

  constructor(private readonly options: { endpoint: string; credentials: WsSecurityCredentials; timeoutMs?: number; soapAction?: (operation: string) => string }) {
    this.security = createWsSecurity(options.credentials);
  }

  async cfeRecibidos(query: CfeRecibidosQuery): Promise<DatosCfeRecibido[]> {
    const action = this.options.soapAction?.(CFE_RECIBIDOS_OPERATION) ?? `${CONSULTAS_NAMESPACE}action/AWS_EFACTURA_CONSULTAS.${CFE_RECIBIDOS_OPERATION}`;
    const result = await postSoap(
      'WS_eFactura_Consultas',
      this.options.endpoint,
      signEnvelope(soapEnvelope(cfeRecibidosBody(query), { dgi: CONSULTAS_NAMESPACE }), this.security),
      action,
      this.options.timeoutMs ?? 30_000,
    );
    if ('fault' in result) throw faultError(result.fault, 'WS_eFactura_Consultas');
    const response = soapBody(result.xml)?.[`WS_eFactura_Consultas.${CFE_RECIBIDOS_OPERATION}Response`];
    if (!response) throw new DgiPermanentError(`WS_eFactura_Consultas ${CFE_RECIBIDOS_OPERATION}: answer without its Response element`, 'WS_eFactura_Consultas', null);
    return parseDatosCfe(response);
  }
}
