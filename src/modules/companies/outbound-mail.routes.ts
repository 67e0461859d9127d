import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { requireActor } from '../../platform/http/tenancy.js';
import * as s from './outbound-mail.schemas.js';
import type { OutboundMailService } from './outbound-mail.service.js';

const fields =
  'Fields: `smtpHost`, `smtpPuerto`, `smtpSeguro` (TLS on connect, SMTPS; false = plain connection with STARTTLS when offered), ' +
  '`smtpUsuario` (SMTP AUTH user, null = no AUTH), `smtpClave` (write-only, stored encrypted under MASTER_KEY; responses only say `smtpClaveConfigurada`), ' +
  '`remitente` (From of every message sent for the company). ';

export function outboundMailRoutes(service: OutboundMailService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Empresa'];

    app.get('/api/v1/empresa/correoSaliente', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Company outbound mail settings (extra)',
        description: `Not in the spec (issue 7 point 5). Caller: operator or \`administrador\` of \`idEmpresa\`. ${fields}\`configurado: false\` = CFE e-mails and exchange mail (envelopes to electronic receivers, annulment notices, our ACKSobre/ACKCFE as receiver) use the service transport; configured, all of them leave through this server with this sender (issue 42 point 2). The password is never returned. 404 EMPRESA_NO_ENCONTRADA for another company.`,
        querystring: s.outboundMailQuery, response: { 200: s.outboundMailView, ...errorResponses },
      },
    }, async (req) => service.get(requireActor(req), req.query.idEmpresa));

    app.put('/api/v1/empresa/correoSaliente', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Set company outbound mail settings (extra)',
        description:
          `Not in the spec (issue 7 point 5). Caller: operator or \`administrador\` of \`idEmpresa\`. ${fields}` +
          'Replaces the settings: `smtpHost`, `smtpPuerto` and `remitente` are required; `smtpSeguro` defaults to true on port 465; `smtpClave` omitted keeps the stored password, null removes it. ' +
          '`smtpHost: null` deletes the settings (back to the service transport). Nothing is checked against the server here: use POST /api/v1/empresa/verificar-email-saliente. 400 VALIDACION on missing or malformed fields.',
        body: s.outboundMailBody, response: { 200: s.outboundMailView, ...errorResponses },
      },
    }, async (req) => {
      const { idEmpresa, ...input } = req.body;
      return service.put(requireActor(req), idEmpresa, input);
    });

    app.post('/api/v1/empresa/verificar-email-saliente', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Test outbound SMTP sending',
        description:
          'Caller: operator or `administrador` of `idEmpresa`. Sends one test message to `destinatario` (default: the company e-mail) through the company outbound settings (GET/PUT /api/v1/empresa/correoSaliente) or, without them, the service transport, and answers `transporte` (`empresa` | `servicio`) and the `messageId`. ' +
          'Any failure of the server (connection, TLS, AUTH, refused sender or recipient) is 422 SMTP_FALLO with the server reply in `error`, plus `codigoSmtp` (reply code or null) and `codigo` (nodemailer failure kind, e.g. EAUTH, ECONNECTION). ' +
          '422 DESTINATARIO_PRUEBA_REQUERIDO without destinatario when the company has no e-mail.',
        body: s.verifyOutboundBody, response: { 200: s.verifyOutboundResult, ...errorResponses, 422: errorBody.describe('SMTP_FALLO or DESTINATARIO_PRUEBA_REQUERIDO') },
      },
    }, async (req) => service.verify(requireActor(req), req.body.idEmpresa, req.body.destinatario));
  };
}
