import { and, asc, count, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { salesOrders, type SalesOrderState } from './sales-orders.tables.js';

export type SalesOrderRow = typeof salesOrders.$inferSelect;

export async function insertOrder(db: DbOrTx, values: typeof salesOrders.$inferInsert): Promise<SalesOrderRow> {
  const [row] = await db.insert(salesOrders).values(values).returning();
  return row;
}

/** Locks the row so concurrent state changes serialize. */
export async function findOrderForUpdate(db: DbOrTx, id: number): Promise<SalesOrderRow | undefined> {
  const [row] = await db.select().from(salesOrders).where(eq(salesOrders.id, id)).for('update');
  return row;
}

export async function findOrder(db: DbOrTx, id: number): Promise<SalesOrderRow | undefined> {
  const [row] = await db.select().from(salesOrders).where(eq(salesOrders.id, id));
  return row;
}

export async function updateOrder(db: DbOrTx, id: number, values: Partial<typeof salesOrders.$inferInsert>): Promise<SalesOrderRow> {
  const [row] = await db.update(salesOrders).set({ ...values, updatedAt: new Date() }).where(eq(salesOrders.id, id)).returning();
  return row;
}

export async function listOrders(db: DbOrTx, companyId: number, estado: SalesOrderState | undefined, paging: Paging) {
  const where = and(eq(salesOrders.companyId, companyId), estado ? eq(salesOrders.estado, estado) : undefined);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(salesOrders).where(where).orderBy(asc(salesOrders.id)).offset(paging.start).limit(paging.length),
    db.select({ total: count() }).from(salesOrders).where(where),
  ]);
  return { rows, total };
}
