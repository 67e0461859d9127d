/**
 * Webhook endpoints (spec 2.5, 4.2): registration and management, the test event, the delivery
 * log and manual re-delivery. Endpoints are addressed by their own id, so each use case loads the
 * row and checks the caller's role on its company (another company's endpoint answers 404).
 */
import type { Db } from '../../platform/db/client.js';
import { assertCompanyRole, onlyCompanyOf, roleAtLeast, type Actor, type CompanyRole } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { eventCatalogue, eventIdPrefix, eventTypes, isEmitted, isEventType } from '../events/events.catalogue.js';
import type { EventsService } from '../events/events.service.js';
import { headerProblems, maskHeaders } from './endpoint-headers.js';
import { DEFAULT_MAX_ATTEMPTS } from './retry-policy.js';
import { generateSecret, isUsableSecret } from './signature.js';
import { checkEndpointUrl } from './url-guard.js';
import { webhookErrors } from './webhooks.errors.js';
import * as repo from './webhooks.repository.js';
import type { DeliveryStatus } from './webhooks.tables.js';

export interface WebhookInput {
  name?: string | null;
  url?: string;
  events?: string[];
  enabled?: boolean;
  secret?: string | null;
  headers?: Record<string, string>;
  maxAttempts?: number;
}

/** Header values (often credentials) are shown only to who may manage the endpoint: administradores and operators. */
function mayManage(actor: Actor, companyId: number): boolean {
  return actor.isOperator || roleAtLeast(actor.companies.get(companyId), 'administrador');
}

function view(r: repo.EndpointRow, actor: Actor) {
  return {
    id: r.id, idEmpresa: r.companyId, name: r.name, url: r.url, events: r.events, enabled: r.enabled,
    hasSecret: r.secretSealed !== null || r.secret !== null, headers: mayManage(actor, r.companyId) ? r.headers : maskHeaders(r.headers), maxAttempts: r.maxAttempts,
    createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString(),
  };
}

type DeliveryList = Awaited<ReturnType<typeof repo.listDeliveries>>;
function deliveryViews({ rows, attempts }: DeliveryList) {
  return rows.map((d) => ({
    id: d.id, eventId: `${eventIdPrefix}${d.eventId}`, eventType: d.eventType, status: d.status, attempts: d.attempts,
    nextAttemptAt: d.status === 'pendiente' ? d.nextAttemptAt?.toISOString() ?? null : null,
    idempotencyKey: d.idempotencyKey, lastStatusCode: d.lastStatusCode, lastError: d.lastError,
    deliveredAt: d.deliveredAt?.toISOString() ?? null, createdAt: d.createdAt.toISOString(),
    intentos: attempts.filter((a) => a.deliveryId === d.id).map((a) => ({
      number: a.number, time: a.startedAt.toISOString(), statusCode: a.statusCode, durationMs: a.durationMs,
      error: a.error, responseExcerpt: a.responseExcerpt, outcome: a.outcome,
    })),
  }));
}

