import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { issuedCfes } from '../issued-cfe/issued-cfe.tables.js';
import { dgiEnvelopeItems, dgiEnvelopes, dgiIdEmisorCounters, dgiSubmissionSettings, type DgiEnvelopeRow } from './dgi-submission.tables.js';
import { NET_AMOUNT_FIELDS, TICKET_TYPES, type EnvioIndividualMode } from './dgi-submission.policy.js';

/** Companies with CFEs waiting for an envelope (reads only the partial index issued_cfes_pending_dgi_idx). */
export async function companiesWithPending(db: DbOrTx, limit = 1000): Promise<number[]> {
  const rows = await db.execute<{ company_id: number }>(sql`
    with recursive c as (
      (select company_id from issued_cfes where estado = 'firmado' order by company_id limit 1)
      union all
      select (select i.company_id from issued_cfes i where i.estado = 'firmado' and i.company_id > c.company_id order by i.company_id limit 1)
      from c where c.company_id is not null
    ) select company_id from c where company_id is not null limit ${limit}`);
  return rows.rows.map((r: { company_id: number }) => Number(r.company_id));
}

export interface PendingCfe {
  id: number;
  companyId: number;
  tipoCfe: number;
  xml: string;
  bytes: number;
}

/**
 * Locks up to `limit` CFEs of the company waiting for DGI (oldest first), skipping rows another
 * worker holds. With 'obligatorios', e-Tickets at or below the UI threshold are not claimed: they go
 * only in the daily report (BRIEF 1).
 */
export async function claimPending(tx: DbOrTx, companyId: number, limit: number, mode: EnvioIndividualMode, uiThresholdUyu: string): Promise<PendingCfe[]> {
  const net = sql.join(NET_AMOUNT_FIELDS.map((f) => sql`coalesce((${issuedCfes.totales}->>${f})::numeric, 0)`), sql` + `);
  const filter =
    mode === 'todos'
      ? sql``
      : sql`and (${issuedCfes.tipoCfe} not in (${sql.join(TICKET_TYPES.map((t) => sql`${t}`), sql`, `)})
             or (${net}) * (case when ${issuedCfes.moneda} = 'UYU' then 1 else coalesce(${issuedCfes.tipoCambio}, 1) end) > ${uiThresholdUyu}::numeric)`;
  const rows = await tx.execute<{ id: number; company_id: number; tipo_cfe: number; xml: string; bytes: number }>(sql`
    select id, company_id, tipo_cfe, xml, octet_length(xml) as bytes from issued_cfes
    where company_id = ${companyId} and estado = 'firmado' ${filter}
    order by id limit ${limit} for update skip locked`);
  return rows.rows.map((r: { id: number; company_id: number; tipo_cfe: number; xml: string; bytes: number }) => ({ id: Number(r.id), companyId: Number(r.company_id), tipoCfe: Number(r.tipo_cfe), xml: r.xml, bytes: Number(r.bytes) }));
}

/** Next Idemisor of the company (row lock until the transaction ends: increasing, gap-free on commit). */
export async function nextIdEmisor(tx: DbOrTx, companyId: number): Promise<number> {
  const [row] = await tx
    .insert(dgiIdEmisorCounters)
    .values({ companyId, lastIdEmisor: 1 })
    .onConflictDoUpdate({ target: dgiIdEmisorCounters.companyId, set: { lastIdEmisor: sql`${dgiIdEmisorCounters.lastIdEmisor} + 1` } })
    .returning({ id: dgiIdEmisorCounters.lastIdEmisor });
  return Number(row.id);
}

export async function insertEnvelope(tx: DbOrTx, values: typeof dgiEnvelopes.$inferInsert, cfeIds: number[]): Promise<DgiEnvelopeRow> {
  const [env] = await tx.insert(dgiEnvelopes).values(values).returning();
  await tx.insert(dgiEnvelopeItems).values(cfeIds.map((issuedCfeId, i) => ({ envelopeId: env.id, issuedCfeId, ordinal: i + 1 })));
  return env;
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

export async function lockEnvelope(tx: DbOrTx, id: number): Promise<DgiEnvelopeRow | undefined> {
  const [row] = await tx.select().from(dgiEnvelopes).where(eq(dgiEnvelopes.id, id)).for('update');
  return row;
}

/**
 * Takes the envelope for one send: only while `creado` and not held by another sender. Counts the
 * attempt before the request leaves, so a crash mid-send is visible as an attempt without answer.
 */
export async function leaseForSend(db: DbOrTx, id: number, leaseMs: number): Promise<DgiEnvelopeRow | undefined> {
  const [row] = await db
    .update(dgiEnvelopes)
    .set({ leaseUntil: sql`now() + ${`${leaseMs} milliseconds`}::interval`, sendAttempts: sql`${dgiEnvelopes.sendAttempts} + 1` })
    .where(and(eq(dgiEnvelopes.id, id), eq(dgiEnvelopes.estado, 'creado'), sql`(${dgiEnvelopes.leaseUntil} is null or ${dgiEnvelopes.leaseUntil} < now())`))
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

/** CFEs by id for generarSobreDgi (ownership checked by the caller). */
export async function cfesForEnvelope(db: DbOrTx, ids: number[]) {
  if (ids.length === 0) return [];
  return db.select({ id: issuedCfes.id, companyId: issuedCfes.companyId, tipoCfe: issuedCfes.tipoCfe, xml: issuedCfes.xml, estado: issuedCfes.estado, estadoReceptor: issuedCfes.estadoReceptor }).from(issuedCfes).where(inArray(issuedCfes.id, ids));
}
