/**
 * Real WS_eFactura client (BRIEF §6): soap 1.13 driven by DGI's own ws_eprueba.wsdl, WS-Security
 * via WSSecurityCert. Options are explicit (config.ts passes them; this file never reads env).
 */
import { createClientAsync, type Client } from 'soap';
import { DGI_RESOURCES_DIR } from '../../platform/xml/xsd.ts';
import { escapeC14nText } from '../emission/index.ts';
import { parseAckCfe, parseAckRepDiario, parseAckSobre } from './dgi.acks.ts';
import type {
  AckRepDiario,
  AckSobre,
  DgiReceptionClient,
  EnvelopeStatus,
  WsSecurityCredentials,
} from './dgi.client.ts';
import { DgiPermanentError, DgiTransientError, NOT_READY_FAULT_CODES, type DgiService } from './dgi.errors.ts';
import { createWsSecurity, escapeXml, parseSoapFault, type SoapFault } from './dgi.soap.ts';

export interface DgiSoapClientOptions {
  /** e.g. https://efactura.dgi.gub.uy:6443/ePrueba/ws_eprueba, or the simulator's `urls.efactura`. */
  endpoint: string;
  credentials: WsSecurityCredentials;
  timeoutMs?: number; // default 60 s: DGI answers large envelopes slowly
  wsdlPath?: string; // default resources/dgi/wsdl/ws_eprueba.wsdl
}

/** Faults 100/102 are DGI-side exceptions ("excepción en su ejecución"): worth retrying later. */
const TRANSIENT_FAULT_CODES = new Set([100, 102]);

type SoapOperation = (args: unknown, options: unknown) => Promise<[{ Dataout?: { xmlData?: string } }]>;

/** Turns anything the soap library throws into a typed DGI error (or returns the fault for callers). */
export function classifySoapError(error: unknown, service: DgiService): { fault: SoapFault } | never {
  const err = error as { body?: unknown; response?: { status?: number; data?: unknown }; code?: string; message?: string };
  const raw = typeof err.body === 'string' ? err.body : typeof err.response?.data === 'string' ? err.response.data : '';
  const fault = raw ? parseSoapFault(raw) : null;
  if (fault) return { fault };
  const status = err.response?.status ?? null;
  if (status === null || status >= 500 || status === 408 || status === 429) {
    throw new DgiTransientError(`${service}: ${err.code ?? status ?? ''} ${err.message ?? ''}`.trim(), service, status, null, { cause: error });
  }
  throw new DgiPermanentError(`${service}: HTTP ${status}`, service, null, null, null, { cause: error });
}

export function faultError(fault: SoapFault, service: DgiService): DgiPermanentError | DgiTransientError {
  const message = `${service} fault ${fault.codigo ?? '?'}: ${fault.descripcion ?? fault.faultstring}`;
  if (fault.codigo !== null && (NOT_READY_FAULT_CODES.has(fault.codigo) || TRANSIENT_FAULT_CODES.has(fault.codigo))) {
    return new DgiTransientError(message, service, null, fault.codigo);
  }
  return new DgiPermanentError(message, service, fault.codigo, fault.descripcion ?? fault.faultstring, fault.detalle);
}

export class DgiSoapReceptionClient implements DgiReceptionClient {
  private client: Promise<Client> | undefined;

  constructor(private readonly options: DgiSoapClientOptions) {}

  private getClient(): Promise<Client> {
    this.client ??= createClientAsync(this.options.wsdlPath ?? `${DGI_RESOURCES_DIR}wsdl/ws_eprueba.wsdl`, {
      endpoint: this.options.endpoint,
      // xmlData is escaped here (call) as C14N writes text, so the WS-Security signer finds it canonical
      // (dgi.wss-sign.ts canonicalText); the library's escaping also took 8 passes over a ~1 MB EnvioCFE.
      escapeXML: false,
    }).then((client) => {
      client.setSecurity(createWsSecurity(this.options.credentials));
      return client;
    });
    this.client.catch(() => (this.client = undefined));
    return this.client;
  }

  /** Calls one operation; returns Dataout/xmlData or the SOAP fault DGI sent. */
  private async call(operation: string, xmlData: string): Promise<{ xml: string } | { fault: SoapFault }> {
    const client = await this.getClient();
    const method = (client as unknown as Record<string, SoapOperation>)[`${operation}Async`];
    try {
      const [result] = await method.call(client, { Datain: { xmlData: escapeC14nText(xmlData) } }, { timeout: this.options.timeoutMs ?? 60_000 });
      const xml = result?.Dataout?.xmlData;
      if (typeof xml !== 'string' || xml.trim() === '') {
        throw new DgiPermanentError(`WS_eFactura ${operation}: empty Dataout/xmlData`, 'WS_eFactura', null);
      }
      return { xml };
    } catch (error) {
      if (error instanceof DgiPermanentError) throw error;
      return classifySoapError(error, 'WS_eFactura');
    }
  }

  async sendEnvelope(envioCfeXml: string): Promise<AckSobre> {
    const result = await this.call('EFACRECEPCIONSOBRE', envioCfeXml);
    if ('fault' in result) throw faultError(result.fault, 'WS_eFactura');
    return parseAckSobre(result.xml);
  }

  async queryEnvelopeStatus(idReceptor: string, token: string): Promise<EnvelopeStatus> {
    const consulta =
      `<ConsultaCFE xmlns="http://dgi.gub.uy"><IdReceptor>${escapeXml(idReceptor)}</IdReceptor>` +
      `<Token>${escapeXml(token)}</Token></ConsultaCFE>`;
    const result = await this.call('EFACCONSULTARESTADOENVIO', consulta);
    if ('fault' in result) {
      const { codigo } = result.fault;
      if (codigo !== null && NOT_READY_FAULT_CODES.has(codigo)) {
        return { ready: false, codigo, descripcion: result.fault.descripcion ?? result.fault.faultstring };
      }
      throw faultError(result.fault, 'WS_eFactura');
    }
    return { ready: true, ...parseAckCfe(result.xml, 'DGI') };
  }

  async sendDailyReport(reporteXml: string): Promise<AckRepDiario> {
    const result = await this.call('EFACRECEPCIONREPORTE', reporteXml);
    if ('fault' in result) throw faultError(result.fault, 'WS_eFactura');
    return parseAckRepDiario(result.xml);
  }
}