export function createWebhooksService(deps: { db: Db; events: EventsService; allowPrivateUrls: boolean; secrets: repo.SecretBox }) {
  const { db } = deps;
  /** The signing secret as stored: sealed under MASTER_KEY, never in clear (issue 28 point 7). */
  const stored = (secret: string | null) => ({ secretSealed: secret === null ? null : deps.secrets.seal(secret), secret: null });

  async function validate(input: WebhookInput): Promise<void> {
    if (input.events) {
      const unknown = input.events.filter((e) => !isEventType(e));
      if (unknown.length) throw webhookErrors.WEBHOOK_EVENTO_DESCONOCIDO(`Eventos desconocidos: ${unknown.join(', ')}. Eventos válidos: ${eventTypes.join(', ')}.`, { eventos: unknown });
      const notEmitted = input.events.filter((e) => isEventType(e) && !isEmitted(e));
      if (notEmitted.length) throw webhookErrors.WEBHOOK_EVENTO_NO_DISPONIBLE(`Eventos todavía no disponibles (ninguna función los emite aún): ${[...new Set(notEmitted)].join(', ')}.`, { eventos: [...new Set(notEmitted)] });
    }
    if (input.secret && !isUsableSecret(input.secret)) throw webhookErrors.WEBHOOK_SECRETO_INVALIDO();
    if (input.url !== undefined) {
      const problem = await checkEndpointUrl(input.url, deps.allowPrivateUrls);
      if (problem === 'privada') throw webhookErrors.WEBHOOK_URL_PRIVADA();
      if (problem) throw webhookErrors.WEBHOOK_URL_INVALIDA();
    }
    const problems = headerProblems(input.headers ?? {});
    if (problems?.invalidNames.length || problems?.invalidValues.length) {
      const { invalidNames, invalidValues } = problems;
      const parts = [
        invalidNames.length ? `nombres no válidos: ${invalidNames.map((n) => JSON.stringify(n)).join(', ')}` : '',
        invalidValues.length ? `valores no válidos en: ${invalidValues.map((n) => JSON.stringify(n)).join(', ')}` : '',
      ].filter(Boolean);
      throw webhookErrors.WEBHOOK_ENCABEZADO_INVALIDO(`Encabezados con ${parts.join('; ')}. Los nombres son tokens RFC 7230 (sin espacios) y los valores ASCII visible, espacio o tabulador (sin CR, LF ni NUL).`, { nombresInvalidos: invalidNames, valoresInvalidos: invalidValues });
    }
    if (problems?.reserved.length) throw webhookErrors.WEBHOOK_PAYLOAD_INVALIDO(`El payload no es válido: los encabezados ${problems.reserved.join(', ')} están reservados.`);
  }

  async function visible(actor: Actor, id: number, role: CompanyRole) {
    const row = await repo.findEndpoint(db, id);
    if (!row) throw webhookErrors.WEBHOOK_NO_ENCONTRADO();
    assertCompanyRole(actor, row.companyId, role, () => webhookErrors.WEBHOOK_NO_ENCONTRADO());
    return row;
  }

  return {
    /** POST /api/v1/webhooks (spec 4.2). Without idEmpresa, the caller's only company is used. */
    async create(actor: Actor, idEmpresa: number | undefined, input: WebhookInput & { url: string; events: string[] }) {
      let companyId = idEmpresa;
      if (companyId === undefined) {
        companyId = onlyCompanyOf(actor);
        if (companyId === undefined) throw webhookErrors.WEBHOOK_EMPRESA_REQUERIDA();
      }
      assertCompanyRole(actor, companyId, 'administrador');
      await validate(input);
      const row = await repo.insertEndpoint(db, {
        companyId, name: input.name ?? null, url: input.url, events: [...new Set(input.events)], enabled: input.enabled ?? true,
        ...stored(input.secret ?? null), headers: input.headers ?? {}, maxAttempts: input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      });
      return view(row, actor);
    },

    async list(actor: Actor, idEmpresa: number, paging: Paging) {
      assertCompanyRole(actor, idEmpresa, 'lectura');
      const { rows, total } = await repo.listEndpoints(db, idEmpresa, paging);
      return { data: rows.map((r) => view(r, actor)), total };
    },

    get: async (actor: Actor, id: number) => view(await visible(actor, id, 'lectura'), actor),

    async update(actor: Actor, id: number, input: WebhookInput) {
      await visible(actor, id, 'administrador');
      await validate(input);
      const changes: Parameters<typeof repo.updateEndpoint>[2] = {};
      if (input.name !== undefined) changes.name = input.name;
      if (input.url !== undefined) changes.url = input.url;
      if (input.events !== undefined) changes.events = [...new Set(input.events)];
      if (input.enabled !== undefined) changes.enabled = input.enabled;
      if (input.secret !== undefined) Object.assign(changes, stored(input.secret));
      if (input.headers !== undefined) changes.headers = input.headers;
      if (input.maxAttempts !== undefined) changes.maxAttempts = input.maxAttempts;
      return view(await repo.updateEndpoint(db, id, changes), actor);
    },

    /** Deletes the endpoint with its delivery log; pending deliveries are dropped. */
    async remove(actor: Actor, id: number): Promise<void> {
      await visible(actor, id, 'administrador');
      await repo.deleteEndpoint(db, id);
    },

    /** New `whsec_` secret, effective for the next attempt; returned only here. */
    async rotateSecret(actor: Actor, id: number) {
      await visible(actor, id, 'administrador');
      const secret = generateSecret();
      await repo.updateEndpoint(db, id, stored(secret));
      return { id, secret };
    },

    /** Sends a `Webhook.Prueba` event to this endpoint only, through the normal delivery engine. 409 when disabled. */
    async sendTest(actor: Actor, id: number) {
      const endpoint = await visible(actor, id, 'administrador');
      if (!endpoint.enabled) throw webhookErrors.WEBHOOK_DESACTIVADO();
      const deliveryId = await db.transaction(async (tx) => {
        const event = await deps.events.recordTestEvent(tx, endpoint.companyId, { idWebhook: endpoint.id, mensaje: 'Evento de prueba' });
        return (await repo.insertDelivery(tx, { eventId: event.id, endpointId: endpoint.id, companyId: endpoint.companyId, nextAttemptAt: new Date() })).id;
      });
      return deliveryViews(await repo.listDeliveries(db, id, undefined, { start: 0, length: 1 }, deliveryId))[0];
    },

    async deliveries(actor: Actor, id: number, status: DeliveryStatus | undefined, paging: Paging) {
      await visible(actor, id, 'lectura');
      const list = await repo.listDeliveries(db, id, status, paging);
      return { data: deliveryViews(list), total: list.total };
    },

    async delivery(actor: Actor, id: number, deliveryId: number) {
      await visible(actor, id, 'lectura');
      const [d] = deliveryViews(await repo.listDeliveries(db, id, undefined, { start: 0, length: 1 }, deliveryId));
      if (!d) throw webhookErrors.ENTREGA_NO_ENCONTRADA();
      return d;
    },

    /** Re-delivers one final delivery (entregado, fallido or agotado) with a fresh attempt budget. */
    async redeliver(actor: Actor, id: number, deliveryId: number) {
      const endpoint = await visible(actor, id, 'administrador');
      const current = await this.delivery(actor, id, deliveryId);
      if (current.status === 'pendiente') throw webhookErrors.ENTREGA_PENDIENTE();
      if (!endpoint.enabled) throw webhookErrors.WEBHOOK_DESACTIVADO();
      await repo.requeue(db, { endpointId: id, deliveryId, statuses: ['entregado', 'fallido', 'agotado'] }, new Date());
      return this.delivery(actor, id, deliveryId);
    },

    /** Re-delivers every fallido/agotado delivery of the endpoint created in [desde, hasta). */
    async redeliverWindow(actor: Actor, id: number, input: { desde: string; hasta: string; estados: Array<'fallido' | 'agotado'> }) {
      const endpoint = await visible(actor, id, 'administrador');
      if (!endpoint.enabled) throw webhookErrors.WEBHOOK_DESACTIVADO();
      const reenviadas = await repo.requeue(db, { endpointId: id, from: new Date(input.desde), to: new Date(input.hasta), statuses: input.estados }, new Date());
      return { reenviadas };
    },

    catalogue: () => eventCatalogue.map((e) => ({ type: e.type, description: e.description, data: e.data, emitted: isEmitted(e.type) })),
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
