/** SQL for this module's tables only (e-mail sends, preview PDFs). */
import { count, desc, eq, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { Paging } from '../../platform/http/paging.js';
import { cfeEmailSends, cfePreviews, type CfeEmailSendRow } from './cfe-documents.tables.js';

export async function insertEmailSend(tx: DbOrTx, values: typeof cfeEmailSends.$inferInsert): Promise<CfeEmailSendRow> {
  const [row] = await tx.insert(cfeEmailSends).values(values).returning();
  return row;
}

export async function findEmailSend(db: DbOrTx, id: number): Promise<CfeEmailSendRow | undefined> {
  const [row] = await db.select().from(cfeEmailSends).where(eq(cfeEmailSends.id, id));
  return row;
}

/** Records one attempt's outcome; `intentos` counts attempts made. */
export async function recordAttempt(
  db: DbOrTx,
  id: number,
  outcome: { estado: 'enviado' | 'reintentando' | 'fallido'; error?: string; codigoSmtp?: number; messageId?: string; transporte?: string },
): Promise<void> {
  await db
    .update(cfeEmailSends)
    .set({
      estado: outcome.estado,
      intentos: sql`${cfeEmailSends.intentos} + 1`,
      ultimoError: outcome.error ?? null,
      codigoSmtp: outcome.codigoSmtp ?? null,
      messageId: outcome.messageId ?? null,
      transporte: outcome.transporte ?? null,
      actualizadoEn: new Date(),
      enviadoEn: outcome.estado === 'enviado' ? new Date() : null,
    })
    .where(eq(cfeEmailSends.id, id));
}

/** The company's copy was accepted: never sent again for this send (issue 28). */
export async function recordCopySent(db: DbOrTx, id: number): Promise<void> {
  await db.update(cfeEmailSends).set({ copiaEnviadaEn: new Date(), actualizadoEn: new Date() }).where(eq(cfeEmailSends.id, id));
}

/** The copy failed for good: noted in ultimoError; the recipients' delivery (estado) stands. */
export async function recordCopyFailure(db: DbOrTx, id: number, error: string, codigoSmtp?: number): Promise<void> {
  await db.update(cfeEmailSends).set({ ultimoError: error, codigoSmtp: codigoSmtp ?? null, actualizadoEn: new Date() }).where(eq(cfeEmailSends.id, id));
}

export async function listEmailSends(db: DbOrTx, issuedCfeId: number, paging: Paging) {
  const where = eq(cfeEmailSends.issuedCfeId, issuedCfeId);
  const rows = await db.select().from(cfeEmailSends).where(where).orderBy(desc(cfeEmailSends.id)).limit(paging.length).offset(paging.start);
  const [{ n }] = await db.select({ n: count() }).from(cfeEmailSends).where(where);
  return { rows, total: n };
}

export async function insertPreview(db: DbOrTx, values: typeof cfePreviews.$inferInsert): Promise<void> {
  await db.insert(cfePreviews).values(values);
}

export async function findPreview(db: DbOrTx, tokenHash: string) {
  const [row] = await db.select().from(cfePreviews).where(eq(cfePreviews.tokenHash, tokenHash));
  return row;
}

/** Deletes previews expired before `now`; returns how many. */
export async function purgePreviews(db: DbOrTx, now = new Date()): Promise<number> {
  const rows = await db.delete(cfePreviews).where(lt(cfePreviews.expiresAt, now)).returning({ t: cfePreviews.tokenHash });
  return rows.length;
}
