import { and, asc, desc, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
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

// What the insert reads back: not the bytes just written (up to 2 MB, sent back hex-encoded and decoded again).
const { bytes: _envelopeBytes, ...envelopeWritten } = getTableColumns(receivedEnvelopes);

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

export type ReceivedCfeInsert = typeof receivedCfes.$inferInsert;
type CfeRecordKey = 'companyId' | 'secuencia' | 'envelopeId' | 'nroOrdinal' | 'canal' | 'rutEmisor' | 'razonSocialEmisor' | 'tipoCfe' | 'serie' | 'numero'
  | 'fechaEmision' | 'tmstFirma' | 'moneda' | 'tipoCambio' | 'mntTotal' | 'mntPagar' | 'datos' | 'adenda' | 'verificaciones' | 'estado' | 'motivos' | 'vencimientoRespuesta';
/** Columns the intake sets, but xml (`satisfies`: a column added to the intake's rows and missing here fails to compile). */
const CFE_RECORD = ['companyId', 'secuencia', 'envelopeId', 'nroOrdinal', 'canal', 'rutEmisor', 'razonSocialEmisor', 'tipoCfe', 'serie', 'numero', 'fechaEmision',
  'tmstFirma', 'moneda', 'tipoCambio', 'mntTotal', 'mntPagar', 'datos', 'adenda', 'verificaciones', 'estado', 'motivos', 'vencimientoRespuesta'] as const satisfies readonly CfeRecordKey[];
const cfeColumns = getTableColumns(receivedCfes);
const cfeRecordset = sql.raw(CFE_RECORD.map((k) => `"${k}" ${cfeColumns[k].getSQLType()}`).join(', '));
const cfeTargets = sql.raw([...CFE_RECORD.map((k) => toSnakeCase(k)), 'xml'].join(', '));
const cfeSources = sql.raw(CFE_RECORD.map((k) => `i."${k}"`).join(', '));

/**
 * An envelope's CFEs and their first history row (`mensaje`) in one statement; returns the rows as
 * stored, in the order given. Built as the issued CFEs' batch is (issued-cfe.fast-batch.ts): one
 * json_to_recordset parameter for the columns, the XMLs as one binary bytea that each row slices by
 * byte offset, instead of drizzle's ~25 parameters a row (its building was ~0.15 ms of the event
 * loop per CFE) and a second INSERT for the history. Only what the database sets or normalises is
 * read back (id, recibido_en, the numerics at their scale), not the XML and datos just written.
 */
export async function insertCfes(tx: DbOrTx, rows: ReceivedCfeInsert[], mensaje: string): Promise<ReceivedCfeRow[]> {
  if (!rows.length) return [];
  const xmls = rows.map((r) => Buffer.from(r.xml, 'utf8'));
  let from = 1; // substring() counts bytes from 1
  const input = JSON.stringify(rows.map((r, i) => {
    const at = from;
    from += xmls[i].length;
    return { ...recordOf(r), xmlFrom: at, xmlBytes: xmls[i].length };
  }));
  const result = await tx.execute<Stored>(sql`
    with input as materialized (
      select * from json_to_recordset(${input}::json) as i(${cfeRecordset}, "xmlFrom" int, "xmlBytes" int)
    ), ins as (
      insert into received_cfes (${cfeTargets})
      select ${cfeSources}, convert_from(substring(${Buffer.concat(xmls)}::bytea from i."xmlFrom" for i."xmlBytes"), 'UTF8') from input i
      returning id, company_id, secuencia, estado, motivos, recibido_en, tipo_cambio, mnt_total, mnt_pagar
    ), history as (
      insert into received_cfe_history (received_cfe_id, company_id, estado, motivos, mensaje)
      select id, company_id, estado, case when jsonb_array_length(motivos) > 0 then motivos end, ${mensaje} from ins
    )
    select id, secuencia, recibido_en, tipo_cambio, mnt_total, mnt_pagar from ins`);
  const bySecuencia = new Map((result.rows as Stored[]).map((r) => [Number(r.secuencia), r]));
  return rows.map((v) => {
    const got = bySecuencia.get(v.secuencia)!;
    return storedCfe(v, Number(got.id), new Date(got.recibido_en), got);
  });
}

type Stored = { id: string | number; secuencia: string | number; recibido_en: Date | string; tipo_cambio: string | null; mnt_total: string | null; mnt_pagar: string | null };

function recordOf(v: ReceivedCfeInsert): { [K in CfeRecordKey]-?: unknown } {
  return {
    companyId: v.companyId, secuencia: v.secuencia, envelopeId: v.envelopeId, nroOrdinal: v.nroOrdinal, canal: v.canal, rutEmisor: v.rutEmisor,
    razonSocialEmisor: v.razonSocialEmisor, tipoCfe: v.tipoCfe, serie: v.serie, numero: v.numero, fechaEmision: v.fechaEmision, tmstFirma: v.tmstFirma,
    moneda: v.moneda, tipoCambio: v.tipoCambio, mntTotal: v.mntTotal, mntPagar: v.mntPagar, datos: v.datos, adenda: v.adenda,
    verificaciones: v.verificaciones, estado: v.estado, motivos: v.motivos, vencimientoRespuesta: v.vencimientoRespuesta,
  };
}

const orNull = <T>(v: T | null | undefined): T | null => (v == null ? null : v);

/** The row as the database holds it, without reading it back (`satisfies`: a missing column fails to compile). */
function storedCfe(v: ReceivedCfeInsert, id: number, recibidoEn: Date, numerics: { tipo_cambio: string | null; mnt_total: string | null; mnt_pagar: string | null }): ReceivedCfeRow {
  return {
    id, companyId: v.companyId, secuencia: v.secuencia, envelopeId: orNull(v.envelopeId), nroOrdinal: orNull(v.nroOrdinal), canal: v.canal,
    rutEmisor: orNull(v.rutEmisor), razonSocialEmisor: orNull(v.razonSocialEmisor), tipoCfe: orNull(v.tipoCfe), serie: orNull(v.serie), numero: orNull(v.numero),
    fechaEmision: orNull(v.fechaEmision), tmstFirma: orNull(v.tmstFirma), moneda: orNull(v.moneda),
    tipoCambio: numerics.tipo_cambio, mntTotal: numerics.mnt_total, mntPagar: numerics.mnt_pagar,
    datos: orNull(v.datos), adenda: orNull(v.adenda), xml: v.xml, verificaciones: v.verificaciones ?? [], estado: v.estado, motivos: v.motivos ?? [],
    vencimientoRespuesta: orNull(v.vencimientoRespuesta), decididoEn: null, decididoPor: null, respuestaId: null, recibidoEn,
    stockReferencia: null, stockLineas: null, stockImportadoEn: null, stockImportadoPor: null,
  } satisfies Record<keyof ReceivedCfeRow, unknown>;
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

export async function setEnvelopeEmail(tx: DbOrTx, id: number, email: string): Promise<void> {
  await tx.update(receivedEnvelopes).set({ emailRespuesta: email }).where(eq(receivedEnvelopes.id, id));
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
