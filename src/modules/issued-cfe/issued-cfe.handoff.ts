/**
 * What other modules read of issued CFEs to pass them on: DGI submission (receipts waiting for an
 * envelope), the exchange with electronic receivers (receipts still to send them) and the daily
 * report (a day's receipts). STYLE: a module's tables are read only by its own code, so these
 * queries live here and reach those modules as ports wired in modules/index.ts, as the state
 * changes of issued-cfe.history.ts do. Locking queries lock in the caller's transaction.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { UY_UTC_OFFSET } from '../../lib/dates.js';
import type { DbOrTx } from '../../platform/db/client.js';
import { issuedCfes } from './issued-cfe.tables.js';
import type { SealedXmlCache } from './issued-cfe.xml-cache.js';

// ---- DGI submission -------------------------------------------------------------------------

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

/** Types that are not claimed while their net amount in UYU is at or below `uiThresholdUyu`. */
export interface BelowThresholdFilter {
  types: readonly number[];
  /** Totales fields whose sum is the net amount. */
  netFields: readonly string[];
  uiThresholdUyu: string;
}

/**
 * Locks up to `limit` CFEs of the company waiting for DGI (oldest first), skipping rows another
 * worker holds; with `skip`, receipts of its types at or below the threshold are left alone. Their
 * XML comes from `cache` where it holds it with the stored byte length, else from the table.
 */
export async function claimPending(tx: DbOrTx, companyId: number, limit: number, skip?: BelowThresholdFilter, cache?: SealedXmlCache): Promise<PendingCfe[]> {
  let filter = sql``;
  if (skip) {
    const net = sql.join(skip.netFields.map((f) => sql`coalesce((${issuedCfes.totales}->>${f})::numeric, 0)`), sql` + `);
    filter = sql`and (${issuedCfes.tipoCfe} not in (${sql.join(skip.types.map((t) => sql`${t}`), sql`, `)})
             or (${net}) * (case when ${issuedCfes.moneda} = 'UYU' then 1 else coalesce(${issuedCfes.tipoCambio}, 1) end) > ${skip.uiThresholdUyu}::numeric)`;
  }
  // octet_length of a TOASTed value reads its pointer: the XML itself is not fetched here.
  const claimed: Array<Omit<PendingCfe, 'xml'>> = (await tx.execute<{ id: number; company_id: number; tipo_cfe: number; bytes: number }>(sql`
    select id, company_id, tipo_cfe, octet_length(xml) as bytes from issued_cfes
    where company_id = ${companyId} and estado = 'firmado' ${filter}
    order by id limit ${limit} for update skip locked`)).rows.map((r: { id: number; company_id: number; tipo_cfe: number; bytes: number }) => ({ id: Number(r.id), companyId: Number(r.company_id), tipoCfe: Number(r.tipo_cfe), bytes: Number(r.bytes) }));
  const xmls = cache?.take(claimed.map((c) => c.id)) ?? new Map<number, string>();
  for (const c of claimed) if (xmls.has(c.id) && Buffer.byteLength(xmls.get(c.id)!, 'utf8') !== c.bytes) xmls.delete(c.id);
  const missing = claimed.filter((c) => !xmls.has(c.id)).map((c) => c.id);
  for (const r of await cfesForEnvelope(tx, missing)) xmls.set(Number(r.id), r.xml);
  return claimed.map((c) => ({ ...c, xml: xmls.get(c.id)! }));
}

/**
 * CFEs by id for an envelope built on request or assembled again for a resend (ownership checked by
 * the caller). The ids go as one array parameter: an envelope holds up to 250, and an IN list made
 * a parameter and a distinct statement text of each count.
 */
export async function cfesForEnvelope(db: DbOrTx, ids: number[]) {
  if (ids.length === 0) return [];
  const idList = `{${ids.map((id) => Math.trunc(id)).join(',')}}`;
  return db.select({ id: issuedCfes.id, companyId: issuedCfes.companyId, tipoCfe: issuedCfes.tipoCfe, xml: issuedCfes.xml, estado: issuedCfes.estado, estadoReceptor: issuedCfes.estadoReceptor })
    .from(issuedCfes).where(sql`${issuedCfes.id} = any(${idList}::bigint[])`);
}

/**
 * Receipts sent to DGI (en_cola_dgi, sobre_recibido) whose state has not changed since `before`:
 * the stale-receipt sweep asks DGI about them (issue 29). Reads issued_cfes_awaiting_dgi_idx.
 */
export async function awaitingDgiSince(db: DbOrTx, before: Date, limit: number): Promise<number[]> {
  const rows = await db
    .select({ id: issuedCfes.id })
    .from(issuedCfes)
    .where(and(inArray(issuedCfes.estado, ['en_cola_dgi', 'sobre_recibido']), sql`${issuedCfes.estadoActualizadoEn} < ${before.toISOString()}::timestamptz`))
    .orderBy(issuedCfes.estadoActualizadoEn)
    .limit(limit);
  return rows.map((r) => Number(r.id));
}

// ---- Exchange with electronic receivers (issue 6 point 1: only the receiver-side columns) ------

