import { and, count, eq, gte, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { OwnReferencedCfe, ReferencedKey } from './issued-cfe.references.js';
import { issuedCfes, issuedCfeStateHistory, type IssuedCfeRow } from './issued-cfe.tables.js';

/** `n` ids of issued_cfes taken ahead, so the CFE rows and their outbox events can be written in one round trip. */
export async function nextIds(tx: DbOrTx, n: number): Promise<number[]> {
  const r = await tx.execute(sql`select nextval(pg_get_serial_sequence('issued_cfes', 'id'))::bigint as id from generate_series(1, ${n}::integer)`);
  return (r.rows as Array<{ id: string | number }>).map((x) => Number(x.id));
}

/** One multi-row INSERT for an emission batch; rows come back in the order given. */
export async function insertIssuedCfes(tx: DbOrTx, values: Array<typeof issuedCfes.$inferInsert>): Promise<IssuedCfeRow[]> {
  const rows = await tx.insert(issuedCfes).values(values).returning();
  // INSERT … RETURNING yields rows in VALUES order in PostgreSQL, but nothing promises it: match by number.
  const byNumber = new Map(rows.map((r) => [`${r.tipoCfe}/${r.serie}/${r.numero}`, r]));
  return values.map((v) => byNumber.get(`${v.tipoCfe}/${v.serie}/${v.numero}`)!);
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

/**
 * The company's own CFEs among the referenced ones (≤ 40, BRIEF 2.8), on the number's unique index,
 * with whether DGI rejected them out of its records: every rejection but E02, which says the
 * original is already there (cfe-states.ts).
 */
export async function findReferenced(db: DbOrTx, companyId: number, keys: ReferencedKey[]): Promise<OwnReferencedCfe[]> {
  if (keys.length === 0) return [];
  // Qualified by hand: drizzle renders a column of the selected table unqualified, and inside the
  // subquery "id" would be the history row's.
  const rejectedByDgi = sql<boolean>`(issued_cfes.estado = 'rechazado' and not exists (
    select 1 from ${issuedCfeStateHistory} h where h.issued_cfe_id = issued_cfes.id and h.lado = 'dgi' and h.estado = 'rechazado'
      and (h.codigo = 'E02' or h.motivos @> '[{"codigo":"E02"}]'::jsonb)))`;
  return db.select({ tipoCfe: issuedCfes.tipoCfe, serie: issuedCfes.serie, numero: issuedCfes.numero, fechaEmision: issuedCfes.fechaEmision, rejectedByDgi, moneda: issuedCfes.moneda, tipoCambio: issuedCfes.tipoCambio, mntPagar: issuedCfes.mntPagar })
    .from(issuedCfes)
    .where(and(eq(issuedCfes.companyId, companyId), or(...keys.map((k) => and(eq(issuedCfes.tipoCfe, k.tipoCfe), eq(issuedCfes.serie, k.serie), eq(issuedCfes.numero, k.numero))))));
}
