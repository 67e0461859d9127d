/**
 * Search of issued CFEs (issue 7 point 1): one filter schema shared by buscar, exportarExcel,
 * ExportacionContable/exportarExt and descargarPdfsFiltrados, a paged query with the exact total,
 * and a keyset-paginated iterator for the streamed exports (never the whole set in memory).
 * Every query leads with company_id so the composite indexes of issued-cfe.tables.ts apply.
 * Dates are Uruguay calendar days (UTC−3, no DST since 2015): `firmado_en` ranges are turned into
 * [desde 00:00−03, hasta+1 00:00−03) so the index on (company_id, firmado_en) serves them.
 */
import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { DbOrTx } from '../../platform/db/client.js';
import { calendarDate } from '../../platform/http/dates.js';
import { positiveInt4 } from '../../platform/http/numbers.js';
import type { Paging } from '../../platform/http/paging.js';
import { CFE_STATES, RECEPTOR_STATES } from '../emission/index.js';
import { amountFilter as amount, listOf } from '../../platform/http/query-filters.js';

/** Which date the fechaFirmaDesde/fechaFirmaHasta range applies to. */
export const TIPOS_FILTRO = ['fechaFirma', 'fechaEmision', 'fechaEstado'] as const;
export type TipoFiltro = (typeof TIPOS_FILTRO)[number];

