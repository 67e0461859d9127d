import { eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { receiverAcks, receiverEnvelopes, type ReceiverEnvelopeRow } from './receiver-exchange.tables.js';

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
