import { and, count, eq, gte } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { issuedCfes, type IssuedCfeRow } from './issued-cfe.tables.js';

export async function insertIssuedCfe(tx: DbOrTx, values: typeof issuedCfes.$inferInsert): Promise<number> {
  const [row] = await tx.insert(issuedCfes).values(values).returning({ id: issuedCfes.id });
  return row.id;
}

export async function findIssuedCfe(db: DbOrTx, id: number): Promise<IssuedCfeRow | undefined> {
  const [row] = await db.select().from(issuedCfes).where(eq(issuedCfes.id, id));
  return row;
}

export async function findByIdempotencyKey(db: DbOrTx, companyId: number, key: string): Promise<IssuedCfeRow | undefined> {
  const [row] = await db.select().from(issuedCfes).where(and(eq(issuedCfes.companyId, companyId), eq(issuedCfes.idempotencyKey, key)));
  return row;
}

/** CFEs signed since `from` (the usage limit's calendar month). */
export async function countSignedSince(db: DbOrTx, companyId: number, from: Date): Promise<number> {
  const [row] = await db.select({ n: count() }).from(issuedCfes).where(and(eq(issuedCfes.companyId, companyId), gte(issuedCfes.firmadoEn, from)));
  return row.n;
}
