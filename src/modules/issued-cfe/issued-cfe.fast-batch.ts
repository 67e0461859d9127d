/**
 * The emission batch as ONE autocommit statement (issue 5 point 11): when a batch was sealed ahead
 * with forecast numbers (issued-cfe.forecast.ts), taking exactly those numbers, storing the CFEs and
 * writing their `Cfe.Emitido` events is a single statement: `reserved` (cae module) yields a row
 * only if the forecast still holds, and everything else is conditioned on it. One round trip under
 * the CAE row lock instead of six (BEGIN, reserve, ids, INSERT, events, COMMIT), and no parse of
 * returned XML. When the forecast no longer holds nothing is written and the caller falls back to
 * the transactional path, which reseals with the numbers it really reserves.
 */
import { Decimal } from 'decimal.js';
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import { PgNumeric } from 'drizzle-orm/pg-core';
import { executePrepared, type Db } from '../../platform/db/client.js';
import { issuedCfes, type IssuedCfeRow } from './issued-cfe.tables.js';

export type IssuedCfeInsert = typeof issuedCfes.$inferInsert;

/** Set by the database or later states, never by the emission batch. */
const NOT_INSERTED_KEYS = ['id', 'cfcRangeId', 'estado', 'estadoReceptor', 'estadoActualizadoEn', 'createdAt'] as const;
const NOT_INSERTED = new Set<string>(NOT_INSERTED_KEYS);
const columns = Object.entries(getTableColumns(issuedCfes)).filter(([key]) => !NOT_INSERTED.has(key));
const numericScale = new Map(columns.flatMap(([key, col]) => (col instanceof PgNumeric ? [[key, col.scale ?? 0] as const] : [])));

// json_to_recordset reads the rows as the app builds them (camelCase keys), typed by the table itself;
// column names as drizzle's `casing: 'snake_case'` writes them. The signed XML (~6 KB, most of the
// statement) travels apart, as one binary bytea of all the batch's XMLs that each row slices by byte
// offset, instead of being scanned by JSON.stringify and by PostgreSQL's JSON parser. Measured on a
// 16-row statement with a real signed e-Ticket (3.8 KB): PostgreSQL CPU 34 -> 15 µs per row, Node
// 24 -> 14 µs (about 3 % of a receipt's CPU; too small to see through this VM's noise in the bench).
const inJson = columns.filter(([key]) => key !== 'xml');
const recordsetTypes = sql.raw(inJson.map(([key, col]) => `"${key}" ${col.getSQLType()}`).join(', '));
// The xml column last: its value is the slice, after the recordset's columns.
const targetColumns = sql.raw([...inJson.map(([key]) => toSnakeCase(key)), 'xml'].join(', '));
const sourceColumns = sql.raw(inJson.map(([key]) => `i."${key}"`).join(', '));

export interface FastBatchRow {
  values: IssuedCfeInsert;
  /** The `Cfe.Emitido` resource; its `idCfeEmitido` is set by the statement. */
  event: { type: string; data: Record<string, unknown> };
}

/**
 * Runs the statement on its own (autocommit: never inside a transaction); returns each row's id
 * and created_at in input order, or undefined when `reservation` took nothing (the forecast no
 * longer holds; nothing was written).
 * `reservation`: CTEs ending in `reserved` (cae service exactReservationCtes).
 * `insertEvents`: the events module's INSERT of the rows a query yields (company_id, type, data).
 */
export async function insertWithReservation(db: Db, reservation: SQL, insertEvents: (select: SQL) => SQL, rows: FastBatchRow[]): Promise<Array<{ id: number; createdAt: Date }> | undefined> {
  const xmls = rows.map((r) => Buffer.from(r.values.xml, 'utf8'));
  let from = 1; // substring() counts bytes from 1
  const input = JSON.stringify(rows.map((r, i) => {
    const at = from;
    from += xmls[i].length;
    return recordOf(r.values, at, xmls[i].length, r.event);
  }));
  // Named: parsed and planned once per connection, the statement's text never changes. The XMLs'
  // Buffer goes to PostgreSQL in binary format: the bytes arrive as they are.
  const result = await executePrepared<{ id: string | number; numero: number; created_at: Date | string }>(db, sql`
    with ${reservation},
    input as materialized (
      select * from json_to_recordset(${input}::json) as i(${recordsetTypes}, "xmlFrom" int, "xmlBytes" int, "eventType" text, "eventData" jsonb)
    ), ins as (
      insert into issued_cfes (${targetColumns})
      select ${sourceColumns}, convert_from(substring(${Buffer.concat(xmls)}::bytea from i."xmlFrom" for i."xmlBytes"), 'UTF8')
      from input i where exists (select 1 from reserved)
      returning id, numero, created_at
    ), events as (${insertEvents(sql`select i."companyId", i."eventType", i."eventData" || jsonb_build_object('idCfeEmitido', ins.id) from ins join input i on i."numero" = ins.numero`)})
    select id, numero, created_at from ins`);
  const byNumber = new Map(result.rows.map((r) => [Number(r.numero), r]));
  if (byNumber.size === 0) return undefined;
  return rows.map((r) => {
    const got = byNumber.get(r.values.numero)!;
    return { id: Number(got.id), createdAt: new Date(got.created_at) };
  });
}

