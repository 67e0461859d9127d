import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { pagedResponse } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './receiver-exchange.schemas.js';
import type { ReceiverExchangeService } from './receiver-exchange.service.js';

const tags = ['CFE emitido'];

const GENERATE = `Envelope for an electronic receiver (BRIEF 5 and 8): \`EnvioCFE_entreEmpresas\` with Caratula (RutReceptor = the receiver's RUC, RUCEmisor, Idemisor = a unique increasing number, CantCFE, Fecha, X509Certificate = the company's active certificate) and one \`CFE_Adenda\` per CFE: the signed CFE byte for byte plus its Adenda (text sent at emission). Validated against DGI's EnvioCFE_entreEmpresas.xsd before it is returned.

Answer 200: the XML (application/xml, attachment \`Sob_<RUC>_<AAAAMMDD>_<Idemisor>.xml\`), header \`x-id-sobre\` = Idemisor (quote it when the receiver's ACKSobre comes back).

Only CFEs DGI already has go to a receiver (BRIEF 1, FSOB §1: each CFE is sent to DGI before it goes to the electronic receiver; DGI's authorisation need not be awaited): DGI state \`sobre_recibido\` (ACKSobre AS), \`aceptado\` or \`aceptado_manual\`. A CFE DGI rejected (\`rechazado\`) is annulled (BRIEF 10) and is never delivered as valid.

With \`enviarPorCorreo: true\` (role emisor) it is also e-mailed (background job, retried; through the company's own SMTP server and sender when \`/empresa/correoSaliente\` is configured, else the service's SMTP_URL, else only written to the service's outbox; the CFE history records which and whether it was sent, queued or failed and why) to the customer's \`emailIntercambio\` (else the MAIL of DGI's registry of electronic issuers, else \`email\`) and the CFEs become \`estado_receptor = receptor_pendiente\`. Without it nothing changes (role lectura). The service also sends automatically: every minute, unsent CFEs (last RECEIVER_EXCHANGE_MAX_AGE_DAYS days) of customers that are electronic issuers (DGI's registry lists their RUT, or they are flagged \`emisorElectronico\`) go out in one envelope per receiver as soon as DGI has them.

Errors: 404 CFE_NO_ENCONTRADO_SOBRE (an id missing or of another company); 409 SOBRE_RECEPTOR_RECHAZADO_DGI (a CFE DGI rejected: annulled; \`idsCfe\` = the offending ids), SOBRE_RECEPTOR_SIN_DGI (a CFE DGI has not received yet: \`firmado\`, \`en_cola_dgi\`, \`sobre_rechazado\`; \`idsCfe\`); 422 SOBRE_RECEPTOR_CFC (contingency CFC 2xx are never sent to the receiver, only to DGI), SOBRE_RECEPTOR_SIN_RUC (receiver not identified by RUT), SOBRE_RECEPTOR_MEZCLADO (more than one receiver), SOBRE_RECEPTOR_NO_ELECTRONICO (with enviarPorCorreo: the customer is neither flagged \`emisorElectronico\` nor an active issuer in DGI's registry, or the registry was never synced; \`idCliente\`, \`registroSincronizado\`), SOBRE_RECEPTOR_SIN_CLIENTE (the receiver RUT is no customer of the company), SOBRE_RECEPTOR_SIN_CORREO (an electronic issuer without any exchange address), SIN_CERTIFICADO_SOBRE, SOBRE_RECEPTOR_INVALIDO (XSD; \`errores\`).`;

