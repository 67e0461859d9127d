import { and, asc, desc, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import {
  receivedAnswers, receivedCfeHistory, receivedCfes, receivedCounters, receivedEnvelopes,
  type ReceivedAnswerRow, type ReceivedCfeRow, type ReceivedEnvelopeRow,
} from './received-cfe.tables.js';

/** Locks the company's counter row (creating it), which also serialises intake per company. */
export async function lockCounter(tx: DbOrTx, companyId: number): Promise<number> {
  await tx.execute(sql`insert into received_counters (company_id, ultimo) values (${companyId}, 0) on conflict do nothing`);
  const r = await tx.execute<{ ultimo: string }>(sql`select ultimo from received_counters where company_id = ${companyId} for update`);
  return Number(r.rows[0].ultimo);
}

export async function setCounter(tx: DbOrTx, companyId: number, ultimo: number): Promise<void> {
  await tx.update(receivedCounters).set({ ultimo }).where(eq(receivedCounters.companyId, companyId));
}

export async function envelopeBySha(db: DbOrTx, companyId: number, sha256: string): Promise<ReceivedEnvelopeRow | undefined> {
  return (await db.select().from(receivedEnvelopes).where(and(eq(receivedEnvelopes.companyId, companyId), eq(receivedEnvelopes.sha256, sha256))))[0];
}

export async function acceptedEnvelopeExists(db: DbOrTx, companyId: number, rutEmisor: string, idemisor: number): Promise<boolean> {
  const r = await db.select({ id: receivedEnvelopes.id }).from(receivedEnvelopes)
    .where(and(eq(receivedEnvelopes.companyId, companyId), eq(receivedEnvelopes.rutEmisor, rutEmisor), eq(receivedEnvelopes.idemisor, idemisor), eq(receivedEnvelopes.estado, 'AS')));
  return r.length > 0;
}

/** The raw bytes of the last envelopes this issuer sent the company that passed our checks (for its certificate). */
export async function acceptedEnvelopeBytes(db: DbOrTx, companyId: number, rutEmisor: string, limit = 5): Promise<Buffer[]> {
  const rows = await db.select({ bytes: receivedEnvelopes.bytes }).from(receivedEnvelopes)
    .where(and(eq(receivedEnvelopes.companyId, companyId), eq(receivedEnvelopes.rutEmisor, rutEmisor), eq(receivedEnvelopes.estado, 'AS'), eq(receivedEnvelopes.sinSobre, false)))
    .orderBy(desc(receivedEnvelopes.id)).limit(limit);
  return rows.map((r) => r.bytes);
}

// What an insert reads back: not the bytes or the XML just written (an envelope is up to 2 MB, sent back
// hex-encoded and decoded again; a CFE's XML and datos are KBs each, datos parsed again as JSON).
const { bytes: _envelopeBytes, ...envelopeWritten } = getTableColumns(receivedEnvelopes);
const { xml: _cfeXml, datos: _cfeDatos, ...cfeWritten } = getTableColumns(receivedCfes);

export async function insertEnvelope(tx: DbOrTx, values: typeof receivedEnvelopes.$inferInsert): Promise<ReceivedEnvelopeRow> {
  const [row] = await tx.insert(receivedEnvelopes).values(values).returning(envelopeWritten);
  return { ...row, bytes: values.bytes };
}

export async function findEnvelope(db: DbOrTx, id: number): Promise<ReceivedEnvelopeRow | undefined> {
  return (await db.select().from(receivedEnvelopes).where(eq(receivedEnvelopes.id, id)))[0];
}

/** The live CFE with this identity (not a duplicate, not format-rejected). */
export async function liveCfeId(db: DbOrTx, companyId: number, k: { rutEmisor: string; tipoCfe: number; serie: string; numero: number }): Promise<number | undefined> {
  const r = await db.execute<{ id: string }>(sql`
    select id from received_cfes where company_id = ${companyId} and rut_emisor = ${k.rutEmisor} and tipo_cfe = ${k.tipoCfe}
       and serie = ${k.serie} and numero = ${k.numero} and estado not in ('duplicado', 'rechazado_formato')`);
  return r.rows[0] ? Number(r.rows[0].id) : undefined;
}

/** Which of these identities already have a live CFE (one query for a whole envelope). Keys `rut/tipo/serie/numero`. */
export async function liveIdentities(db: DbOrTx, companyId: number, keys: Array<{ rutEmisor: string; tipoCfe: number; serie: string; numero: number }>): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const values = sql.join(keys.map((k) => sql`(${k.rutEmisor}::text, ${k.tipoCfe}::int, ${k.serie}::text, ${k.numero}::int)`), sql`, `);
  const r = await db.execute<{ rut_emisor: string; tipo_cfe: number; serie: string; numero: number }>(sql`
    select c.rut_emisor, c.tipo_cfe, c.serie, c.numero from received_cfes c
      join (values ${values}) as k(rut, tipo, serie, numero) on c.rut_emisor = k.rut and c.tipo_cfe = k.tipo and c.serie = k.serie and c.numero = k.numero
     where c.company_id = ${companyId} and c.estado not in ('duplicado', 'rechazado_formato')`);
  return new Set(r.rows.map((row: { rut_emisor: string; tipo_cfe: number; serie: string; numero: number }) => `${row.rut_emisor}/${row.tipo_cfe}/${row.serie}/${row.numero}`));
}

