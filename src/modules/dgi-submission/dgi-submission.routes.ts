import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { pagedResponse } from '../../platform/http/paging.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './dgi-submission.schemas.js';
import type { DgiSubmissionService } from './dgi-submission.service.js';

const STATES_DOC = `DGI states of an issued CFE (\`estado\`, emission/cfe-states.ts): \`firmado\` (signed, waiting for an envelope) → \`en_cola_dgi\` (in an envelope, sending) → \`sobre_recibido\` (ACKSobre AS) or \`sobre_rechazado\` (BS, S-code) → \`aceptado\` (AE), \`rechazado\` (BE, E-codes; the number is voided except E02/E09) or \`observado\` (CE, contingency CFC only); \`aceptado_manual\` (marcar-aceptado). Receiver states (\`estadoReceptor\`): \`receptor_pendiente\`, \`receptor_aceptado\`, \`receptor_rechazado\`, \`receptor_observado\`, null when the receiver is not an electronic issuer.`;

const HISTORY_DOC = `**Response 200**: \`id\`, \`estado\`, \`estadoReceptor\`, \`historial[]\` oldest first (the first entry is \`firmado\` at signing time): \`lado\` (dgi | receptor), \`estadoAnterior\`, \`estado\`, \`codigo\` (AS, BS, AE, BE, CE, MANUAL or DGI's first S/E/C code), \`motivos[]\` {\`codigo\`, \`glosa\`, \`detalle\`}, \`mensaje\`, \`referencia\` (\`sobre:<id> IDReceptor:<n>\`), \`idUsuario\` and \`motivo\` (manual changes), \`fecha\`.`;