export const SORT_KEYS = ['fechaFirma', 'fechaEmision', 'numero', 'mntTotal', 'receptorNombre'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

const ymd = calendarDate;

const intList = listOf(positiveInt4);

export const searchFiltersSchema = z.object({
  tipoFiltro: z.enum(TIPOS_FILTRO).default('fechaFirma').describe('Date the range applies to: `fechaFirma` (signing instant, Uruguay day; default), `fechaEmision` (the receipt\'s FchEmis), `fechaEstado` (last state change; the signing instant while the state never changed).'),
  fechaFirmaDesde: ymd.optional().describe('First day (YYYY-MM-DD, inclusive) of the range chosen by tipoFiltro.'),
  fechaFirmaHasta: ymd.optional().describe('Last day (YYYY-MM-DD, inclusive).'),
  tipoCfe: intList.describe('CFE type codes (101, 111, 112…): repeated or comma-separated.'),
  serie: z.string().trim().toUpperCase().regex(/^[A-Z]{1,2}$/, 'Serie de 1 o 2 letras.').optional(),
  numeroDesde: positiveInt4.optional(),
  numeroHasta: positiveInt4.optional(),
  receptorDocumento: z.string().trim().min(1).max(20).optional().describe('Receiver document (RUT, CI…), exact match.'),
  receptorNombre: z.string().trim().min(2).max(150).optional().describe('Part of the receiver name, case-insensitive (trigram index).'),
  estado: listOf(z.enum(CFE_STATES)).describe(`DGI states: ${CFE_STATES.join(', ')}.`),
  estadoReceptor: listOf(z.enum(RECEPTOR_STATES)).describe(`Receiver states: ${RECEPTOR_STATES.join(', ')}.`),
  idSucursal: positiveInt4.optional(),
  idPuntoEmision: positiveInt4.optional(),
  montoDesde: amount.optional().describe('Minimum MntTotal (in the receipt\'s currency), decimal string.'),
  montoHasta: amount.optional().describe('Maximum MntTotal, decimal string.'),
  moneda: z.string().trim().toUpperCase().regex(/^[A-Z]{3}$/, 'Código de moneda ISO de 3 letras.').optional(),
});
export type SearchFilters = z.infer<typeof searchFiltersSchema>;

export const sortSchema = z.object({
  orden: z.enum(SORT_KEYS).default('fechaFirma').describe(`Sort key: ${SORT_KEYS.join(', ')} (numero sorts by tipoCfe, serie, numero). Default fechaFirma.`),
  direccion: z.enum(['asc', 'desc']).default('desc').describe('Default desc (newest first).'),
});
export type Sort = z.infer<typeof sortSchema>;

/** idEmpresa + filters + sort: the body of exportarExcel, exportarExt and descargarPdfsFiltrados. */
export const companySearchSchema = z.object({ idEmpresa: positiveInt4 }).merge(searchFiltersSchema).merge(sortSchema);
export type CompanySearch = z.infer<typeof companySearchSchema>;

/** Cross-field checks (zod `superRefine` would make the schema non-mergeable for other routes). */
export function filterProblems(f: SearchFilters): string[] {
  const p: string[] = [];
  if (f.fechaFirmaDesde && f.fechaFirmaHasta && f.fechaFirmaDesde > f.fechaFirmaHasta) p.push('fechaFirmaDesde es posterior a fechaFirmaHasta.');
  if (f.numeroDesde && f.numeroHasta && f.numeroDesde > f.numeroHasta) p.push('numeroDesde es mayor que numeroHasta.');
  if (f.montoDesde && f.montoHasta && Number(f.montoDesde) > Number(f.montoHasta)) p.push('montoDesde es mayor que montoHasta.');
  return p;
}

/** Start of a Uruguay calendar day as an instant (UTC−3). */
export const uyDayStart = (day: string) => new Date(`${day}T00:00:00-03:00`);
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** Expression of the "last state change" date (indexed as an expression, see issued-cfe.tables.ts). */
export const STATE_DATE = sql.raw('coalesce(estado_actualizado_en, firmado_en)');

export function whereClause(companyId: number, f: SearchFilters): SQL {
  const c: SQL[] = [sql`company_id = ${companyId}`];
  const col = f.tipoFiltro === 'fechaEstado' ? STATE_DATE : sql.raw('firmado_en');
  if (f.tipoFiltro === 'fechaEmision') {
    if (f.fechaFirmaDesde) c.push(sql`fecha_emision >= ${f.fechaFirmaDesde}`);
    if (f.fechaFirmaHasta) c.push(sql`fecha_emision <= ${f.fechaFirmaHasta}`);
  } else {
    if (f.fechaFirmaDesde) c.push(sql`${col} >= ${uyDayStart(f.fechaFirmaDesde).toISOString()}::timestamptz`);
    if (f.fechaFirmaHasta) c.push(sql`${col} < ${uyDayStart(nextDay(f.fechaFirmaHasta)).toISOString()}::timestamptz`);
  }
  if (f.tipoCfe) c.push(sql`tipo_cfe in (${sql.join(f.tipoCfe.map((t) => sql`${t}`), sql`, `)})`);
  if (f.serie) c.push(sql`serie = ${f.serie}`);
  if (f.numeroDesde) c.push(sql`numero >= ${f.numeroDesde}`);
  if (f.numeroHasta) c.push(sql`numero <= ${f.numeroHasta}`);
  if (f.receptorDocumento) c.push(sql`receptor_documento = ${f.receptorDocumento}`);
  if (f.receptorNombre) c.push(sql`receptor_nombre ilike ${`%${f.receptorNombre.replace(/[\\%_]/g, (m) => `\\${m}`)}%`}`);
  if (f.estado) c.push(sql`estado in (${sql.join(f.estado.map((e) => sql`${e}`), sql`, `)})`);
  if (f.estadoReceptor) c.push(sql`estado_receptor in (${sql.join(f.estadoReceptor.map((e) => sql`${e}`), sql`, `)})`);
  if (f.idSucursal) c.push(sql`branch_id = ${f.idSucursal}`);
  if (f.idPuntoEmision) c.push(sql`emission_point_id = ${f.idPuntoEmision}`);
  if (f.montoDesde) c.push(sql`mnt_total >= ${f.montoDesde}::numeric`);
  if (f.montoHasta) c.push(sql`mnt_total <= ${f.montoHasta}::numeric`);
  if (f.moneda) c.push(sql`moneda = ${f.moneda}`);
  return sql.join(c, sql` and `);
}

/** Sort keys as SQL expressions; `id` always closes the key so keyset paging is total. */
const SORT_EXPR: Record<SortKey, string[]> = {
  fechaFirma: ['firmado_en'],
  // Qualified: a bare name in ORDER BY would mean the select list's `fecha_emision::text` (a text sort, no index).
  fechaEmision: ['issued_cfes.fecha_emision'],
  numero: ['tipo_cfe', 'serie', 'numero'],
  mntTotal: ['coalesce(mnt_total, 0)'],
  receptorNombre: [`coalesce(lower(receptor_nombre), '')`],
};

/** The columns of a search row: everything but the XML and the raw JSON totals (kept light on purpose). */
const SUMMARY = sql.raw(`id, company_id, branch_id, emission_point_id, tipo_cfe, serie, numero, fecha_emision::text as fecha_emision,
  tmst_firma, firmado_en, receptor_tipo_doc, receptor_documento, receptor_nombre, customer_id, moneda, tipo_cambio::text as tipo_cambio,
  mnt_total::text as mnt_total, mnt_pagar::text as mnt_pagar, mnt_neto_iva_tasa_min::text as mnt_neto_iva_tasa_min,
  mnt_neto_iva_tasa_basica::text as mnt_neto_iva_tasa_basica, mnt_iva_tasa_min::text as mnt_iva_tasa_min,
  mnt_iva_tasa_basica::text as mnt_iva_tasa_basica, mnt_no_grv::text as mnt_no_grv, codigo_seguridad, estado, estado_receptor,
  estado_actualizado_en, adenda`);

/** One search row (database names in camelCase; money as decimal strings). */
export interface IssuedCfeSummary {
  id: number; companyId: number; branchId: number; emissionPointId: number; tipoCfe: number; serie: string; numero: number;
  fechaEmision: string; tmstFirma: string; firmadoEn: Date; receptorTipoDoc: number | null; receptorDocumento: string | null;
  receptorNombre: string | null; customerId: number | null; moneda: string; tipoCambio: string | null; mntTotal: string | null;
  mntPagar: string | null; mntNetoIvaTasaMin: string | null; mntNetoIvaTasaBasica: string | null; mntIvaTasaMin: string | null;
  mntIvaTasaBasica: string | null; mntNoGrv: string | null; codigoSeguridad: string; estado: string; estadoReceptor: string | null;
  estadoActualizadoEn: Date | null; adenda: string | null;
  /** Present only when asked for (`withTotales` / `withXml`). */
  totales?: Record<string, unknown>; xml?: string;
}

const camel = (k: string) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
function toSummary(r: Record<string, unknown>): IssuedCfeSummary & { _k?: unknown[] } {
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) if (!k.startsWith('_k')) o[camel(k)] = v;
  o.id = Number(o.id);
  return o as unknown as IssuedCfeSummary;
}

