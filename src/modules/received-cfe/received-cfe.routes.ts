import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './received-cfe.schemas.js';
import type { ReceivedCfeService } from './received-cfe.service.js';

const tags = ['CFE recibido'];

const IMPORT = `Registers a document another issuer sent the company (BRIEF 8), the same pipeline the mailbox poller feeds: an \`EnvioCFE_entreEmpresas\` envelope (as attached to the issuer's mail) or one signed CFE. Role emisor.

Envelope checks, answered with our signed **ACKSobre** (stored, and e-mailed to \`emailRespuesta\` when given): S07 over 2 MB; S01 not XML, a DOCTYPE or entity declaration (never expanded), another root; S04 EnvioCFE_entreEmpresas.xsd; S02 RutReceptor is not the company's RUT, or the certificate or a CFE names another issuer; S05 CantCFE differs from the CFEs carried; S03 the Caratula certificate does not parse or was not valid on the envelope's date; S06 a CFE signed with another certificate; S20 an envelope of this issuer with this Idemisor was already accepted. A BS envelope registers no CFE.

Per CFE of an AS envelope: CFEDGI.xsd (E05), its XMLDSig against the Caratula certificate (E04), the company as its receiver (E05), and duplicates by issuer RUC + type + serie + number (E02). A CFE failing them is stored as \`rechazado_formato\` or \`duplicado\` and answered at once with a signed **ACKCFE** BE; the others are \`pendiente\` until \`aceptar\` / \`rechazar\`. Every check and its result is in \`verificaciones\`. Event \`CfeRecibido.Registrado\` per CFE.

Every result lists our signed answers for the envelope in \`respuestas\` (id, tipo, archivo, estado, email, transporte, \`enlace\` = GET /api/v1/cferecibido/respuesta/{id}), refused (BS) envelopes included. Idempotent: the same bytes again answer 200 with what was stored and \`sobre.repetido: true\` (nothing new is stored or answered); when the repeat gives \`emailRespuesta\`, the stored answers not yet sent (or queued) to that address are e-mailed there, and the envelope without an address takes it for later decisions. Answers leave through the company's own SMTP server and sender when \`/empresa/correoSaliente\` is configured, else the service's. **One signed CFE without its envelope** (e.g. a supplier's XML kept apart from the mail): DGI's answers name an envelope (ACKSobre and ACKCFE_Partes.xsd require IDEmisor, NomArch, CantenSobre), so the CFE is registered under an envelope record of its own, \`sobre.sinSobre: true\` (the uploaded bytes kept, no Idemisor). Checks: CFEDGI.xsd (E05), its XMLDSig (E04) against the certificate in its KeyInfo or, since DGI's CFEs name theirs only by X509IssuerSerial (BRIEF 3), the matching Caratula certificate of an envelope this issuer already sent the company (none: 422, upload the envelope instead), the company as receiver. No ACKSobre is made (no envelope was received). Each decision (\`aceptar\` / \`rechazar\`) makes a signed ACKCFE with IDEmisor 0 and NomArch = \`nombreArchivo\` (or \`CFE_<RUC>_<tipo>_<serie><número>.xml\`): issuers match it per CFE by type, serie and number (as this service's own receiver side does). It is e-mailed to \`emailRespuesta\` when the upload gives one (the issuer's exchange address), otherwise kept for download from \`GET /api/v1/cferecibido/respuesta/{id}\` (listed in \`respuestas\` of \`GET /api/v1/cferecibido/{id}\`) to hand over by whatever channel the parties agree. A CFE failing its format checks is refused with 422 DOCUMENTO_RECIBIDO_INVALIDO, and one the company already has (issuer RUC + type + serie + number) with 409 CFE_RECIBIDO_YA_REGISTRADO (\`idCfeRecibido\` names it): nothing is stored and the issuer, who sent nothing twice, gets no E02. If its envelope arrives later by mail, that copy is the duplicate (E02 in the envelope's ACKCFE) and the decision already made stands.`;

