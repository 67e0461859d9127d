import { z } from 'zod';
import { errors } from '../../lib/errors.js';
import type { ValidationErrorMapper } from '../../platform/http/error-handler.js';
import { positiveInt4 } from '../../platform/http/numbers.js';
import { pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import { deliveryStatuses } from './webhooks.tables.js';
import { MAX_ATTEMPTS_LIMIT } from './retry-policy.js';
import { webhookErrors } from './webhooks.errors.js';

const REQUIRED = 'requerido';
const requiredWhenMissing = (iss: { input?: unknown }) => (iss.input === undefined ? REQUIRED : undefined);

const headersField = z.record(z.string().min(1).max(100), z.string().max(1000))
  .describe('Extra headers sent with every delivery. Names are RFC 7230 tokens (no spaces); values visible ASCII, space or tab (no CR, LF, NUL). Content-Type, Content-Length, Host, Idempotency-Key, webhook-* and the hop-by-hop headers (Connection, Transfer-Encoding, Keep-Alive, Upgrade, Expect, TE, Trailer) are reserved. Values are shown only to administradores; other roles see `********`.')
  .meta({ example: { 'X-Api-Key': 'abc123' } });
const eventNames = z.array(z.string().max(100)).max(50);

export const createWebhookBody = z.object({
  name: z.string().max(200).optional().describe('Label.'),
  url: z.string({ error: requiredWhenMissing }).min(1, { error: REQUIRED }).max(2000).describe('Receiver address (http or https).').meta({ example: 'https://erp.example.com/hooks/cfe' }),
  events: z.array(z.string().max(100), { error: requiredWhenMissing }).min(1, { error: REQUIRED }).max(50).describe('Subscribed event names from the catalogue.').meta({ example: ['Cfe.Emitido', 'OrdenDeVenta.Finalizada'] }),
  enabled: z.boolean().optional().describe('Whether the endpoint receives deliveries. Default true.'),
  secret: z.string().min(8).max(200).optional().describe('Enables HMAC-SHA256 signing (Standard Webhooks). A `whsec_<base64>` secret is base64-decoded and must give at least 24 bytes (else 400 `WEBHOOK_SECRETO_INVALIDO`); any other secret is used as UTF-8 bytes.'),
  headers: headersField.optional(),
  maxAttempts: z.number().int().min(1).max(MAX_ATTEMPTS_LIMIT).optional().describe(`Maximum attempts per delivery, 1..${MAX_ATTEMPTS_LIMIT}. Default 8 (spec 8.1).`),
});

export const updateWebhookBody = z.object({
  name: z.string().max(200).nullable().optional(),
  url: z.string().min(1).max(2000).optional(),
  events: eventNames.min(1).optional(),
  enabled: z.boolean().optional(),
  secret: z.string().min(8).max(200).nullable().optional().describe('New secret; null removes signing.'),
  headers: headersField.optional().describe('Replaces the extra headers.'),
  maxAttempts: z.number().int().min(1).max(MAX_ATTEMPTS_LIMIT).optional(),
});

/** Spec 7.1 / 7.2: the registration 400s say exactly "url and events are required" or "payload empty or invalid". */
export const mapRegistrationError: ValidationErrorMapper = (fields, context) => {
  const summary = fields.map((f) => `${f.campo}: ${f.mensaje}`).join('; ');
  if (context !== 'body') return errors.VALIDACION(`Datos inválidos: ${summary}`, { campos: fields });
  if (fields.length === 0 || fields.some((f) => f.campo === 'body')) return webhookErrors.WEBHOOK_PAYLOAD_INVALIDO();
  if (fields.some((f) => (f.campo === 'url' || f.campo === 'events') && f.mensaje === REQUIRED)) return webhookErrors.WEBHOOK_CAMPOS_REQUERIDOS();
  return webhookErrors.WEBHOOK_PAYLOAD_INVALIDO(`El payload no es válido: ${summary}`, { campos: fields });
};

export const companyQuery = z.object({
  idEmpresa: positiveInt4.optional().describe('Company of the endpoint; needed when the caller has access to more than one company.'),
});
export const listQuery = pagingQuery.extend({ idEmpresa: positiveInt4.describe('Company whose endpoints to list.') });
export const idParams = z.object({ id: positiveInt4 });
/** Delivery ids are bigint: any positive safe integer. */
export const deliveryParams = idParams.extend({ idEntrega: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

export const webhookView = z.object({
  id: z.number().int(),
  idEmpresa: z.number().int(),
  name: z.string().nullable(),
  url: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  hasSecret: z.boolean().describe('Whether deliveries are signed. The secret itself is never returned (except by rotar-secreto).'),
  headers: z.record(z.string(), z.string()).describe('Extra headers; values are `********` unless the caller is administrador of the company (or an operator).'),
  maxAttempts: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const webhooksPage = pagedResponse(webhookView);
export const rotatedSecret = z.object({ id: z.number().int(), secret: z.string().describe('The new secret, shown only in this response.') });

export const attemptView = z.object({
  number: z.number().int().describe('1-based, over the whole life of the delivery (re-deliveries continue the count).'),
  time: z.string().describe('When the request was sent.'),
  statusCode: z.number().int().nullable().describe('HTTP status of the answer; null on timeout or network error.'),
  durationMs: z.number().int(),
  error: z.string().nullable().describe('Timeout or network error text.'),
  responseExcerpt: z.string().nullable().describe('First 1024 characters of the response body.'),
  outcome: z.enum(['entregado', 'reintento', 'fallido', 'agotado']),
});
export const deliveryView = z.object({
  id: z.number().int(),
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(deliveryStatuses).describe('pendiente (waiting for an attempt), entregado (2xx), fallido (4xx other than 429), agotado (attempts used up).'),
  attempts: z.number().int().describe('Attempts of the current cycle (a re-delivery starts a new cycle).'),
  nextAttemptAt: z.string().nullable(),
  idempotencyKey: z.string().describe('The Idempotency-Key header of every attempt of this delivery.'),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
  intentos: z.array(attemptView),
});
export const deliveriesQuery = pagingQuery.extend({
  estado: z.enum(deliveryStatuses).optional().describe('Only deliveries in this state.'),
});
export const deliveriesPage = pagedResponse(deliveryView);

export const redeliverBody = z.object({
  desde: z.string().datetime({ offset: true }).describe('Deliveries created at or after this instant (ISO 8601).'),
  hasta: z.string().datetime({ offset: true }).describe('Deliveries created before this instant (ISO 8601).'),
  estados: z.array(z.enum(['fallido', 'agotado'])).min(1).default(['fallido', 'agotado']).describe('Which final states to re-deliver. Default both.'),
});
export const redeliverResult = z.object({ reenviadas: z.number().int().describe('Deliveries put back in the queue.') });
export const catalogueView = z.array(z.object({
  type: z.string(), description: z.string(), data: z.string(),
  emitted: z.boolean().describe('Whether a built feature raises the event yet; false ones cannot be subscribed (400 WEBHOOK_EVENTO_NO_DISPONIBLE).'),
}));
