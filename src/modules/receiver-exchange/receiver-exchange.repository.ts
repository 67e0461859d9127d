import { and, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { issuedCfes } from '../issued-cfe/issued-cfe.tables.js';
import { receiverAcks, receiverEnvelopes, type ReceiverEnvelopeRow } from './receiver-exchange.tables.js';

/**
 * Reads and writes of this module on `issued_cfes`: only the receiver-side columns
 * (estado_receptor, estado_actualizado_en) and history rows with lado 'receptor' (issue 6 point 1).
 */
const cfeColumns = {
  id: issuedCfes.id,
  companyId: issuedCfes.companyId,
  tipoCfe: issuedCfes.tipoCfe,
  serie: issuedCfes.serie,
  numero: issuedCfes.numero,
  receptorTipoDoc: issuedCfes.receptorTipoDoc,
  receptorDocumento: issuedCfes.receptorDocumento,
  customerId: issuedCfes.customerId,
  estadoReceptor: issuedCfes.estadoReceptor,
  xml: issuedCfes.xml,
  adenda: issuedCfes.adenda,
};
export interface ExchangeCfe {
  id: number;
  companyId: number;
  tipoCfe: number;
  serie: string;
  numero: number;
  receptorTipoDoc: number | null;
  receptorDocumento: string | null;
  customerId: number | null;
  estadoReceptor: string | null;
  xml: string;
  adenda: string | null;
}

export async function cfesByIds(db: DbOrTx, ids: number[]): Promise<ExchangeCfe[]> {
  return db.select(cfeColumns).from(issuedCfes).where(inArray(issuedCfes.id, ids)) as Promise<ExchangeCfe[]>;
}

/**
 * CFEs of electronic receivers not sent yet (estado_receptor null), never CFCs (BRIEF 5/10),
 * signed in the last `maxAgeDays`, locked with SKIP LOCKED so concurrent dispatchers split the work.
 */
export async function claimUnsent(tx: DbOrTx, customerIds: number[], maxAgeDays: number, limit: number): Promise<ExchangeCfe[]> {
  if (customerIds.length === 0) return [];
  return tx
    .select(cfeColumns)
    .from(issuedCfes)
    .where(and(
      inArray(issuedCfes.customerId, customerIds),
      sql`${issuedCfes.estadoReceptor} is null`,
      sql`${issuedCfes.tipoCfe} < 200`,
      sql`${issuedCfes.firmadoEn} > now() - make_interval(days => ${maxAgeDays})`,
    ))
    .orderBy(issuedCfes.id)
    .limit(limit)
    .for('update', { skipLocked: true }) as Promise<ExchangeCfe[]>;
}

export async function findCfe(db: DbOrTx, companyId: number, tipoCfe: number, serie: string, numero: number) {
  const rows = await db.select(cfeColumns).from(issuedCfes).where(and(eq(issuedCfes.companyId, companyId), eq(issuedCfes.tipoCfe, tipoCfe), eq(issuedCfes.serie, serie), eq(issuedCfes.numero, numero))).for('update');
  return rows[0] as ExchangeCfe | undefined;
}

export async function insertEnvelope(tx: DbOrTx, values: typeof receiverEnvelopes.$inferInsert): Promise<ReceiverEnvelopeRow> {
  return (await tx.insert(receiverEnvelopes).values(values).returning())[0];
}

export async function nextEnvelopeId(tx: DbOrTx): Promise<number> {
  const r = await tx.execute(sql`select nextval(pg_get_serial_sequence('receiver_envelopes', 'id'))::bigint as id`);
  return Number((r.rows[0] as { id: string }).id);
}

export async function findEnvelope(db: DbOrTx, id: number): Promise<ReceiverEnvelopeRow | undefined> {
  return (await db.select().from(receiverEnvelopes).where(eq(receiverEnvelopes.id, id)))[0];
}

export async function updateEnvelope(db: DbOrTx, id: number, changes: Partial<typeof receiverEnvelopes.$inferInsert>) {
  await db.update(receiverEnvelopes).set(changes).where(eq(receiverEnvelopes.id, id));
}

export async function insertAck(tx: DbOrTx, values: typeof receiverAcks.$inferInsert): Promise<number> {
  return (await tx.insert(receiverAcks).values(values).returning({ id: receiverAcks.id }))[0].id;
}
