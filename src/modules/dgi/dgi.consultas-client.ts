/**
 * DGI's consultas service `WS_eFactura_Consultas` (BRIEF 7, WSC v1.10): what DGI holds of a CFE,
 * asked when an envelope's answer was lost (S08 on the resend) or a receipt made no progress.
 * WS-Security as WS_eFactura (BRIEF 6). Hand-built like the RUT client: the repository has no WSDL
 * of this service; the body follows WSC's element names (namespace http://dgi.gub.uy, typed
 * elements rather than an xmlData string), and the SOAPAction is GeneXus' pattern by analogy with
 * WS_eFactura (BRIEF 7: "confirm with the WSDL"), overridable here.
 */
import type { CfeId, DatosSobre, DgiConsultasClient, EstadoCfeConsulta, WsSecurityCredentials } from './dgi.client.ts';
import { faultError } from './dgi.soap-client.ts';
import { createWsSecurity, escapeXml, signEnvelope, soapBody, soapEnvelope } from './dgi.soap.ts';
import { DgiPermanentError } from './dgi.errors.ts';
import { postSoap } from './http-post.ts';

export const CONSULTAS_NAMESPACE = 'http://dgi.gub.uy';

export interface DgiConsultasClientOptions {
  /** e.g. https://efactura.dgi.gub.uy:6460/ePrueba/ws_consultasPrueba, or the simulator's `urls.consultas`. */
  endpoint: string;
  credentials: WsSecurityCredentials;
  timeoutMs?: number; // default 30 s
  /** Default `http://dgi.gub.uyaction/AWS_EFACTURA_CONSULTAS.<OP>` (BRIEF 7 [I]). */
  soapAction?: (operation: string) => string;
}

type Node = Record<string, unknown>;
const text = (v: unknown): string | null => (v === undefined || v === null || typeof v === 'object' ? null : String(v).trim());
const asList = (v: unknown): Node[] => (Array.isArray(v) ? v : v && typeof v === 'object' ? [v] : []) as Node[];

function paramConsulta(node: unknown): { Token: string; Fechahora: string } | null {
  const p = node as Node | undefined;
  const token = text(p?.Token);
  return token ? { Token: token, Fechahora: text(p?.Fechahora) ?? '' } : null;
}

export class DgiSoapConsultasClient implements DgiConsultasClient {
  private readonly security;

  constructor(private readonly options: DgiConsultasClientOptions) {
    this.security = createWsSecurity(options.credentials);
  }

  private async call(operation: string, cfe: CfeId): Promise<Node> {
    const body =
      `<dgi:WS_eFactura_Consultas.${operation}><dgi:Cfeid><dgi:TipoCFE>${cfe.TipoCFE}</dgi:TipoCFE>` +
      `<dgi:Serie>${escapeXml(cfe.Serie)}</dgi:Serie><dgi:Nro>${cfe.Nro}</dgi:Nro></dgi:Cfeid></dgi:WS_eFactura_Consultas.${operation}>`;
    const action = this.options.soapAction?.(operation) ?? `${CONSULTAS_NAMESPACE}action/AWS_EFACTURA_CONSULTAS.${operation}`;
    const result = await postSoap(
      'WS_eFactura_Consultas',
      this.options.endpoint,
      signEnvelope(soapEnvelope(body, { dgi: CONSULTAS_NAMESPACE }), this.security),
      action,
      this.options.timeoutMs ?? 30_000,
    );
    if ('fault' in result) throw faultError(result.fault, 'WS_eFactura_Consultas');
    const response = soapBody(result.xml)?.[`WS_eFactura_Consultas.${operation}Response`] as Node | undefined;
    if (!response) throw new DgiPermanentError(`WS_eFactura_Consultas ${operation}: answer without its Response element`, 'WS_eFactura_Consultas', null);
    return response;
  }

  async cfeEnvelopes(cfe: CfeId): Promise<DatosSobre[]> {
    const response = await this.call('EFACCONSULTARENVIOSCFE', cfe);
    const coleccion = (response.Ackconsultaenvioscfe as Node | undefined)?.ColeccionDatosSobres as Node | undefined;
    return asList(coleccion?.DatosSobre).map((d) => ({
      EstadoSobre: text(d.EstadoSobre) ?? '',
      FechaHoraSobre: text(d.FechaHoraSobre),
      IdEmisor: text(d.IdEmisor) ?? '',
      IdReceptor: text(d.IdReceptor) ?? '',
      ParamConsulta: paramConsulta(d.ParamConsulta),
    }));
  }

  async cfeState(cfe: CfeId): Promise<EstadoCfeConsulta | null> {
    const response = await this.call('EFACCONSULTARESTADOCFE', cfe);
    const ack = response.Ackconsultaestadocfe as Node | undefined;
    const estado = text(ack?.EstadoCFE);
    if (!ack || !estado) return null;
    return { EstadoCFE: estado, IdEmisor: text(ack.IdEmisor) ?? '', IdReceptor: text(ack.IdReceptor) ?? '', ParamConsulta: paramConsulta(ack.ParamConsulta) };
  }
}
