/**
 * RUT lookup: `WS_PersonaGetActEmpresarial.Execute` (BRIEF §11, WSRUT), WS-Security signed.
 * Envelope built by hand (see dgi.soap.ts for why); the answer is CDATA `WS_PersonaActEmpresarial`.
 */
import type { RutActivity, RutInfo, RutLookupClient, RutLookupOutcome, WsSecurityCredentials } from './dgi.client.ts';
import { faultError } from './dgi.soap-client.ts';
import { createWsSecurity, escapeXml, parseXmlLoose, signEnvelope, soapBody, soapEnvelope } from './dgi.soap.ts';
import { DgiPermanentError } from './dgi.errors.ts';
import { postSoap } from './http-post.ts';

export const RUT_NAMESPACE = 'DGI_Modernizacion_Consolidado';

export interface RutSoapClientOptions {
  /** e.g. https://efactura.dgi.gub.uy:6470/ePrueba/ws_personaGetActEmpresarialPrueba */
  endpoint: string;
  credentials: WsSecurityCredentials;
  timeoutMs?: number; // default 20 s
  /**
   * BRIEF §11 [S] gives `DGI_Modernizacion_Consolidadoaction/WS_PersonaGetActEmpresarial.Execute`;
   * a 2014 client used `…action/AWS_PERSONAGETACTEMPRESARIAL.Execute` (GeneXus style). Confirm
   * against the live `?wsdl` during homologation and override here if needed.
   */
  soapAction?: string;
}

type Node = Record<string, unknown>;
const str = (v: unknown): string | null => (v === undefined || v === null || typeof v === 'object' ? null : String(v).trim());
const list = (v: unknown): Node[] => {
  if (!v || typeof v !== 'object') return [];
  const inner = Object.values(v as Node)[0];
  return (Array.isArray(inner) ? inner : inner ? [inner] : []) as Node[];
};

/** Maps the CDATA document to `RutInfo`; item wrappers are named `WS_PersonaActEmpresarial.*Item`. */
export function parsePersonaActEmpresarial(xml: string): RutInfo {
  const p = parseXmlLoose(xml).WS_PersonaActEmpresarial as Node | undefined;
  if (!p) throw new DgiPermanentError('RUT lookup: Data carries no WS_PersonaActEmpresarial', 'WS_PersonaGetActEmpresarial', null);
  const dom = list(p.WS_DomFiscalLocPrincipal)[0];
  const activities: RutActivity[] = list(p.WS_PersonaActividades).map((a) => ({
    code: str(a.GiroCod) ?? '',
    name: str(a.GiroNom) ?? '',
    startDate: str(a.GiroFec_Ini),
  }));
  return {
    RUT: str(p.RUT) ?? '',
    Denominacion: str(p.Denominacion) ?? '',
    NombreFantasia: str(p.NombreFantasia) || null,
    TipoEntidad: str(p.TipoEntidad),
    DescripcionTipoEntidad: str(p.DescripcionTipoEntidad),
    EstadoActividad: str(p.EstadoActividad) ?? '',
    FechaInicioActividad: str(p.FechaInicioActivdad ?? p.FechaInicioActividad),
    address: dom
      ? {
          street: str(dom.Calle_Nom) || null,
          number: str(dom.Dom_Pta_Nro) || null,
          apartment: str(dom.Dom_Ap_Nro) || null,
          city: str(dom.Loc_Nom) || null,
          department: str(dom.Dpto_Nom) || null,
          postalCode: str(dom.Dom_Pst_Cod) || null,
          contacts: list(dom.Contactos).map((c) => ({ type: str(c.TipoCtt_Des) ?? '', value: str(c.DomCtt_Val) ?? '' })),
        }
      : null,
    activities,
  };
}

export class RutSoapClient implements RutLookupClient {
  private readonly security;

  constructor(private readonly options: RutSoapClientOptions) {
    this.security = createWsSecurity(options.credentials);
  }

  async lookup(rut: string): Promise<RutInfo | null> {
    const outcome = await this.lookupDetailed(rut);
    return outcome.kind === 'found' ? outcome.info : null;
  }

  async lookupDetailed(rut: string): Promise<RutLookupOutcome> {
    const envelope = soapEnvelope(
      `<dgi:WS_PersonaGetActEmpresarial.Execute><dgi:Rut>${escapeXml(rut)}</dgi:Rut></dgi:WS_PersonaGetActEmpresarial.Execute>`,
      { dgi: RUT_NAMESPACE },
    );
    const result = await postSoap(
      'WS_PersonaGetActEmpresarial',
      this.options.endpoint,
      signEnvelope(envelope, this.security),
      this.options.soapAction ?? `${RUT_NAMESPACE}action/WS_PersonaGetActEmpresarial.Execute`,
      this.options.timeoutMs ?? 20_000,
    );
    if ('fault' in result) {
      switch (result.fault.codigo) {
        case 5:
          return { kind: 'invalid', codigo: 5 };
        case 10:
        case 14:
          return { kind: 'not-found', codigo: result.fault.codigo };
        case 11:
          return { kind: 'inactive', codigo: 11, EstadoActividad: 'CC' };
        case 12:
          return { kind: 'inactive', codigo: 12, EstadoActividad: 'AF' };
        default:
          throw faultError(result.fault, 'WS_PersonaGetActEmpresarial');
      }
    }
    const response = soapBody(result.xml)?.['WS_PersonaGetActEmpresarial.ExecuteResponse'] as Node | undefined;
    const data = str(response?.Data);
    if (!data) throw new DgiPermanentError('RUT lookup: response without Data', 'WS_PersonaGetActEmpresarial', null);
    return { kind: 'found', info: parsePersonaActEmpresarial(data) };
  }
}
