import { and, asc, count, desc, eq, gte, inArray, isNotNull, lt, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { outboxEvents } from '../events/events.tables.js';
import { webhookAttempts, webhookDeliveries, webhookEndpoints, type DeliveryStatus } from './webhooks.tables.js';
import { WEBHOOK_EVENTS_CHANNEL } from './deliveries.repository.js';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

export async function insertEndpoint(db: DbOrTx, values: typeof webhookEndpoints.$inferInsert): Promise<EndpointRow> {
  const [row] = await db.insert(webhookEndpoints).values(values).returning();
  return row;
}

export async function findEndpoint(db: DbOrTx, id: number): Promise<EndpointRow | undefined> {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  return row;
}

export async function listEndpoints(db: DbOrTx, companyId: number, paging: Paging) {
  const where = eq(webhookEndpoints.companyId, companyId);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(webhookEndpoints).where(where).orderBy(asc(webhookEndpoints.id)).offset(paging.start).limit(paging.length),
    db.select({ total: count() }).from(webhookEndpoints).where(where),
  ]);
  return { rows, total };
}

export async function updateEndpoint(db: DbOrTx, id: number, values: Partial<typeof webhookEndpoints.$inferInsert>): Promise<EndpointRow> {
  const [row] = await db.update(webhookEndpoints).set({ ...values, updatedAt: new Date() }).where(eq(webhookEndpoints.id, id)).returning();
  return row;
}

export async function deleteEndpoint(db: DbOrTx, id: number): Promise<void> {
  await db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
}

const deliveryColumns = {
  id: webhookDeliveries.id, eventId: webhookDeliveries.eventId, eventType: outboxEvents.type, status: webhookDeliveries.status,
  attempts: webhookDeliveries.attempts, nextAttemptAt: webhookDeliveries.nextAttemptAt, idempotencyKey: webhookDeliveries.idempotencyKey,
  lastStatusCode: webhookDeliveries.lastStatusCode, lastError: webhookDeliveries.lastError, deliveredAt: webhookDeliveries.deliveredAt,
  createdAt: webhookDeliveries.createdAt,
};

export async function listDeliveries(db: DbOrTx, endpointId: number, status: DeliveryStatus | undefined, paging: Paging, deliveryId?: number) {
  const where = and(
    eq(webhookDeliveries.endpointId, endpointId),
    status ? eq(webhookDeliveries.status, status) : undefined,
    deliveryId ? eq(webhookDeliveries.id, deliveryId) : undefined,
  );
  const [rows, [{ total }]] = await Promise.all([
    db.select(deliveryColumns).from(webhookDeliveries).innerJoin(outboxEvents, eq(outboxEvents.id, webhookDeliveries.eventId))
      .where(where).orderBy(desc(webhookDeliveries.id)).offset(paging.start).limit(paging.length),
    db.select({ total: count() }).from(webhookDeliveries).where(where),
  ]);
  const attempts = rows.length
    ? await db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, rows.map((r) => r.id))).orderBy(asc(webhookAttempts.number))
    : [];
  return { rows, attempts, total };
}

export async function insertDelivery(db: DbOrTx, values: { eventId: number; endpointId: number; companyId: number; nextAttemptAt: Date }) {
  const [row] = await db.insert(webhookDeliveries).values(values).returning({ id: webhookDeliveries.id });
  return row;
}

/** Puts final deliveries back in the queue with a fresh attempt budget (same Idempotency-Key). */
export async function requeue(db: DbOrTx, filter: { endpointId: number; deliveryId?: number; from?: Date; to?: Date; statuses: DeliveryStatus[] }, now: Date): Promise<number> {
  const rows = await db.update(webhookDeliveries)
    .set({ status: 'pendiente', attempts: 0, nextAttemptAt: now, leaseToken: null, updatedAt: new Date() })
    .where(and(
      eq(webhookDeliveries.endpointId, filter.endpointId),
      filter.deliveryId ? eq(webhookDeliveries.id, filter.deliveryId) : undefined,
      filter.from ? gte(webhookDeliveries.createdAt, filter.from) : undefined,
      filter.to ? lt(webhookDeliveries.createdAt, filter.to) : undefined,
      inArray(webhookDeliveries.status, filter.statuses),
      ne(webhookDeliveries.status, 'pendiente'),
    ))
    .returning({ id: webhookDeliveries.id });
  if (rows.length) await db.execute(sql`select pg_notify(${WEBHOOK_EVENTS_CHANNEL}, '')`);
  return rows.length;
}

/** Seals and unseals a secret under the master key (certificates.crypto). */
export interface SecretBox {
  seal(plain: string): string;
  unseal(sealed: string): string;
}

/**
 * Data step of migration 0024 (issue 28 point 7): every endpoint still holding its secret in clear
 * gets it sealed and the clear column emptied. Idempotent and safe to run from several processes
 * at once: a row is only rewritten while it still holds the clear value it was read with.
 */
export async function sealLegacySecrets(db: DbOrTx, box: SecretBox): Promise<number> {
  const rows = await db.select({ id: webhookEndpoints.id, secret: webhookEndpoints.secret }).from(webhookEndpoints).where(isNotNull(webhookEndpoints.secret));
  let sealed = 0;
  for (const r of rows) {
    const done = await db.update(webhookEndpoints).set({ secretSealed: box.seal(r.secret!), secret: null })
      .where(and(eq(webhookEndpoints.id, r.id), eq(webhookEndpoints.secret, r.secret!))).returning({ id: webhookEndpoints.id });
    sealed += done.length;
  }
  return sealed;
}