const ACK = `Uploads a receiver's answer (BRIEF 8), JSON \`{ idEmpresa, xml }\` with the document as received: \`ACKSobre\` (envelope receipt: AS → the envelope becomes \`recibido\`; BS → \`rechazado\` with S01-S07/S20) or \`ACKCFE\` per ACKCFE_Partes.xsd (per CFE: AE → \`receptor_aceptado\`, BE → \`receptor_rechazado\` with E02-E07/E10-E12/E20-E60; CE → \`receptor_observado\`, accepted although the XSD enumerates only AE/BE, because spec 6 #11 defines the event). Receiver outcomes are tracked apart from DGI's (\`estadoReceptor\`): a receiver's rejection never voids the CFE; correct it with a credit/debit note.

Checks: XSD (ACKSobre.xsd / ACKCFE_Partes.xsd); enveloped XMLDSig verified with the certificate in its KeyInfo, whose subject RUC (if any) must be Caratula/RUCReceptor; RUCEmisor = the company's RUT; each ACKCFE_Det matched by RUC + TipoCFE + Serie + NroCFE; **only the receiver's word counts**: Caratula/RUCReceptor must be the receiver (RUT) of every CFE the ACKCFE names, and for an ACKSobre the RutReceptor of the envelope it answers (another company's answer, even properly signed by it, is refused with 422 RESPUESTA_RECEPTOR_NO_ES_RECEPTOR). A refused answer that verified is still stored with \`estado: rechazada\`, its code and words (nothing changes, no event): the error body carries its \`idRespuesta\` and \`enlace\`, and it is listed in GET respuestasReceptor and the issued CFE's exchange view. Every result names the stored answer (\`idRespuesta\`, \`enlace\` to download it). The same checks apply to answers arriving in the company's inbound mailbox (\`/empresa/correoEntrante\`). All or nothing, in one transaction: state, \`issued_cfe_state_history\` rows (lado \`receptor\`, codigo/motivos, referencia \`respuestaReceptor:<idRespuesta>\`) and outbox events \`Cfe.RechazadoReceptor\` / \`Cfe.ObservadoReceptor\` (docs/EVENTS.md). Uploading the same answer again changes nothing (\`cambio: false\`).

Errors: 422 RESPUESTA_RECEPTOR_INVALIDA (not an ACK, XSD; \`errores\`), RESPUESTA_RECEPTOR_FIRMA, RESPUESTA_RECEPTOR_OTRA_EMPRESA, RESPUESTA_RECEPTOR_NO_ES_RECEPTOR (RUCReceptor is not the CFE's / envelope's receiver; \`idCfe\`, \`rutReceptorCfe\` or \`rutReceptorSobre\`, \`rutRespuesta\`), RESPUESTA_RECEPTOR_SIN_CFE, RESPUESTA_RECEPTOR_SIN_SOBRE; 409 RESPUESTA_RECEPTOR_TRANSICION (contradicts a final answer already stored, e.g. BE after AE); 403 SIN_PERMISO (role lectura).`;

const NOTICE = `A stored annulment notice to an electronic receiver (BRIEF 8): \`CFEs_Anulados_x_RechazoDGI\` (Caratula RUCEmisor, RUCReceptor, IDComunicacion = this id, CantCFEAnulados, Tmst; one CFEAnulado per CFE with TipoCFE, Serie, NroCFE, FechaCFE = FchEmis, Motivo_Cod RD, Motivo_Glosa "Comprobante anulado por rechazo de DGI"; enveloped XMLDSig with the company certificate, also in KeyInfo), valid against DGI's XSD. Not sent to DGI.

The service builds them by itself: every minute, each CFE that went to a receiver in an envelope it e-mailed and that DGI then rejected (annulled, BRIEF 10) is put in exactly one notice, grouped per receiver RUT (up to 250 CFEs), and e-mailed to the address the envelope went to (background job, retried), file name \`Rech_<RUCEmisor>_<IDComunicacion>.xml\`. Envelopes only returned by generarSobreReceptor (not e-mailed) give no notice.

Answer 200: the XML (application/xml, attachment with that file name), headers \`x-estado\` (pendiente, enviado, error) and \`x-ids-cfe\` (comma-separated issued-CFE ids). Errors: 404 AVISO_ANULACION_NO_ENCONTRADO (unknown, or another company's).`;

const VIEW = 'The issuer\'s side of the exchange with electronic receivers (issue 42 point 4; not in the spec). Role lectura of `idEmpresa`; another company\'s rows are never listed and its ids answer 404.';