function orderBy(sort: Sort): SQL {
  const dir = sort.direccion === 'asc' ? 'asc' : 'desc';
  return sql.raw([...SORT_EXPR[sort.orden], 'id'].map((e) => `${e} ${dir}`).join(', '));
}

export async function searchIssuedCfes(db: DbOrTx, companyId: number, filters: SearchFilters, sort: Sort, paging: Paging): Promise<{ data: IssuedCfeSummary[]; total: number }> {
  const where = whereClause(companyId, filters);
  const rows = await db.execute(sql`select ${SUMMARY} from issued_cfes where ${where} order by ${orderBy(sort)} limit ${paging.length} offset ${paging.start}`);
  // Exact count (the composite indexes keep it an index scan; see bench/search.ts).
  const [{ n }] = (await db.execute(sql`select count(*)::int as n from issued_cfes where ${where}`)).rows as Array<{ n: number }>;
  return { data: rows.rows.map(toSummary), total: n };
}

export async function countIssuedCfes(db: DbOrTx, companyId: number, filters: SearchFilters): Promise<number> {
  const [{ n }] = (await db.execute(sql`select count(*)::int as n from issued_cfes where ${whereClause(companyId, filters)}`)).rows as Array<{ n: number }>;
  return n;
}

/**
 * Every matching row in sort order, fetched `chunkSize` at a time with keyset paging on
 * (sort key…, id): each chunk is one short query, so memory stays at one chunk and no
 * transaction is held open while the consumer (xlsx, csv, zip) writes.
 */
export async function* iterateIssuedCfes(
  db: DbOrTx, companyId: number, filters: SearchFilters, sort: Sort,
  options: { chunkSize?: number; withTotales?: boolean; withXml?: boolean } = {},
): AsyncGenerator<IssuedCfeSummary> {
  const size = options.chunkSize ?? 1000;
  const keys = [...SORT_EXPR[sort.orden], 'id'];
  const keyCols = sql.raw(keys.map((k, i) => `(${k})::text as _k${i}`).join(', '));
  const extra = sql.raw([options.withTotales ? ', totales' : '', options.withXml ? ', xml' : ''].join(''));
  const cmp = sort.direccion === 'asc' ? '>' : '<';
  const where = whereClause(companyId, filters);
  // Keys travel as text (a JS Date would drop the microseconds of timestamptz and skip rows).
  let last: unknown[] | undefined;
  for (;;) {
    const after = last
      ? sql` and (${sql.raw(keys.join(', '))}) ${sql.raw(cmp)} (${sql.join(last.map((v) => sql`${v}`), sql`, `)})`
      : sql``;
    const res = await db.execute(sql`select ${SUMMARY}${extra}, ${keyCols} from issued_cfes where ${where}${after} order by ${orderBy(sort)} limit ${size}`);
    const rows = res.rows as Array<Record<string, unknown>>;
    for (const r of rows) yield toSummary(r);
    if (rows.length < size) return;
    const tail = rows[rows.length - 1];
    last = keys.map((_, i) => tail[`_k${i}`]);
  }
}
