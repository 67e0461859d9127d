import { and, asc, desc, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { dgiEnvelopeItems, dgiEnvelopes, dgiIdEmisorCounters, dgiSubmissionSettings, type DgiEnvelopeRow } from './dgi-submission.tables.js';
import type { EnvioIndividualMode } from './dgi-submission.policy.js';
import { assembleEnvioCfe } from '../emission/sobre.js';

/** Next Idemisor of the company (row lock until the transaction ends: increasing, gap-free on commit). */
export async function nextIdEmisor(tx: DbOrTx, companyId: number): Promise<number> {
  const [row] = await tx
    .insert(dgiIdEmisorCounters)
    .values({ companyId, lastIdEmisor: 1 })
    .onConflictDoUpdate({ target: dgiIdEmisorCounters.companyId, set: { lastIdEmisor: sql`${dgiIdEmisorCounters.lastIdEmisor} + 1` } })
    .returning({ id: dgiIdEmisorCounters.lastIdEmisor });
  return Number(row.id);
}

/**
 * Every column but the XML ones. An envelope's XML is up to 2 MB, TOASTed and compressed: the
 * lifecycle steps that only read or lock its state must not have PostgreSQL decompress and ship it
 * (it was ~15 % of PostgreSQL's time in the lifecycle bench).
 */
const { xml: _xml, ackSobreXml: _ackSobre, ackCfeXml: _ackCfe, ...stateColumns } = getTableColumns(dgiEnvelopes);
export type DgiEnvelopeState = Omit<DgiEnvelopeRow, 'xml' | 'ackSobreXml' | 'ackCfeXml'>;

export async function insertEnvelope(tx: DbOrTx, values: typeof dgiEnvelopes.$inferInsert, cfeIds: number[]): Promise<DgiEnvelopeRow> {
  const [env] = await tx.insert(dgiEnvelopes).values(values).returning(stateColumns);
  await tx.insert(dgiEnvelopeItems).values(cfeIds.map((issuedCfeId, i) => ({ envelopeId: env.id, companyId: env.companyId, issuedCfeId, ordinal: i + 1 })));
  return { ...env, xml: values.xml ?? null, ackSobreXml: values.ackSobreXml ?? null, ackCfeXml: values.ackCfeXml ?? null };
}

/** The signed XML of issued CFEs by id (issued-cfe module, handoff cfesForEnvelope). */
export type CfeXmlReader = (db: Db, ids: number[]) => Promise<Array<{ id: number; xml: string }>>;

/**
 * The EnvioCFE bytes of an envelope: stored whole (before migration 0046), or its head and its CFEs' own signed XML
 * in item order (dgi_envelopes.xml). A CFE's XML never changes after signing (its signature covers it); as a safety net
 * the length must be the one recorded at build time, or the envelope is neither sent nor served.
 */
export async function envelopeXml(db: Db, env: Pick<DgiEnvelopeRow, 'id' | 'xml' | 'xmlHead' | 'bytes'>, cfeXml: CfeXmlReader): Promise<string> {
  if (env.xml !== null) return env.xml;
  const ids = await envelopeItems(db, env.id);
  const byId = new Map((await cfeXml(db, ids)).map((c) => [c.id, c.xml]));
  const xml = assembleEnvioCfe(env.xmlHead!, ids.map((id) => byId.get(id) ?? ''));
  if (Buffer.byteLength(xml) !== env.bytes) throw new Error(`Envelope ${env.id}: its CFEs' XML gives ${Buffer.byteLength(xml)} bytes, ${env.bytes} were built`);
  return xml;
}

export async function envelopeItems(db: DbOrTx, envelopeId: number): Promise<number[]> {
  const rows = await db.select({ id: dgiEnvelopeItems.issuedCfeId }).from(dgiEnvelopeItems).where(eq(dgiEnvelopeItems.envelopeId, envelopeId)).orderBy(asc(dgiEnvelopeItems.ordinal));
  return rows.map((r) => r.id);
}

/** The live envelopes holding any of these CFEs (at most one each, by the partial unique index). */
export async function liveEnvelopesOf(db: DbOrTx, cfeIds: number[]) {
  if (cfeIds.length === 0) return [];
  return db.select({ envelopeId: dgiEnvelopeItems.envelopeId, issuedCfeId: dgiEnvelopeItems.issuedCfeId }).from(dgiEnvelopeItems)
    .where(and(inArray(dgiEnvelopeItems.issuedCfeId, cfeIds), eq(dgiEnvelopeItems.live, true)));
}

export async function markItemsDead(tx: DbOrTx, envelopeId: number): Promise<void> {
  await tx.update(dgiEnvelopeItems).set({ live: false }).where(eq(dgiEnvelopeItems.envelopeId, envelopeId));
}

export async function findEnvelope(db: DbOrTx, id: number): Promise<DgiEnvelopeRow | undefined> {
  const [row] = await db.select().from(dgiEnvelopes).where(eq(dgiEnvelopes.id, id));
  return row;
}

/** The envelope without its XML (see stateColumns). */
export async function findEnvelopeState(db: DbOrTx, id: number): Promise<DgiEnvelopeState | undefined> {
  const [row] = await db.select(stateColumns).from(dgiEnvelopes).where(eq(dgiEnvelopes.id, id));
  return row;
}

export async function lockEnvelope(tx: DbOrTx, id: number): Promise<DgiEnvelopeState | undefined> {
  const [row] = await tx.select(stateColumns).from(dgiEnvelopes).where(eq(dgiEnvelopes.id, id)).for('update');
  return row;
}

/**
 * Takes the envelope for one send: only while `creado` and not held by another sender. Counts the
 * attempt before the request leaves, so a crash mid-send is visible as an attempt without answer.
 */
export async function leaseForSend(db: DbOrTx, id: number, leaseMs: number, opts: { takeOver?: boolean } = {}): Promise<DgiEnvelopeRow | undefined> {
  // takeOver: the caller holds the envelope's send lock, so a lease still running belongs to a dead sender.
  const free = opts.takeOver ? sql`true` : sql`(${dgiEnvelopes.leaseUntil} is null or ${dgiEnvelopes.leaseUntil} < now())`;
  const [row] = await db
    .update(dgiEnvelopes)
    .set({ leaseUntil: sql`now() + ${`${leaseMs} milliseconds`}::interval`, sendAttempts: sql`${dgiEnvelopes.sendAttempts} + 1` })
    .where(and(eq(dgiEnvelopes.id, id), eq(dgiEnvelopes.estado, 'creado'), free))
    .returning();
  return row;
}

export async function updateEnvelope(db: DbOrTx, id: number, values: Partial<typeof dgiEnvelopes.$inferInsert>): Promise<void> {
  await db.update(dgiEnvelopes).set(values).where(eq(dgiEnvelopes.id, id));
}

/** Envelopes whose send or poll job may have been lost (worker killed): due and not leased. */
export async function strandedEnvelopes(db: DbOrTx, limit = 200): Promise<Pick<DgiEnvelopeRow, 'id' | 'estado'>[]> {
  return db.select({ id: dgiEnvelopes.id, estado: dgiEnvelopes.estado }).from(dgiEnvelopes)
    .where(and(
      inArray(dgiEnvelopes.estado, ['creado', 'recibido']),
      sql`(${dgiEnvelopes.leaseUntil} is null or ${dgiEnvelopes.leaseUntil} < now())`,
      sql`coalesce(${dgiEnvelopes.nextAttemptAt}, ${dgiEnvelopes.consultarDesde}, ${dgiEnvelopes.createdAt}) < now() - interval '2 minutes'`,
    ))
    .orderBy(asc(dgiEnvelopes.id)).limit(limit);
}

export async function listEnvelopes(db: DbOrTx, companyId: number, offset: number, limit: number) {
  const where = eq(dgiEnvelopes.companyId, companyId);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(dgiEnvelopes).where(where).orderBy(desc(dgiEnvelopes.id)).offset(offset).limit(limit),
    db.select({ total: sql<number>`count(*)::int` }).from(dgiEnvelopes).where(where),
  ]);
  return { rows, total };
}

export async function getSettings(db: DbOrTx, companyId: number): Promise<EnvioIndividualMode> {
  const [row] = await db.select().from(dgiSubmissionSettings).where(eq(dgiSubmissionSettings.companyId, companyId));
  return (row?.envioIndividual ?? 'todos') as EnvioIndividualMode;
}

export async function putSettings(db: DbOrTx, companyId: number, mode: EnvioIndividualMode): Promise<void> {
  await db.insert(dgiSubmissionSettings).values({ companyId, envioIndividual: mode })
    .onConflictDoUpdate({ target: dgiSubmissionSettings.companyId, set: { envioIndividual: mode, updatedAt: sql`now()` } });
}
