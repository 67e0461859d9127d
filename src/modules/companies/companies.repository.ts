import { and, eq, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { companies } from './companies.tables.js';

export async function companyExists(db: DbOrTx, id: number): Promise<boolean> {
  const [row] = await db.select({ id: companies.id }).from(companies).where(and(eq(companies.id, id), isNull(companies.deletedAt)));
  return row !== undefined;
}