export function receiverExchangeRoutes(service: ReceiverExchangeService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/cfeemitido/sobresReceptor', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Envelopes sent to electronic receivers', querystring: s.envelopesQuery, response: { 200: pagedResponse(s.envelopeView), ...errorResponses },
        description: `${VIEW} Every EnvioCFE_entreEmpresas the company produced, newest first: to whom (\`rutReceptor\`, \`email\`), how (\`medio\` correo or descarga; \`transporte\` empresa/servicio/outbox), when (\`fechaCreacion\`, \`fechaEnvio\`), the mail's \`estado\`, attempts and last error, the receiver's ACKSobre outcome with its S-codes, the ACKSobre answers received for it (\`respuestas\`, refused ones included) and the download path. Filters: \`estado\`, \`rutReceptor\`, \`idCfe\`. Paging \`start\`, \`length\`.`,
      },
    }, async (req) => {
      const { start, length, ...q } = req.query;
      return service.listEnvelopes(requireActor(req), q, { start, length });
    });

    app.get('/api/v1/cfeemitido/respuestasReceptor', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Answers received from electronic receivers', querystring: s.answersQuery, response: { 200: pagedResponse(s.answerView), ...errorResponses },
        description: `${VIEW} Every ACKSobre / ACKCFE the company received that verified (uploaded with POST respuestaReceptor or read from its inbound mailbox), newest first: \`canal\`, who answered (\`rutReceptor\`), about which envelope / CFEs, \`estado\` aplicada or rechazada (with \`codigo\` and \`error\`: e.g. RESPUESTA_RECEPTOR_NO_ES_RECEPTOR for an answer from someone who is not the receiver), and the download path. Documents that are not a readable, validly signed ACK are not stored here; a mailed one shows in GET /api/v1/empresa/correoEntrante/correos. Filters: \`estado\`, \`canal\`, \`tipo\`, \`idSobre\`, \`idCfe\`. Paging \`start\`, \`length\`.`,
      },
    }, async (req) => {
      const { start, length, ...q } = req.query;
      return service.listAnswers(requireActor(req), q, { start, length });
    });

    app.get('/api/v1/cfeemitido/:id/intercambio', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Exchange with the receiver of one issued CFE', params: s.idParams, response: { 200: s.cfeExchange, ...errorResponses },
        description: `${VIEW} For issued CFE \`id\`: its \`estadoReceptor\`, the envelopes that carried it (with their ACKSobre answers), the answers that name it (ACKSobre of its envelopes and ACKCFE, refused ones included) and the annulment notices (CFEs_Anulados_x_RechazoDGI) that announced it, oldest first. 404 CFE_NO_ENCONTRADO_SOBRE (unknown or another company's).`,
      },
    }, async (req) => service.ofCfe(requireActor(req), req.params.id));

    app.get('/api/v1/cfeemitido/sobreReceptor/:id', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Download an envelope sent to a receiver', params: s.idParams, response: { ...errorResponses }, description: `${VIEW} The stored EnvioCFE_entreEmpresas byte for byte (application/xml, attachment with its file name); headers \`x-estado\` and \`x-ids-cfe\`. 404 SOBRE_RECEPTOR_NO_ENCONTRADO.` },
    }, async (req, reply) => {
      const env = await service.envelopeXml(requireActor(req), req.params.id);
      return reply.type('application/xml; charset=utf-8').header('content-disposition', `attachment; filename="${env.fileName}"`)
        .header('x-estado', env.estado).header('x-ids-cfe', env.cfeIds.join(',')).send(env.xml as never);
    });

    app.get('/api/v1/cfeemitido/respuestaReceptor/:id', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Download an answer received from a receiver', params: s.idParams, response: { ...errorResponses }, description: `${VIEW} The ACKSobre / ACKCFE as received (application/xml); headers \`x-estado\` (aplicada, rechazada), \`x-tipo\` and \`x-canal\`. 404 RESPUESTA_RECEPTOR_NO_ENCONTRADA.` },
    }, async (req, reply) => {
      const ack = await service.answerXml(requireActor(req), req.params.id);
      return reply.type('application/xml; charset=utf-8').header('content-disposition', `attachment; filename="${ack.tipo}_${ack.rutReceptor}_${ack.id}.xml"`)
        .header('x-estado', ack.estado).header('x-tipo', ack.tipo).header('x-canal', ack.canal).send(ack.xml as never);
    });

    app.post('/api/v1/cfeemitido/generarSobreReceptor', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Generate envelope for the receiver', description: GENERATE, body: s.generateBody, response: { ...errorResponses, 409: errorBody, 422: errorBody } },
    }, async (req, reply) => {
      const env = await service.generate(requireActor(req), req.body);
      return reply
        .type('application/xml; charset=utf-8')
        .header('content-disposition', `attachment; filename="${env.fileName}"`)
        .header('x-id-sobre', String(env.id))
        .send(env.xml as never);
    });

    app.post('/api/v1/cfeemitido/respuestaReceptor', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Upload a receiver answer (ACKSobre / ACKCFE)', description: ACK, body: s.ackBody, response: { 200: s.ackResult, ...errorResponses, 409: errorBody, 422: errorBody } },
    }, async (req) => service.applyAck(requireActor(req), req.body));

    app.get('/api/v1/cfeemitido/avisoAnulacionReceptor/:id', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Annulment notice sent to a receiver (CFEs_Anulados_x_RechazoDGI)', description: NOTICE, params: s.noticeParams, response: { ...errorResponses } },
    }, async (req, reply) => {
      const notice = await service.getNotice(requireActor(req), req.params.id);
      return reply
        .type('application/xml; charset=utf-8')
        .header('content-disposition', `attachment; filename="${notice.fileName}"`)
        .header('x-estado', notice.estado)
        .header('x-ids-cfe', notice.cfeIds.join(','))
        .send(notice.xml as never);
    });
  };
}
