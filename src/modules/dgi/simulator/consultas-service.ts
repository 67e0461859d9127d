/**
 * Simulated `WS_eFactura_Consultas` (BRIEF 7, WSC v1.10), answered from what the simulated
 * WS_eFactura remembers (efactura-service.ts, journaled in state.jsonl): the envelopes that
 * carried a CFE of the calling RUC (EFACCONSULTARENVIOSCFE) and the CFE's state with its first
 * envelope (EFACCONSULTARESTADOCFE). Element names follow WSC; the service has no WSDL in the
 * repository (dgi.consultas-client.ts).
 *
 * Simulator choices where WSC says nothing: envelopes DGI rejected whole (BS) are not listed (the
 * simulator does not keep them); EstadoCFE is the CFE's ACKCFE state (AE/BE/CE), or "AS" while its
 * envelope is received and not processed yet (before Fechahora); an unknown CFE gets an empty list,
 * or an Ackconsultaestadocfe with an empty EstadoCFE.
 */
import type { X509Certificate } from 'node:crypto';
import { escapeXml, soapEnvelope, soapFaultXml } from '../dgi.soap.ts';
import { uyDateTime, type EfacturaService, type SoapReply, type StoredEnvelope } from './efactura-service.ts';
import { rucFromCertificate } from './xmldsig.ts';

export const CONSULTAS_OPERATIONS = ['EFACCONSULTARENVIOSCFE', 'EFACCONSULTARESTADOCFE'] as const;
export type ConsultasOperation = (typeof CONSULTAS_OPERATIONS)[number];

const paramConsulta = (env: StoredEnvelope) =>
  `<ParamConsulta><Token>${escapeXml(env.token)}</Token><Fechahora>${uyDateTime(env.readyAt)}</Fechahora></ParamConsulta>`;

function reply(operation: ConsultasOperation, content: string): SoapReply {
  return {
    status: 200,
    body: soapEnvelope(`<WS_eFactura_Consultas.${operation}Response xmlns="http://dgi.gub.uy">${content}</WS_eFactura_Consultas.${operation}Response>`),
  };
}

export function answerConsulta(
  efactura: EfacturaService,
  operation: ConsultasOperation,
  cfeid: { TipoCFE: string | null; Serie: string | null; Nro: string | null },
  callerCert: X509Certificate,
): SoapReply {
  const tipo = cfeid.TipoCFE?.trim() ?? '';
  const serie = cfeid.Serie?.trim() ?? '';
  const nro = cfeid.Nro?.trim() ?? '';
  if (!/^\d{3}$/.test(tipo) || !/^[A-Z]{1,2}$/.test(serie) || !/^\d{1,7}$/.test(nro)) {
    return { status: 500, body: soapFaultXml(100, 'El método invocado ha detectado una excepción en su ejecución.', 'Cfeid inválido') };
  }
  const ruc = rucFromCertificate(callerCert) ?? '';
  const held = efactura.envelopesOfCfe(ruc, tipo, serie, String(Number(nro)));
  if (operation === 'EFACCONSULTARENVIOSCFE') {
    const datos = held
      .map(({ idReceptor, envelope }) =>
        `<DatosSobre><EstadoSobre>AS</EstadoSobre><FechaHoraSobre>${envelope.caratula.FecHRecibido}</FechaHoraSobre>` +
        `<IdEmisor>${envelope.caratula.IDEmisor}</IdEmisor><IdReceptor>${idReceptor}</IdReceptor>${paramConsulta(envelope)}</DatosSobre>`)
      .join('');
    return reply(operation, `<Ackconsultaenvioscfe><ColeccionDatosSobres>${datos}</ColeccionDatosSobres></Ackconsultaenvioscfe>`);
  }
  const first = held[0];
  if (!first) return reply(operation, '<Ackconsultaestadocfe><EstadoCFE></EstadoCFE><IdEmisor>0</IdEmisor><IdReceptor>0</IdReceptor></Ackconsultaestadocfe>');
  const estado = Date.now() < first.envelope.readyAt ? 'AS' : first.result.Estado;
  return reply(
    operation,
    `<Ackconsultaestadocfe><EstadoCFE>${estado}</EstadoCFE><IdEmisor>${first.envelope.caratula.IDEmisor}</IdEmisor>` +
      `<IdReceptor>${first.idReceptor}</IdReceptor>${paramConsulta(first.envelope)}</Ackconsultaestadocfe>`,
  );
}
