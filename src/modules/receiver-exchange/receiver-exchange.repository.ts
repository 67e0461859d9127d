import { and, asc, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { receiverAcks, receiverEnvelopes, receiverNoticeCfes, receiverNotices, type ReceiverAckRow, type ReceiverEnvelopeRow, type ReceiverNoticeRow } from './receiver-exchange.tables.js';

export async function insertEnvelope(tx: DbOrTx, values: typeof receiverEnvelopes.$inferInsert): Promise<ReceiverEnvelopeRow> {
  return (await tx.insert(receiverEnvelopes).values(values).returning())[0];
}

/** The row's id taken ahead, as it goes into the file it names (Idemisor, IDComunicacion). */
export async function nextSerialId(tx: DbOrTx, table: 'receiver_envelopes' | 'receiver_notices'): Promise<number> {
  const r = await tx.execute(sql`select nextval(pg_get_serial_sequence(${table}, 'id'))::bigint as id`);
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

// ---- Annulment notices (CFEs_Anulados_x_RechazoDGI, BRIEF 8) -----------------------------------

const inList = (values: readonly (string | number)[]) => sql.join(values.map((v) => sql`${v}`), sql`, `);

/** Companies with an envelope e-mailed (states `envelopeStates`) within `maxAgeDays`. */
export async function companiesWithMailedEnvelopes(db: DbOrTx, envelopeStates: readonly string[], maxAgeDays: number): Promise<number[]> {
  const r = await db.execute<{ company_id: number }>(sql`
    select distinct company_id from receiver_envelopes
     where estado in (${inList(envelopeStates)}) and created_at > now() - make_interval(days => ${maxAgeDays})`);
  return r.rows.map((row: { company_id: number }) => Number(row.company_id));
}

export interface MailedCfe {
  cfeId: number;
  companyId: number;
  rutReceptor: string;
  email: string;
}

/**
 * Of `cfeIds` (CFEs of `companyIds`), those in an envelope we e-mailed and not in any notice yet,
 * each with the receiver of its latest such envelope (the address that got it).
 */
export async function mailedNotNoticed(db: DbOrTx, companyIds: number[], cfeIds: number[], envelopeStates: readonly string[]): Promise<MailedCfe[]> {
  if (companyIds.length === 0 || cfeIds.length === 0) return [];
  const r = await db.execute(sql`
    select distinct on (c.cfe_id) c.cfe_id::bigint as "cfeId", e.company_id as "companyId", e.rut_receptor as "rutReceptor", e.email
      from receiver_envelopes e
      cross join lateral (select x::bigint as cfe_id from jsonb_array_elements_text(e.cfe_ids) x) c
     where e.company_id in (${inList(companyIds)}) and e.estado in (${inList(envelopeStates)}) and e.email is not null
       and c.cfe_id in (${inList(cfeIds)})
       and not exists (select 1 from receiver_notice_cfes n where n.issued_cfe_id = c.cfe_id)
     order by c.cfe_id, e.id desc`);
  return (r.rows as unknown as MailedCfe[]).map((m) => ({ ...m, cfeId: Number(m.cfeId), companyId: Number(m.companyId) }));
}

/** Which of `cfeIds` already have a notice (committed by another dispatcher meanwhile). */
export async function noticedAmong(tx: DbOrTx, cfeIds: number[]): Promise<Set<number>> {
  if (cfeIds.length === 0) return new Set();
  const rows = await tx.select({ id: receiverNoticeCfes.issuedCfeId }).from(receiverNoticeCfes).where(inArray(receiverNoticeCfes.issuedCfeId, cfeIds));
  return new Set(rows.map((r) => Number(r.id)));
}

/** Stores the notice and its CFEs; returns how many CFE rows were new (ON CONFLICT: a CFE is noticed once). */
export async function insertNotice(tx: DbOrTx, values: typeof receiverNotices.$inferInsert & { id: number }): Promise<number> {
  await tx.insert(receiverNotices).values(values);
  const rows = await tx.insert(receiverNoticeCfes).values(values.cfeIds.map((issuedCfeId) => ({ issuedCfeId, noticeId: values.id, companyId: values.companyId }))).onConflictDoNothing().returning({ id: receiverNoticeCfes.issuedCfeId });
  return rows.length;
}

export async function findNotice(db: DbOrTx, id: number): Promise<ReceiverNoticeRow | undefined> {
  return (await db.select().from(receiverNotices).where(eq(receiverNotices.id, id)))[0];
}

export async function updateNotice(db: DbOrTx, id: number, changes: Partial<typeof receiverNotices.$inferInsert>) {
  await db.update(receiverNotices).set(changes).where(eq(receiverNotices.id, id));
}

// ---- The issuer's view of the exchange (issue 42 point 4) ---------------------------------------

export interface EnvelopeFilters { estado?: string; rutReceptor?: string; idCfe?: number }
export interface AckFilters { estado?: string; canal?: string; tipo?: string; idCfe?: number; idSobre?: number }
type Page = { start: number; length: number };
const hasCfe = (column: typeof receiverEnvelopes.cfeIds | typeof receiverAcks.cfeIds | typeof receiverNotices.cfeIds, id: number) => sql`${column} @> ${JSON.stringify([id])}::jsonb`;

/** Envelopes to receivers of a company, newest first (its company index), with the total. */
export async function listEnvelopes(db: DbOrTx, companyId: number, f: EnvelopeFilters, page: Page) {
  const where = and(
    eq(receiverEnvelopes.companyId, companyId),
    f.estado ? eq(receiverEnvelopes.estado, f.estado) : undefined,
    f.rutReceptor ? eq(receiverEnvelopes.rutReceptor, f.rutReceptor) : undefined,
    f.idCfe !== undefined ? hasCfe(receiverEnvelopes.cfeIds, f.idCfe) : undefined,
  );
  const rows = await db.select().from(receiverEnvelopes).where(where).orderBy(desc(receiverEnvelopes.id)).limit(page.length).offset(page.start);
  const [{ n }] = await db.select({ n: count() }).from(receiverEnvelopes).where(where);
  return { rows, total: Number(n) };
}

/** Answers received by a company (uploaded or mailed, refused ones included), newest first, with the total. */
export async function listAcks(db: DbOrTx, companyId: number, f: AckFilters, page: Page) {
  const where = and(
    eq(receiverAcks.companyId, companyId),
    f.estado ? eq(receiverAcks.estado, f.estado as 'aplicada') : undefined,
    f.canal ? eq(receiverAcks.canal, f.canal as 'correo') : undefined,
    f.tipo ? eq(receiverAcks.tipo, f.tipo) : undefined,
    f.idSobre !== undefined ? eq(receiverAcks.envelopeId, f.idSobre) : undefined,
    f.idCfe !== undefined ? hasCfe(receiverAcks.cfeIds, f.idCfe) : undefined,
  );
  const rows = await db.select().from(receiverAcks).where(where).orderBy(desc(receiverAcks.id)).limit(page.length).offset(page.start);
  const [{ n }] = await db.select({ n: count() }).from(receiverAcks).where(where);
  return { rows, total: Number(n) };
}

export async function acksOfEnvelopes(db: DbOrTx, envelopeIds: number[]): Promise<ReceiverAckRow[]> {
  if (envelopeIds.length === 0) return [];
  return db.select().from(receiverAcks).where(inArray(receiverAcks.envelopeId, envelopeIds)).orderBy(asc(receiverAcks.id));
}

export async function findAck(db: DbOrTx, id: number): Promise<ReceiverAckRow | undefined> {
  return (await db.select().from(receiverAcks).where(eq(receiverAcks.id, id)))[0];
}

export async function noticesOfCfe(db: DbOrTx, companyId: number, cfeId: number): Promise<ReceiverNoticeRow[]> {
  return db.select().from(receiverNotices).where(and(eq(receiverNotices.companyId, companyId), hasCfe(receiverNotices.cfeIds, cfeId))).orderBy(asc(receiverNotices.id));
}