const exchangeColumns = {
  id: issuedCfes.id,
  companyId: issuedCfes.companyId,
  tipoCfe: issuedCfes.tipoCfe,
  serie: issuedCfes.serie,
  numero: issuedCfes.numero,
  receptorTipoDoc: issuedCfes.receptorTipoDoc,
  receptorDocumento: issuedCfes.receptorDocumento,
  customerId: issuedCfes.customerId,
  estado: issuedCfes.estado,
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
  /** DGI-side state: the receiver exchange delivers only the states its rule allows (BRIEF 1). */
  estado: string;
  estadoReceptor: string | null;
  xml: string;
  adenda: string | null;
}

export async function exchangeCfesByIds(db: DbOrTx, ids: number[]): Promise<ExchangeCfe[]> {
  return db.select(exchangeColumns).from(issuedCfes).where(inArray(issuedCfes.id, ids)) as Promise<ExchangeCfe[]>;
}

/**
 * CFEs of electronic receivers not sent yet (estado_receptor null), never CFCs (BRIEF 5/10), whose
 * DGI state is one of `dgiStates` (the caller's rule: BRIEF 1, DGI gets each CFE before the
 * receiver does; a DGI-rejected CFE is annulled, BRIEF 10), locked with SKIP LOCKED so concurrent
 * dispatchers split the work. Age counts from the last state change (else signing), so a CFE that
 * reaches DGI late (DGI unreachable for days) is still delivered once DGI has it.
 */
export async function claimUnsentToReceivers(tx: DbOrTx, customerIds: number[], dgiStates: readonly string[], maxAgeDays: number, limit: number): Promise<ExchangeCfe[]> {
  if (customerIds.length === 0 || dgiStates.length === 0) return [];
  return tx
    .select(exchangeColumns)
    .from(issuedCfes)
    .where(and(
      inArray(issuedCfes.customerId, customerIds),
      inArray(issuedCfes.estado, [...dgiStates]),
      sql`${issuedCfes.estadoReceptor} is null`,
      sql`${issuedCfes.tipoCfe} < 200`,
      sql`coalesce(${issuedCfes.estadoActualizadoEn}, ${issuedCfes.firmadoEn}) > now() - make_interval(days => ${maxAgeDays})`,
    ))
    .orderBy(issuedCfes.id)
    .limit(limit)
    .for('update', { skipLocked: true }) as Promise<ExchangeCfe[]>;
}

/** One CFE by its DGI identity, locked (a receiver's acknowledgement names it so). */
export async function lockExchangeCfe(tx: DbOrTx, companyId: number, tipoCfe: number, serie: string, numero: number): Promise<ExchangeCfe | undefined> {
  const rows = await tx.select(exchangeColumns).from(issuedCfes).where(and(eq(issuedCfes.companyId, companyId), eq(issuedCfes.tipoCfe, tipoCfe), eq(issuedCfes.serie, serie), eq(issuedCfes.numero, numero))).for('update');
  return rows[0] as ExchangeCfe | undefined;
}

/** A DGI-rejected CFE as its annulment notice to the receiver names it (BRIEF 8: CFEs_Anulados_x_RechazoDGI). */
export interface AnnulledCfe {
  id: number;
  companyId: number;
  tipoCfe: number;
  serie: string;
  numero: number;
  /** FchEmis, YYYY-MM-DD: the notice's FechaCFE. */
  fechaEmision: string;
  receptorDocumento: string | null;
}

/**
 * Ids of the companies' DGI-rejected CFEs that reached a receiver (estado_receptor set: e-mailed by
 * the exchange, or answered by the receiver), rejected within `maxAgeDays`. Not locked: the caller
 * narrows the list with its own records, then claims the rest with claimRejected. Uses
 * issued_cfes_company_estado_idx; DGI rejections are few, so the list stays short.
 */
export async function rejectedSentToReceivers(db: DbOrTx, companyIds: number[], maxAgeDays: number): Promise<number[]> {
  if (companyIds.length === 0) return [];
  const rows = await db
    .select({ id: issuedCfes.id })
    .from(issuedCfes)
    .where(and(
      inArray(issuedCfes.companyId, companyIds),
      eq(issuedCfes.estado, 'rechazado'),
      sql`${issuedCfes.estadoReceptor} is not null`,
      sql`coalesce(${issuedCfes.estadoActualizadoEn}, ${issuedCfes.firmadoEn}) > now() - make_interval(days => ${maxAgeDays})`,
    ));
  return rows.map((r) => Number(r.id));
}

/** Locks the still DGI-rejected CFEs among `ids`, skipping rows another transaction holds (concurrent dispatchers). */
export async function claimRejected(tx: DbOrTx, ids: number[]): Promise<AnnulledCfe[]> {
  if (ids.length === 0) return [];
  return tx
    .select({ id: issuedCfes.id, companyId: issuedCfes.companyId, tipoCfe: issuedCfes.tipoCfe, serie: issuedCfes.serie, numero: issuedCfes.numero, fechaEmision: issuedCfes.fechaEmision, receptorDocumento: issuedCfes.receptorDocumento })
    .from(issuedCfes)
    .where(and(inArray(issuedCfes.id, ids), eq(issuedCfes.estado, 'rechazado')))
    .orderBy(issuedCfes.id)
    .for('update', { skipLocked: true }) as Promise<AnnulledCfe[]>;
}