const DECIDE = (what: string) => `${what} One call takes 1..250 ids of one company and answers a result per id: \`hecho\`, \`ya_decidido\` (the same decision was already made: nothing changes), \`no_permitido\` (only \`pendiente\` CFEs can be decided; \`estado\` says the current one), \`no_encontrado\` (unknown, or another company's). The HTTP status is 200 whenever the request itself is valid; read \`resultados\`. For the CFEs decided, one signed ACKCFE (ACKCFE_Partes.xsd) per envelope goes back to the issuer (e-mail job) and events are recorded. Header \`Idempotency-Key\`: a retry with the same key and body replays the first answer (\`repetida: true\`); the same key with another body is 409 IDEMPOTENCIA_CONFLICTO_RECIBIDO. Role emisor.`;

const idemHeader = { headers: z.object({ 'idempotency-key': z.string().min(1).max(200).optional() }).passthrough() };

export function receivedCfeRoutes(service: ReceivedCfeService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/v1/cferecibido/importar', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Import a received envelope or CFE', description: IMPORT, body: s.importBody, response: { 200: s.importResult, ...errorResponses, 409: errorBody, 422: errorBody } },
    }, async (req) => service.importar(requireActor(req), req.body));

    app.get('/api/v1/cferecibido/:id', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Get received CFE by id', description: 'The received CFE with its checks, state history, our answers to the issuer and `importadoStock` (the stock reference recorded by marcarComoImportadoStock, or null). Another company\'s is 404.', params: s.idParams, response: { 200: s.receivedCfeDetail, ...errorResponses } },
    }, async (req) => service.get(requireActor(req), req.params.id));

    app.get('/api/v1/cferecibido/:id/xml', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Signed XML of a received CFE', description: 'The CFE as received and verified (standalone document, its signature intact).', params: s.idParams, response: { ...errorResponses } },
    }, async (req, reply) => {
      const doc = await service.xml(requireActor(req), req.params.id);
      return reply.type('application/xml; charset=utf-8').header('content-disposition', `attachment; filename="${doc.fileName}"`).send(doc.xml as never);
    });

    app.get('/api/v1/cferecibido/respuesta/:id', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'One of our signed answers (ACKSobre / ACKCFE)', description: 'The signed answer as sent (or to be sent) to the issuer; headers x-estado (pendiente, enviado, error, sin_destino, sin_certificado) and x-tipo.', params: s.idParams, response: { ...errorResponses } },
    }, async (req, reply) => {
      const a = await service.answer(requireActor(req), req.params.id);
      return reply.type('application/xml; charset=utf-8').header('content-disposition', `attachment; filename="${a.fileName}"`).header('x-estado', a.estado).header('x-tipo', a.tipo).send(a.xml as never);
    });

    app.post('/api/v1/cferecibido/aceptar', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Accept received CFE', description: DECIDE('Accepts received CFEs (ACKCFE Estado AE).'), body: s.acceptBody, ...idemHeader, response: { 200: s.decisionResult, ...errorResponses, 409: errorBody, 422: errorBody } },
    }, async (req) => service.decide(requireActor(req), req.body, 'aceptar', req.headers['idempotency-key'] as string | undefined));

    app.post('/api/v1/cferecibido/rechazar', {
      config: { minRole: 'emisor' },
      schema: { tags, summary: 'Reject received CFE', description: DECIDE('Rejects received CFEs with one motive from DGI\'s table (ACKCFE Estado BE): an unknown code is 422 MOTIVO_RECHAZO_INVALIDO, E27-E60 without glosa 422 MOTIVO_RECHAZO_SIN_GLOSA. A receiver\'s rejection does not void the CFE (Res. 798/2012 num. 12): the issuer corrects it with a note.'), body: s.rejectBody, ...idemHeader, response: { 200: s.decisionResult, ...errorResponses, 409: errorBody, 422: errorBody } },
    }, async (req) => service.decide(requireActor(req), req.body, 'rechazar', req.headers['idempotency-key'] as string | undefined));
  };
}