/** Inserts the rows (secuencia unique per company) and returns them as stored, in the order given. */
export async function insertCfes(tx: DbOrTx, rows: (typeof receivedCfes.$inferInsert)[]): Promise<ReceivedCfeRow[]> {
  if (!rows.length) return [];
  const written = new Map((await tx.insert(receivedCfes).values(rows).returning(cfeWritten)).map((r) => [r.secuencia, r]));
  return rows.map((v) => ({ ...written.get(v.secuencia)!, xml: v.xml, datos: v.datos ?? null }));
}

export async function cfesOfEnvelope(db: DbOrTx, envelopeId: number): Promise<ReceivedCfeRow[]> {
  return db.select().from(receivedCfes).where(eq(receivedCfes.envelopeId, envelopeId)).orderBy(asc(receivedCfes.nroOrdinal));
}

export async function findCfe(db: DbOrTx, id: number): Promise<ReceivedCfeRow | undefined> {
  return (await db.select().from(receivedCfes).where(eq(receivedCfes.id, id)))[0];
}

/** The company's CFEs among `ids`, locked for a decision. */
export async function lockCfes(tx: DbOrTx, companyId: number, ids: number[]): Promise<ReceivedCfeRow[]> {
  return tx.select().from(receivedCfes).where(and(eq(receivedCfes.companyId, companyId), inArray(receivedCfes.id, ids))).orderBy(asc(receivedCfes.id)).for('update');
}

export async function updateCfe(tx: DbOrTx, id: number, changes: Partial<typeof receivedCfes.$inferInsert>): Promise<void> {
  await tx.update(receivedCfes).set(changes).where(eq(receivedCfes.id, id));
}

export async function setAnswer(tx: DbOrTx, ids: number[], respuestaId: number): Promise<void> {
  if (ids.length) await tx.update(receivedCfes).set({ respuestaId }).where(inArray(receivedCfes.id, ids));
}

export async function insertHistory(tx: DbOrTx, rows: (typeof receivedCfeHistory.$inferInsert)[]): Promise<void> {
  if (rows.length) await tx.insert(receivedCfeHistory).values(rows);
}

export async function historyOf(db: DbOrTx, cfeId: number) {
  return db.select().from(receivedCfeHistory).where(eq(receivedCfeHistory.receivedCfeId, cfeId)).orderBy(asc(receivedCfeHistory.id));
}

/** The answer's id taken ahead: it is IDRespuesta inside the signed XML and in the file name. */
export async function nextAnswerId(tx: DbOrTx): Promise<number> {
  const r = await tx.execute<{ id: string }>(sql`select nextval(pg_get_serial_sequence('received_answers', 'id'))::bigint as id`);
  return Number(r.rows[0].id);
}

export async function insertAnswer(tx: DbOrTx, values: typeof receivedAnswers.$inferInsert): Promise<void> {
  await tx.insert(receivedAnswers).values(values);
}

export async function findAnswer(db: DbOrTx, id: number): Promise<ReceivedAnswerRow | undefined> {
  return (await db.select().from(receivedAnswers).where(eq(receivedAnswers.id, id)))[0];
}

export async function answersOfEnvelope(db: DbOrTx, envelopeId: number): Promise<ReceivedAnswerRow[]> {
  return db.select().from(receivedAnswers).where(eq(receivedAnswers.envelopeId, envelopeId)).orderBy(asc(receivedAnswers.id));
}

export async function updateAnswer(db: DbOrTx, id: number, changes: Partial<typeof receivedAnswers.$inferInsert>): Promise<void> {
  await db.update(receivedAnswers).set(changes).where(eq(receivedAnswers.id, id));
}

/** Idempotency-Key of a decision call: the stored answer is replayed for the same request. */
export async function claimIdempotency(tx: DbOrTx, companyId: number, key: string, requestHash: string): Promise<{ requestHash: string; response: unknown } | undefined> {
  const r = await tx.execute<{ request_hash: string; response: unknown }>(sql`
    select request_hash, response from received_idempotency where company_id = ${companyId} and key = ${key} for update`);
  return r.rows[0] ? { requestHash: r.rows[0].request_hash, response: r.rows[0].response } : undefined;
}

export async function storeIdempotency(tx: DbOrTx, companyId: number, key: string, requestHash: string, response: unknown): Promise<void> {
  await tx.execute(sql`insert into received_idempotency (company_id, key, request_hash, response) values (${companyId}, ${key}, ${requestHash}, ${JSON.stringify(response)}::jsonb)`);
}
