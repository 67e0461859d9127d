import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { passwordResetTokens, refreshTokens } from './auth.tables.js';

export async function insertRefreshToken(db: DbOrTx, v: typeof refreshTokens.$inferInsert) {
  await db.insert(refreshTokens).values(v);
}

export async function findRefreshToken(db: DbOrTx, tokenHash: string) {
  const [row] = await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash));
  return row;
}

/** Marks the token rotated only if nobody did it first: the winner of a race gets the row back. */
export async function claimForRotation(db: DbOrTx, id: number) {
  const [row] = await db
    .update(refreshTokens)
    .set({ rotatedAt: new Date() })
    .where(and(eq(refreshTokens.id, id), isNull(refreshTokens.rotatedAt), isNull(refreshTokens.revokedAt), gt(refreshTokens.expiresAt, sql`now()`)))
    .returning();
  return row;
}

export async function revokeFamily(db: DbOrTx, familyId: string): Promise<number> {
  const rows = await db.update(refreshTokens).set({ revokedAt: new Date() }).where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt))).returning({ id: refreshTokens.id });
  return rows.length;
}

export async function revokeAllOfUser(db: DbOrTx, userId: number): Promise<number> {
  const rows = await db.update(refreshTokens).set({ revokedAt: new Date() }).where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt))).returning({ id: refreshTokens.id });
  return rows.length;
}

export async function insertResetToken(db: DbOrTx, v: typeof passwordResetTokens.$inferInsert) {
  await db.insert(passwordResetTokens).values(v);
}

/** Consumes a reset token exactly once. */
export async function consumeResetToken(db: DbOrTx, tokenHash: string) {
  const [row] = await db
    .update(passwordResetTokens)
    .set({ usedAt: new Date() })
    .where(and(eq(passwordResetTokens.tokenHash, tokenHash), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, sql`now()`)))
    .returning();
  return row;
}
