import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { requireActor } from '../../platform/http/tenancy.js';
import { pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import type { MailboxService } from './received-cfe.mailbox.js';

const tags = ['Empresa'];
const idEmpresa = z.number().int().positive().max(PG_INT_MAX);

const mailboxView = z.object({
  idEmpresa: z.number().int(), configurado: z.boolean(), host: z.string().nullable(), puerto: z.number().int().nullable(), tls: z.boolean().nullable(),
  usuario: z.string().nullable(), claveConfigurada: z.boolean(), carpeta: z.string().nullable(), direccion: z.string().nullable(), activo: z.boolean().nullable(),
  ultimoSondeoOk: z.string().nullable(), ultimoError: z.string().nullable(), ultimoErrorEn: z.string().nullable(), ultimoUid: z.number().int().nullable(),
});

const putBody = z.union([
  z.strictObject({ idEmpresa, host: z.null() }),
  z.strictObject({
    idEmpresa,
    host: z.string().trim().min(1).max(253).describe('IMAP server.'),
    puerto: z.number().int().min(1).max(65535).optional().describe('Default 993 with tls, 143 without.'),
    tls: z.boolean().optional().describe('true: TLS on connect (IMAPS); false: plain connection upgraded with STARTTLS when the server offers it. Default true unless puerto is not 993.'),
    usuario: z.string().min(1).max(254),
    clave: z.string().min(1).max(500).optional().describe('Write-only, sealed under MASTER_KEY. Omitted keeps the stored one.'),
    carpeta: z.string().min(1).max(200).optional().describe('Folder read, default INBOX.'),
    direccion: z.string().email().max(254).nullish().describe('The mailbox\'s address: Reply-To of the envelopes this company sends to electronic receivers, so their answers come back here.'),
    activo: z.boolean().optional().describe('false stops polling without losing the settings.'),
  }),
]);

const CLASES = ['pendiente', 'sobre', 'respuesta', 'respuesta_rechazada', 'anulacion', 'sin_adjunto', 'otro', 'demasiado_grande', 'error'] as const;
const mailRow = z.object({
  uidValidity: z.number().int(), uid: z.number().int().describe('IMAP UID under uidValidity: the mail in the folder.'),
  messageId: z.string().nullable(), remitente: z.string().nullable().describe('Reply-To, else From.'), asunto: z.string().nullable(),
  clase: z.string().describe('sobre: envelope registered (idsSobre; refused ones too, answered BS); respuesta: a receiver\'s ACKSobre/ACKCFE to our CFEs, applied; respuesta_rechazada: such an answer refused (not from the CFE\'s receiver, unknown CFE, bad signature…: nothing changed, see detalle and GET /api/v1/cfeemitido/respuestasReceptor); anulacion: an issuer\'s CFEs_Anulados_x_RechazoDGI; sin_adjunto; otro: no exchange XML; demasiado_grande: XML over RECEIVED_MAX_ATTACHMENT_BYTES, not processed; error: processing failed (detalle says why; the mail stays in the folder); pendiente: being read.'),
  detalle: z.string().nullable().describe('What happened to each attachment, in words.'),
  idsSobre: z.array(z.number().int()).describe('Received envelopes registered from this mail.'),
  fechaLectura: z.string(),
});

export function mailboxRoutes(service: MailboxService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/empresa/correoEntrante/correos', {
      config: { minRole: 'lectura' },
      schema: {
        tags, summary: 'Mails read from the company inbound mailbox, with their outcome',
        description: 'Not in the spec (issue 42 point 5). Every mail the service read from the company\'s mailbox (IMAP IDLE as soon as the server announces it, plus the every-minute poll), newest first, with what came of it, so a skipped mail is never invisible. Filter `clase`; paging `start`, `length`. Role lectura of `idEmpresa`; another company\'s log is 404.',
        querystring: pagingQuery.extend({ idEmpresa: z.coerce.number().int().positive().max(PG_INT_MAX), clase: z.enum(CLASES).optional() }),
        response: { 200: pagedResponse(mailRow), ...errorResponses },
      },
    }, async (req) => {
      const { start, length, ...q } = req.query;
      return service.mailLog(requireActor(req), q, { start, length });
    });

    app.get('/api/v1/empresa/correoEntrante', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Company inbound mailbox (IMAP) settings',
        description: 'Not in the spec (issue 30 point 1). Caller: operator or `administrador` of `idEmpresa`. The password is never returned (`claveConfigurada`). `ultimoSondeoOk`, `ultimoError` and `ultimoUid` tell how reading goes (an IMAP IDLE connection reads new mail as soon as the server announces it, RECEIVED_MAILBOX_IDLE; the every-minute poll is the fallback; by UID under the folder\'s UIDVALIDITY). Every mail read and its outcome: GET /api/v1/empresa/correoEntrante/correos.',
        querystring: z.object({ idEmpresa: z.coerce.number().int().positive().max(PG_INT_MAX) }), response: { 200: mailboxView, ...errorResponses },
      },
    }, async (req) => service.get(requireActor(req), req.query.idEmpresa));

    app.put('/api/v1/empresa/correoEntrante', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Set company inbound mailbox (IMAP) settings',
        description: 'Not in the spec (issue 30 point 1). Replaces the settings; `host: null` deletes them. Every mail in the folder is read once (envelopes EnvioCFE_entreEmpresas are registered as received CFEs and answered; ACKSobre/ACKCFE for the company\'s own issued CFEs are applied; CFEs_Anulados_x_RechazoDGI notices void received CFEs; anything else is recorded and ignored). Changing server, user or folder restarts the cursor. Nothing is checked against the server here: use POST /api/v1/empresa/verificar-email-entrante. 422 CORREO_ENTRANTE_CLAVE_REQUERIDA without a password to keep.',
        body: putBody, response: { 200: mailboxView, ...errorResponses, 422: errorBody },
      },
    }, async (req) => {
      const { idEmpresa: id, ...input } = req.body;
      return service.put(requireActor(req), id, input as Parameters<MailboxService['put']>[2]);
    });

    app.post('/api/v1/empresa/verificar-email-entrante', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Test inbound mail reception',
        description: 'Logs in to the company\'s mailbox, opens its folder and reports what it found: `mensajes` (messages in the folder), `uidValidity`, the last UID processed and the last successful poll. A failure is 422 CORREO_ENTRANTE_FALLO with the reason in words and `tipoFallo`: autenticacion (bad user or password), conexion (unknown host, refused, timeout), tls, carpeta (folder missing), otro. 404 CORREO_ENTRANTE_NO_CONFIGURADO without settings.',
        body: z.strictObject({ idEmpresa }),
        response: { 200: z.object({ ok: z.boolean(), carpeta: z.string(), mensajes: z.number().int(), uidValidity: z.number().int(), ultimoUidProcesado: z.number().int(), ultimoSondeoOk: z.string().nullable() }), ...errorResponses, 422: errorBody },
      },
    }, async (req) => service.verify(requireActor(req), req.body.idEmpresa));
  };
}
