import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.js';
import { companies, companyOutboundMail } from './companies.tables.js';

export type OutboundMailRow = typeof companyOutboundMail.$inferSelect;
export type OutboundMailInsert = Omit<typeof companyOutboundMail.$inferInsert, 'updatedAt'>;

export async function findOutboundMail(db: Db, companyId: number): Promise<OutboundMailRow | undefined> {
  const [row] = await db.select().from(companyOutboundMail).where(eq(companyOutboundMail.companyId, companyId));
  return row;
}

export async function upsertOutboundMail(db: Db, row: OutboundMailInsert): Promise<OutboundMailRow> {
  const { companyId, ...rest } = row;
  const [saved] = await db
    .insert(companyOutboundMail)
    .values(row)
    .onConflictDoUpdate({ target: companyOutboundMail.companyId, set: { ...rest, updatedAt: new Date() } })
    .returning();
  return saved;
}

export async function deleteOutboundMail(db: Db, companyId: number): Promise<void> {
  await db.delete(companyOutboundMail).where(eq(companyOutboundMail.companyId, companyId));
}

/** The live company's e-mail (default test recipient); undefined when the company does not exist. */
export async function liveCompanyEmail(db: Db, companyId: number): Promise<{ email: string | null } | undefined> {
  const [row] = await db.select({ email: companies.email }).from(companies).where(and(eq(companies.id, companyId), isNull(companies.deletedAt)));
  return row;
}
