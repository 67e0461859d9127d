import { and, eq, gte, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { RegistryIssuer } from '../dgi/registry.soap-client.js';
import { electronicIssuers, issuerRegistrySync } from './issuer-registry.tables.js';

export type IssuerRow = typeof electronicIssuers.$inferSelect;

/** Rows per INSERT: the full registry holds tens of thousands of issuers. */
const BATCH = 1000;

export async function upsertIssuers(db: DbOrTx, issuers: RegistryIssuer[], readAt: Date): Promise<void> {
  // DGI may list a RUC twice in one answer: the last entry wins, as a later change would.
  const unique = [...new Map(issuers.map((i) => [i.RUC, i])).values()];
  for (let i = 0; i < unique.length; i += BATCH) {
    const rows = unique.slice(i, i + BATCH).map((r) => ({
      ruc: r.RUC, denominacion: r.DENOMINACION, fechaInicio: r.FECHA_INICIO, fechaFinTransicion: r.FECHA_FIN_TRANSICION, fechaFin: r.FECHA_FIN, mail: r.MAIL, readAt,
    }));
    await db.insert(electronicIssuers).values(rows).onConflictDoUpdate({
      target: electronicIssuers.ruc,
      set: {
        denominacion: sql`excluded.denominacion`, fechaInicio: sql`excluded.fecha_inicio`, fechaFinTransicion: sql`excluded.fecha_fin_transicion`,
        fechaFin: sql`excluded.fecha_fin`, mail: sql`excluded.mail`, readAt: sql`excluded.read_at`,
      },
    });
  }
}

export async function findIssuer(db: DbOrTx, ruc: string): Promise<IssuerRow | undefined> {
  const [row] = await db.select().from(electronicIssuers).where(eq(electronicIssuers.ruc, ruc));
  return row;
}

export function findIssuers(db: DbOrTx, rucs: string[]): Promise<IssuerRow[]> {
  return rucs.length ? db.select().from(electronicIssuers).where(inArray(electronicIssuers.ruc, rucs)) : Promise.resolve([]);
}

/** Subquery of the RUCs that are electronic issuers on `day` (started, not ended). */
export function activeRucs(db: DbOrTx, day: string) {
  return db.select({ ruc: electronicIssuers.ruc }).from(electronicIssuers)
    .where(and(lte(electronicIssuers.fechaInicio, day), or(isNull(electronicIssuers.fechaFin), gte(electronicIssuers.fechaFin, day))));
}

export async function syncState(db: DbOrTx) {
  const [row] = await db.select().from(issuerRegistrySync).where(eq(issuerRegistrySync.id, 1));
  return row;
}

export async function saveSyncState(db: DbOrTx, values: Partial<typeof issuerRegistrySync.$inferInsert>): Promise<void> {
  await db.insert(issuerRegistrySync).values({ id: 1, ...values }).onConflictDoUpdate({ target: issuerRegistrySync.id, set: values });
}
