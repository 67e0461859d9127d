import { and, desc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { companyCertificates } from './certificates.tables.js';

export type CertificateRow = typeof companyCertificates.$inferSelect;

export async function insertCertificate(db: DbOrTx, values: typeof companyCertificates.$inferInsert): Promise<CertificateRow> {
  const [row] = await db.insert(companyCertificates).values(values).returning();
  return row;
}

export async function findCertificate(db: DbOrTx, id: number): Promise<CertificateRow | undefined> {
  const [row] = await db.select().from(companyCertificates).where(eq(companyCertificates.id, id));
  return row;
}

export async function listCertificates(db: DbOrTx, companyId: number): Promise<CertificateRow[]> {
  return db.select().from(companyCertificates).where(eq(companyCertificates.companyId, companyId)).orderBy(desc(companyCertificates.isActive), desc(companyCertificates.notAfter));
}

export async function activeCertificate(db: DbOrTx, companyId: number): Promise<CertificateRow | undefined> {
  const [row] = await db.select().from(companyCertificates).where(and(eq(companyCertificates.companyId, companyId), eq(companyCertificates.isActive, true)));
  return row;
}

/** Makes `id` the only active certificate of its company. */
export async function activate(db: DbOrTx, companyId: number, id: number): Promise<void> {
  await db.update(companyCertificates).set({ isActive: false, updatedAt: new Date() }).where(and(eq(companyCertificates.companyId, companyId), eq(companyCertificates.isActive, true)));
  await db.update(companyCertificates).set({ isActive: true, updatedAt: new Date() }).where(eq(companyCertificates.id, id));
}

