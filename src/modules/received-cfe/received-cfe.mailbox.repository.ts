import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { inboundMailboxes, inboundMails, type InboundMailboxRow } from './received-cfe.tables.js';

export async function find(db: DbOrTx, companyId: number): Promise<InboundMailboxRow | undefined> {
  return (await db.select().from(inboundMailboxes).where(eq(inboundMailboxes.companyId, companyId)))[0];
}

export async function upsert(db: DbOrTx, values: typeof inboundMailboxes.$inferInsert): Promise<InboundMailboxRow> {
  const { companyId, ...rest } = values;
  const [row] = await db.insert(inboundMailboxes).values(values)
    .onConflictDoUpdate({ target: inboundMailboxes.companyId, set: { ...rest, ultimoError: null, ultimoErrorEn: null, actualizadoEn: new Date() } })
    .returning();
  void companyId;
  return row;
}

export async function remove(db: DbOrTx, companyId: number): Promise<void> {
  await db.delete(inboundMailboxes).where(eq(inboundMailboxes.companyId, companyId));
}

export async function setCursor(db: DbOrTx, companyId: number, uidValidity: number, ultimoUid: number): Promise<void> {
  await db.update(inboundMailboxes).set({ uidValidity, ultimoUid }).where(eq(inboundMailboxes.companyId, companyId));
}

export async function markPolled(db: DbOrTx, companyId: number, error: string | null): Promise<void> {
  await db.update(inboundMailboxes)
    .set(error === null ? { ultimoSondeoOk: new Date() } : { ultimoError: error.slice(0, 1000), ultimoErrorEn: new Date() })
    .where(eq(inboundMailboxes.companyId, companyId));
}

export async function activeCompanies(db: DbOrTx): Promise<number[]> {
  const rows = await db.select({ id: inboundMailboxes.companyId }).from(inboundMailboxes).where(eq(inboundMailboxes.activo, true));
  return rows.map((r) => r.id);
}

/** Takes the mail for this transaction; false when another poller already handled (or is handling) it. */
export async function claimMail(tx: DbOrTx, companyId: number, uidValidity: number, uid: number): Promise<boolean> {
  const r = await tx.execute(sql`insert into inbound_mails (company_id, uid_validity, uid, clase) values (${companyId}, ${uidValidity}, ${uid}, 'pendiente')
    on conflict do nothing returning uid`);
  return r.rows.length > 0;
}

export async function recordMail(
  tx: DbOrTx, companyId: number, uidValidity: number, uid: number,
  m: { messageId: string | null; remitente: string | null; asunto: string | null; clase: string; detalle: string | null; envelopeIds: number[] },
): Promise<void> {
  await tx.update(inboundMails)
    .set({ messageId: m.messageId, remitente: m.remitente, asunto: m.asunto, clase: m.clase, detalle: m.detalle, envelopeIds: m.envelopeIds })
    .where(sql`${inboundMails.companyId} = ${companyId} and ${inboundMails.uidValidity} = ${uidValidity} and ${inboundMails.uid} = ${uid}`);
}

/** The mailbox log (issue 42 point 5): every mail read, newest first, with the total. */
export async function listMails(db: DbOrTx, companyId: number, clase: string | undefined, page: { start: number; length: number }) {
  const where = and(eq(inboundMails.companyId, companyId), clase ? eq(inboundMails.clase, clase) : undefined);
  const rows = await db.select().from(inboundMails).where(where).orderBy(desc(inboundMails.leidoEn), desc(inboundMails.uid)).limit(page.length).offset(page.start);
  const [{ n }] = await db.select({ n: count() }).from(inboundMails).where(where);
  return { rows, total: Number(n) };
}