type RecordKey = Exclude<keyof IssuedCfeInsert, (typeof NOT_INSERTED_KEYS)[number] | 'xml'>;

/**
 * One json_to_recordset row: every inserted column but the XML (the mapped type makes a column
 * added to the table and missing here a compile error), then where its XML lies in the bytea and
 * its event. Written out rather than `{ ...values, xml: undefined, xmlFrom, ... }`: on Node 20's V8
 * adding properties to a spread copy misses the inline cache on every call (~9 µs for this row,
 * against well under 1 µs for the literal).
 */
function recordOf(v: IssuedCfeInsert, xmlFrom: number, xmlBytes: number, event: FastBatchRow['event']): { [K in RecordKey]-?: unknown } & Record<string, unknown> {
  return {
    companyId: v.companyId, branchId: v.branchId, emissionPointId: v.emissionPointId, caeRangeId: v.caeRangeId, tipoCfe: v.tipoCfe, serie: v.serie,
    numero: v.numero, fechaEmision: v.fechaEmision, tmstFirma: v.tmstFirma, firmadoEn: v.firmadoEn, receptorTipoDoc: v.receptorTipoDoc,
    receptorDocumento: v.receptorDocumento, receptorNombre: v.receptorNombre, customerId: v.customerId, moneda: v.moneda, tipoCambio: v.tipoCambio,
    mntTotal: v.mntTotal, mntPagar: v.mntPagar, mntNetoIvaTasaMin: v.mntNetoIvaTasaMin, mntNetoIvaTasaBasica: v.mntNetoIvaTasaBasica,
    mntIvaTasaMin: v.mntIvaTasaMin, mntIvaTasaBasica: v.mntIvaTasaBasica, mntNoGrv: v.mntNoGrv, totales: v.totales, digestValue: v.digestValue,
    codigoSeguridad: v.codigoSeguridad, urlQr: v.urlQr, adenda: v.adenda, idempotencyKey: v.idempotencyKey, requestHash: v.requestHash,
    xmlFrom, xmlBytes, eventType: event.type, eventData: event.data,
  };
}

const canonical = new Map<number, RegExp>();

/** A numeric as PostgreSQL prints it at `scale`; the totals' own strings ("944.23") usually already are. */
function atScale(v: string | number, scale: number): string {
  let re = canonical.get(scale);
  if (!re) canonical.set(scale, (re = new RegExp(`^-?(0|[1-9]\\d*)${scale ? `\\.\\d{${scale}}` : ''}$`)));
  return typeof v === 'string' && re.test(v) && v !== `-${(0).toFixed(scale)}` ? v : new Decimal(v).toFixed(scale);
}

const scale = (key: string) => numericScale.get(key)!;
const MONEY = scale('mntTotal');
const RATE = scale('tipoCambio');
const orNull = <T>(v: T | null | undefined): T | null => (v == null ? null : v);
const numeric = (v: string | null | undefined, at: number): string | null => (v == null ? null : atScale(v, at));

/**
 * The stored row as the database returns it (numeric columns at their scale, nulls for absent
 * values), without reading it back. A literal over every column (`satisfies` makes a missing one a
 * compile error), not keyed stores in a loop: those went through V8's runtime on every receipt.
 */
export function storedRow(v: IssuedCfeInsert, got: { id: number; createdAt: Date }): IssuedCfeRow {
  return {
    id: got.id, companyId: v.companyId, branchId: v.branchId, emissionPointId: v.emissionPointId, caeRangeId: orNull(v.caeRangeId), cfcRangeId: null,
    tipoCfe: v.tipoCfe, serie: v.serie, numero: v.numero, fechaEmision: v.fechaEmision, tmstFirma: v.tmstFirma, firmadoEn: v.firmadoEn,
    receptorTipoDoc: orNull(v.receptorTipoDoc), receptorDocumento: orNull(v.receptorDocumento), receptorNombre: orNull(v.receptorNombre),
    customerId: orNull(v.customerId), moneda: v.moneda, tipoCambio: numeric(v.tipoCambio, RATE),
    mntTotal: numeric(v.mntTotal, MONEY), mntPagar: numeric(v.mntPagar, MONEY), mntNetoIvaTasaMin: numeric(v.mntNetoIvaTasaMin, MONEY),
    mntNetoIvaTasaBasica: numeric(v.mntNetoIvaTasaBasica, MONEY), mntIvaTasaMin: numeric(v.mntIvaTasaMin, MONEY),
    mntIvaTasaBasica: numeric(v.mntIvaTasaBasica, MONEY), mntNoGrv: numeric(v.mntNoGrv, MONEY),
    totales: v.totales, xml: v.xml, digestValue: v.digestValue, codigoSeguridad: v.codigoSeguridad, urlQr: v.urlQr, adenda: orNull(v.adenda),
    estado: 'firmado', estadoReceptor: null, estadoActualizadoEn: null, idempotencyKey: orNull(v.idempotencyKey), requestHash: orNull(v.requestHash),
    createdAt: got.createdAt,
  } satisfies IssuedCfeRow;
}