export function dgiSubmissionRoutes(service: DgiSubmissionService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/v1/cfeemitido/generarSobreDgi', {
      config: { minRole: 'emisor' },
      schema: {
        tags: ['CFE emitido'], summary: 'Generate the DGI envelope (EnvioCFE) for issued CFEs',
        description: `Body \`{ idEmpresa, idsCfe: [1..250 issued CFE ids] }\`. Returns the \`EnvioCFE\` (BRIEF 5; FSOB) as \`application/xml\` attachment named \`Sob_<RUC>_<AAAAMMDD>_<Idemisor>.xml\`, header \`x-id-sobre\` when it is an envelope the submission worker built. When the ids are exactly the CFEs of one envelope already built by the worker, the stored bytes are returned (the envelope DGI received). Otherwise a new envelope is built with the next Idemisor of the company (never reused), the signed CFEs embedded byte for byte, validated against DGI's EnvioCFE XSD; it is not sent (for manual upload in DGI's portal: uploading CFEs the worker also sends gives E02 at DGI). Role emisor.

A new envelope takes only CFEs that may still go to DGI: \`firmado\`, \`en_cola_dgi\` (e.g. its envelope is stuck in \`error\` or \`duplicado\`), \`sobre_rechazado\` (DGI never processed it) and \`observado\` (a corrected CFC). It refuses \`rechazado\` (the number is annulled and can never be used again, BRIEF 10: DGI would answer E01) and \`aceptado\`, \`aceptado_manual\`, \`sobre_recibido\` (DGI already has it: a duplicate, E02). Downloading the stored envelope of those CFEs (the ids are exactly its items) is still allowed: it is what DGI already received, same Idemisor.

Errors: 404 SOBRE_CFE_NO_ENCONTRADO (an id missing or of another company), 409 SOBRE_CFE_ANULADO (DGI-rejected CFEs; \`idsCfe\` = the offending ids, in the order of the request), SOBRE_CFE_YA_EN_DGI (accepted or received by DGI; \`idsCfe\`), 422 SOBRE_CANTIDAD_INVALIDA, SOBRE_TAMANO_EXCEDIDO (over 2 MB), SOBRE_XML_INVALIDO, SOBRE_SIN_CERTIFICADO; 403 SIN_PERMISO (role lectura).`,
        body: s.generarSobreBody,
        response: { ...errorResponses, 409: errorBody, 422: errorBody },
      },
    }, async (req, reply) => {
      const { xml, fileName, idSobre } = await service.generateEnvelope(requireActor(req), req.body.idEmpresa, req.body.idsCfe);
      if (idSobre !== null) reply.header('x-id-sobre', String(idSobre));
      return reply.type('application/xml; charset=utf-8').header('content-disposition', `attachment; filename="${fileName}"`).send(xml as never);
    });

    app.get('/api/v1/cfeemitido/:id/estados', {
      config: { minRole: 'lectura' },
      schema: {
        tags: ['CFE emitido'], summary: 'State and state history of an issued CFE',
        description: `${STATES_DOC}\n\n${HISTORY_DOC}\n\nAnother company's CFE answers 404 SOBRE_CFE_NO_ENCONTRADO.`,
        params: s.cfeIdParams, response: { 200: s.historyResponse, ...errorResponses },
      },
    }, async (req) => service.history(requireActor(req), req.params.id));

    app.post('/api/v1/cfeemitido/:id/marcar-aceptado', {
      config: { minRole: 'emisor' },
      schema: {
        tags: ['CFE emitido'], summary: 'Manually mark an issued CFE as accepted by DGI',
        description: `Body \`{ motivo }\` (required, 3-500 chars). For a CFE DGI has not answered yet (states firmado, en_cola_dgi, sobre_recibido, sobre_rechazado), e.g. accepted through DGI's portal: moves it to \`aceptado_manual\` and writes a history entry with the user id and the motivo; the worker then never sends it (if it is already in an envelope, DGI's later answer no longer changes it). Role administrador.\n\n${HISTORY_DOC}\n\nErrors: 409 MARCAR_ACEPTADO_ESTADO (already aceptado, rechazado, observado or aceptado_manual); 400 VALIDACION (motivo missing); 403 SIN_PERMISO; 404 SOBRE_CFE_NO_ENCONTRADO.`,
        params: s.cfeIdParams, body: s.marcarAceptadoBody, response: { 200: s.historyResponse, ...errorResponses, 409: errorBody },
      },
    }, async (req) => service.markAccepted(requireActor(req), req.params.id, req.body.motivo));

    app.get('/api/v1/sobredgi', {
      config: { minRole: 'lectura' },
      schema: {
        tags: ['Sobres DGI'], summary: 'Envelopes sent to DGI',
        description: `The company's DGI envelopes, newest first. \`estado\`: creado (built, being sent; \`intentosEnvio\`, \`proximoIntento\`, \`errorMensaje\` show transient failures), recibido (ACKSobre AS; polled from \`consultarDesde\`), procesado (ACKCFE applied), rechazado (ACKSobre BS/BA, \`errorCodigo\` = S-code), duplicado (S08 / fault 108: DGI already had this Idemisor; its CFEs stay en_cola_dgi), error (permanent failure or retries exhausted; \`errorCodigo\` FALLA, RESPUESTA_INVALIDA, REINTENTOS_AGOTADOS, CONSULTAS_AGOTADAS or a DGI fault code). Paging \`start\`, \`length\`.`,
        querystring: s.envelopesQuery, response: { 200: pagedResponse(s.envelopeView), ...errorResponses },
      },
    }, async (req) => service.listEnvelopes(req.query.idEmpresa, req.query) as never);

    app.get('/api/v1/sobredgi/:id', {
      config: { minRole: 'lectura' },
      schema: {
        tags: ['Sobres DGI'], summary: 'One DGI envelope', description: 'The envelope (fields as in the list) plus `idsCfe` in envelope order. Another company\'s envelope answers 404 SOBRE_NO_ENCONTRADO.',
        params: s.envelopeIdParams, response: { 200: s.envelopeView.extend({ idsCfe: z.array(z.number().int()) }), ...errorResponses },
      },
    }, async (req) => service.getEnvelope(requireActor(req), req.params.id) as never);

    app.get('/api/v1/empresa/envioDgi', {
      config: { minRole: 'lectura' },
      schema: {
        tags: ['Sobres DGI'], summary: 'Which CFEs the company sends individually to DGI',
        description: "`envioIndividual`: 'todos' (default: every CFE and CFC goes to DGI in envelopes) or 'obligatorios' (BRIEF 1: e-Tickets and their notes, 101-103 and 131-133, at or below 5,000 UI go only in the daily report; everything else is sent).",
        querystring: s.settingsQuery, response: { 200: s.settingsResponse, ...errorResponses },
      },
    }, async (req) => service.getSettings(req.query.idEmpresa));

    app.put('/api/v1/empresa/envioDgi', {
      config: { minRole: 'administrador' },
      schema: {
        tags: ['Sobres DGI'], summary: 'Set which CFEs the company sends individually to DGI',
        description: "Body `{ idEmpresa, envioIndividual: 'todos' | 'obligatorios' }` (see GET). Applies to CFEs not yet in an envelope. Role administrador (403 SIN_PERMISO otherwise).",
        body: s.settingsBody, response: { 200: s.settingsResponse, ...errorResponses },
      },
    }, async (req) => service.putSettings(requireActor(req), req.body.idEmpresa, req.body.envioIndividual));
  };
}