// ---- Daily report ----------------------------------------------------------------------------

/** One issued CFE of the day, with what the report needs (amounts stay in the stored Totales). */
export interface DayCfeRow {
  id: number;
  tipoCfe: number;
  serie: string;
  numero: number;
  fechaEmision: string;
  moneda: string;
  tipoCambio: string | null;
  totales: Record<string, unknown>;
  estado: string;
  cdgDgiSucur: string | null;
  indPagCta3ros: string | null;
  /** Code of the DGI rejection (history), to tell E02/E09 (not voided) from the rest. */
  codigoRechazo: string | null;
}

/**
 * CFEs and CFCs signed on `fecha` (BRIEF 9: FechaResumen = the date of TmstFirma). CdgDGISucur and
 * IndPagCta3ros are read from the signed XML in SQL, so the XML itself never leaves the database.
 */
export async function cfesSignedOn(db: DbOrTx, companyId: number, fecha: string): Promise<DayCfeRow[]> {
  const from = `${fecha}T00:00:00${UY_UTC_OFFSET}`;
  const r = await db.execute(sql`
    select ic.id, ic.tipo_cfe as "tipoCfe", ic.serie, ic.numero, ic.fecha_emision::text as "fechaEmision", ic.moneda,
           ic.tipo_cambio::text as "tipoCambio", ic.totales, ic.estado,
           substring(ic.xml from '<(?:[A-Za-z0-9_]+:)?CdgDGISucur>([0-9]+)<') as "cdgDgiSucur",
           substring(ic.xml from '<(?:[A-Za-z0-9_]+:)?IndPagCta3ros>([0-9]+)<') as "indPagCta3ros",
           (select h.codigo from issued_cfe_state_history h
             where h.issued_cfe_id = ic.id and h.lado = 'dgi' and h.estado = 'rechazado' order by h.id desc limit 1) as "codigoRechazo"
      from issued_cfes ic
     where ic.company_id = ${companyId}
       and ic.firmado_en >= ${from}::timestamptz and ic.firmado_en < ${from}::timestamptz + interval '1 day'
     order by ic.tipo_cfe, ic.serie, ic.numero`);
  return r.rows as unknown as DayCfeRow[];
}

// ---- Recurring plans ------------------------------------------------------------------------

/** Current DGI-side state of issued CFEs (the recurring runs' history shows it). */
export async function dgiStatesOf(db: DbOrTx, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: issuedCfes.id, estado: issuedCfes.estado }).from(issuedCfes).where(inArray(issuedCfes.id, [...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r.estado]));
}

export interface KeyedCfe {
  id: number;
  tipoCfe: number;
  serie: string;
  numero: number;
  estado: string;
  createdAt: Date;
}

/** The CFEs a company issued under these Idempotency-Keys (a run whose CFE exists shows it even before the run is marked). */
export async function cfesByIdempotencyKeys(db: DbOrTx, companyId: number, keys: string[]): Promise<Map<string, KeyedCfe>> {
  if (keys.length === 0) return new Map();
  const rows = await db.select({ key: issuedCfes.idempotencyKey, id: issuedCfes.id, tipoCfe: issuedCfes.tipoCfe, serie: issuedCfes.serie, numero: issuedCfes.numero, estado: issuedCfes.estado, createdAt: issuedCfes.createdAt })
    .from(issuedCfes).where(and(eq(issuedCfes.companyId, companyId), inArray(issuedCfes.idempotencyKey, [...new Set(keys)])));
  return new Map(rows.map(({ key, ...cfe }) => [key!, cfe]));
}

// ---- DGI testing set (issue 47) -------------------------------------------------------------

export interface DgiVerdictRow {
  id: number;
  tipoCfe: number;
  serie: string;
  numero: number;
  estado: string;
  /** DGI's last motive code and message on this CFE (history), when it rejected or refused it. */
  codigo: string | null;
  mensaje: string | null;
}

/** Where each CFE stands with DGI, with the last DGI code and message (the testing set's report). */
export async function dgiVerdictsOf(db: DbOrTx, ids: number[]): Promise<DgiVerdictRow[]> {
  if (ids.length === 0) return [];
  const r = await db.execute(sql`
    select ic.id, ic.tipo_cfe as "tipoCfe", ic.serie, ic.numero, ic.estado, h.codigo, h.mensaje
      from issued_cfes ic
      left join lateral (select codigo, coalesce(mensaje, motivos::text) as mensaje from issued_cfe_state_history
                          where issued_cfe_id = ic.id and lado = 'dgi' and codigo is not null order by id desc limit 1) h on true
     where ic.id in (${sql.join([...new Set(ids)].map((id) => sql`${id}`), sql`, `)})
     order by ic.id`);
  // bigint ids come back as text from a raw query.
  return (r.rows as unknown as DgiVerdictRow[]).map((row) => ({ ...row, id: Number(row.id), tipoCfe: Number(row.tipoCfe), numero: Number(row.numero) }));
}
