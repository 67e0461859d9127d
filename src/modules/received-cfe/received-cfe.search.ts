/**
 * Search of received CFEs (issue 31 point 1): GET /api/v1/cferecibido/buscar. A paged query with the
 * exact total, like the issued CFEs' search (issued-cfe.search.ts). Every query leads with
 * company_id so the composite indexes of received-cfe.tables.ts (migration 0026) apply.
 * Dates are Uruguay calendar days (UTC−3, no DST since 2015): `recibido_en` / `decidido_en` ranges
 * become [desde 00:00−03, hasta+1 00:00−03) so the (company_id, recibido_en) index serves them.
 */
import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { addDays, UY_UTC_OFFSET } from '../../lib/dates.js';
import type { DbOrTx } from '../../platform/db/client.js';
import { calendarDate } from '../../platform/http/dates.js';
import { positiveInt4 } from '../../platform/http/numbers.js';
import type { Paging } from '../../platform/http/paging.js';
import type { Channel, Motive, ReceivedCfeState } from './received-cfe.tables.js';
import { amountFilter as amount, listOf } from '../../platform/http/query-filters.js';

/** Which date the fechaComprobanteDesde/fechaComprobanteHasta range applies to. */
export const TIPOS_FILTRO = ['fechaComprobante', 'fechaRecepcion', 'fechaDecision'] as const;
export const SORT_KEYS = ['fechaComprobante', 'fechaRecepcion', 'fechaDecision', 'secuencia', 'numero', 'mntTotal', 'razonSocialEmisor', 'vencimientoRespuesta'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export const RECEIVED_STATES = ['pendiente', 'aceptado', 'rechazado', 'rechazado_formato', 'duplicado', 'anulado_emisor'] as const;



export const receivedSearchFilters = z.object({
  tipoFiltro: z.enum(TIPOS_FILTRO).default('fechaComprobante').describe('Date the range applies to: `fechaComprobante` (the CFE\'s FchEmis; default), `fechaRecepcion` (when it reached us, Uruguay day UTC−3), `fechaDecision` (when the company accepted or rejected it, Uruguay day; undecided CFEs never match).'),
  fechaComprobanteDesde: calendarDate.optional().describe('First day (YYYY-MM-DD, inclusive) of the range chosen by tipoFiltro.'),
  fechaComprobanteHasta: calendarDate.optional().describe('Last day (YYYY-MM-DD, inclusive).'),
  estado: listOf(z.enum(RECEIVED_STATES)).describe(`States: ${RECEIVED_STATES.join(', ')} (repeated or comma-separated).`),
  rutEmisor: z.string().trim().regex(/^\d{12}$/, 'RUT de 12 dígitos.').optional().describe('Issuer RUC, exact.'),
  razonSocialEmisor: z.string().trim().min(2).max(150).optional().describe('Part of the issuer\'s name, case-insensitive.'),
  tipoCfe: listOf(positiveInt4).describe('CFE type codes (111, 112, 101…): repeated or comma-separated.'),
  serie: z.string().trim().toUpperCase().regex(/^[A-Z]{1,2}$/, 'Serie de 1 o 2 letras.').optional(),
  numero: positiveInt4.optional().describe('CFE number, exact (with serie and tipoCfe to name one document).'),
  montoDesde: amount.optional().describe('Minimum MntTotal (in the CFE\'s currency), decimal string.'),
  montoHasta: amount.optional().describe('Maximum MntTotal, decimal string.'),
  moneda: z.string().trim().toUpperCase().regex(/^[A-Z]{3}$/, 'Código de moneda ISO de 3 letras.').optional(),
  vencimientoRespuestaHasta: calendarDate.optional().describe('Response due on or before this day (YYYY-MM-DD): with estado=pendiente, what must be decided soon.'),
  desdeSecuencia: z.coerce.number().int().min(0).optional().describe('Only CFEs with secuencia greater than this (read "everything since N"; gap-free per company).'),
  importadoStock: z.enum(['true', 'false']).transform((v) => v === 'true').optional().describe('`true`: taken into stock (marcarComoImportadoStock); `false`: not yet.'),
});
export type ReceivedSearchFilters = z.infer<typeof receivedSearchFilters>;

export const receivedSort = z.object({
  orden: z.enum(SORT_KEYS).default('fechaComprobante').describe(`Sort key: ${SORT_KEYS.join(', ')} (numero sorts by tipoCfe, serie, numero). Default fechaComprobante; ties broken by id.`),
  direccion: z.enum(['asc', 'desc']).default('desc').describe('Default desc (newest first).'),
});
export type ReceivedSort = z.infer<typeof receivedSort>;

/** Cross-field checks (kept out of the schema so it stays mergeable). */
export function filterProblems(f: ReceivedSearchFilters): string[] {
  const p: string[] = [];
  if (f.fechaComprobanteDesde && f.fechaComprobanteHasta && f.fechaComprobanteDesde > f.fechaComprobanteHasta) p.push('fechaComprobanteDesde es posterior a fechaComprobanteHasta.');
  if (f.montoDesde && f.montoHasta && Number(f.montoDesde) > Number(f.montoHasta)) p.push('montoDesde es mayor que montoHasta.');
  return p;
}

/** Start of a Uruguay calendar day as an ISO instant. */
const uyDayStart = (day: string) => new Date(`${day}T00:00:00${UY_UTC_OFFSET}`).toISOString();
const list = (xs: readonly unknown[]) => sql.join(xs.map((x) => sql`${x}`), sql`, `);

export function whereClause(companyId: number, f: ReceivedSearchFilters): SQL {
  const c: SQL[] = [sql`company_id = ${companyId}`];
  if (f.tipoFiltro === 'fechaComprobante') {
    if (f.fechaComprobanteDesde) c.push(sql`fecha_emision >= ${f.fechaComprobanteDesde}`);
    if (f.fechaComprobanteHasta) c.push(sql`fecha_emision <= ${f.fechaComprobanteHasta}`);
  } else {
    const col = sql.raw(f.tipoFiltro === 'fechaRecepcion' ? 'recibido_en' : 'decidido_en');
    if (f.tipoFiltro === 'fechaDecision') c.push(sql`decidido_en is not null`);
    if (f.fechaComprobanteDesde) c.push(sql`${col} >= ${uyDayStart(f.fechaComprobanteDesde)}::timestamptz`);
    if (f.fechaComprobanteHasta) c.push(sql`${col} < ${uyDayStart(addDays(f.fechaComprobanteHasta, 1))}::timestamptz`);
  }
  if (f.estado) c.push(sql`estado in (${list(f.estado)})`);
  if (f.rutEmisor) c.push(sql`rut_emisor = ${f.rutEmisor}`);
  if (f.razonSocialEmisor) c.push(sql`razon_social_emisor ilike ${`%${f.razonSocialEmisor.replace(/[\\%_]/g, (m) => `\\${m}`)}%`}`);
  if (f.tipoCfe) c.push(sql`tipo_cfe in (${list(f.tipoCfe)})`);
  if (f.serie) c.push(sql`serie = ${f.serie}`);
  if (f.numero) c.push(sql`numero = ${f.numero}`);
  if (f.montoDesde) c.push(sql`mnt_total >= ${f.montoDesde}::numeric`);
  if (f.montoHasta) c.push(sql`mnt_total <= ${f.montoHasta}::numeric`);
  if (f.moneda) c.push(sql`moneda = ${f.moneda}`);
  if (f.vencimientoRespuestaHasta) c.push(sql`vencimiento_respuesta <= ${f.vencimientoRespuestaHasta}`);
  if (f.desdeSecuencia !== undefined) c.push(sql`secuencia > ${f.desdeSecuencia}`);
  if (f.importadoStock === true) c.push(sql`stock_referencia is not null`);
  if (f.importadoStock === false) c.push(sql`stock_referencia is null`);
  return sql.join(c, sql` and `);
}

/**
 * Sort keys as SQL expressions; `id` always closes the key so paging is stable. Columns are qualified:
 * a bare ORDER BY name means the output column first, and SUMMARY outputs `fecha_emision::text as
 * fecha_emision`, which would sort text and bypass the index (a full scan and sort, seen in the bench).
 */
const T = 'received_cfes.';
const SORT_EXPR: Record<SortKey, string[]> = {
  fechaComprobante: [`${T}fecha_emision`],
  fechaRecepcion: [`${T}recibido_en`],
  fechaDecision: [`${T}decidido_en`],
  secuencia: [`${T}secuencia`],
  numero: [`${T}tipo_cfe`, `${T}serie`, `${T}numero`],
  mntTotal: ['coalesce(mnt_total, 0)'],
  razonSocialEmisor: [`coalesce(lower(razon_social_emisor), '')`],
  vencimientoRespuesta: [`${T}vencimiento_respuesta`],
};

function orderBy(sort: ReceivedSort): SQL {
  const dir = sort.direccion === 'asc' ? 'asc' : 'desc';
  return sql.raw([...SORT_EXPR[sort.orden], `${T}id`].map((e) => `${e} ${dir}`).join(', '));
}

/** A search row: no XML, no `datos`, no checks (kept light on purpose; GET {id} has them). */
export const SUMMARY = sql.raw(`id, company_id, secuencia, canal, rut_emisor, razon_social_emisor, tipo_cfe, serie, numero,
  fecha_emision::text as fecha_emision, moneda, tipo_cambio::text as tipo_cambio, mnt_total::text as mnt_total,
  mnt_pagar::text as mnt_pagar, estado, motivos, vencimiento_respuesta::text as vencimiento_respuesta, decidido_en, recibido_en,
  stock_referencia, stock_lineas, stock_importado_en, stock_importado_por`);

export interface Row {
  id: string; company_id: number; secuencia: string; canal: Channel; rut_emisor: string | null; razon_social_emisor: string | null;
  tipo_cfe: number | null; serie: string | null; numero: number | null; fecha_emision: string | null; moneda: string | null;
  tipo_cambio: string | null; mnt_total: string | null; mnt_pagar: string | null; estado: ReceivedCfeState; motivos: Motive[];
  vencimiento_respuesta: string | null; decidido_en: Date | string | null; recibido_en: Date | string;
  stock_referencia: string | null; stock_lineas: Array<{ nroLinea: number; cantidad: string }> | null;
  stock_importado_en: Date | string | null; stock_importado_por: number | null;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export function toSummary(r: Row) {
  return {
    id: Number(r.id), idEmpresa: r.company_id, secuencia: Number(r.secuencia), canal: r.canal,
    rutEmisor: r.rut_emisor, razonSocialEmisor: r.razon_social_emisor, tipoCfe: r.tipo_cfe, serie: r.serie, numero: r.numero,
    fechaEmision: r.fecha_emision, moneda: r.moneda, tipoCambio: r.tipo_cambio, mntTotal: r.mnt_total, mntPagar: r.mnt_pagar,
    estado: r.estado, motivos: r.motivos, vencimientoRespuesta: r.vencimiento_respuesta, decididoEn: iso(r.decidido_en),
    recibidoEn: iso(r.recibido_en)!,
    importadoStock: r.stock_referencia === null ? null : { referencia: r.stock_referencia, lineas: r.stock_lineas ?? [], fecha: iso(r.stock_importado_en)!, idUsuario: r.stock_importado_por },
  };
}
export type ReceivedCfeSummary = ReturnType<typeof toSummary>;

export async function searchReceivedCfes(db: DbOrTx, companyId: number, f: ReceivedSearchFilters, sort: ReceivedSort, paging: Paging) {
  const where = whereClause(companyId, f);
  const rows = await db.execute(sql`select ${SUMMARY} from received_cfes where ${where} order by ${orderBy(sort)} limit ${paging.length} offset ${paging.start}`);
  // Exact count: the composite indexes keep it an index scan for the usual filters.
  const [{ n }] = (await db.execute(sql`select count(*)::int as n from received_cfes where ${where}`)).rows as Array<{ n: number }>;
  return { data: (rows.rows as unknown as Row[]).map(toSummary), total: n };
}
