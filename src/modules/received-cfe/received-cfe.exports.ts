/**
 * Exports of received CFEs (issue 31 point 3), the same mechanisms as issued CFEs: exportarExcel
 * (streamed xlsx through documents/xlsx.ts, columns from the user's saved configuration),
 * the export configuration, and descargarPdfsFiltrados (streamed ZIP through documents/zip.ts).
 * Rows are read in keyset-paged chunks with the search's filters, so memory stays flat.
 */
import type { Writable } from 'node:stream';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { errors } from '../../lib/errors.js';
import { uyToday } from '../../lib/dates.js';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import type { PdfFormato } from '../documents/pdf/index.js';
import { streamXlsx } from '../documents/xlsx.js';
import { streamZip, type ZipEntry } from '../documents/zip.js';
import { isPrintable, receivedPdfName, renderReceivedCfe } from './received-cfe.documents.js';
import { DEFAULT_RECEIVED_EXPORT_COLUMNS, RECEIVED_EXPORT_COLUMN_KEYS, receivedColumnCatalogue, receivedXlsxColumns, type ReceivedExportColumnKey } from './received-cfe.export-columns.js';
import { receivedReportErrors as E } from './received-cfe.reports.errors.js';
import { receivedCfeExportConfigs } from './received-cfe.reports.tables.js';
import { filterProblems, SUMMARY, toSummary, whereClause, type ReceivedCfeSummary, type ReceivedSearchFilters, type ReceivedSort, type Row, type SortKey } from './received-cfe.search.js';

/** Excel's sheet limit is 1,048,576 rows (header included). */
export const RECEIVED_XLSX_MAX_ROWS = 1_000_000;
/** A ZIP holds at most this many CFE (a PDF of ~40 KB each: ~200 MB): a download a browser survives. */
export const RECEIVED_ZIP_MAX_CFE = 5_000;

export type ReceivedExportRequest = { idEmpresa: number } & ReceivedSearchFilters & ReceivedSort;

export interface ReceivedExportsPorts {
  /** The issued CFEs' rule for another user's export configuration (self; operator; administrador of a shared company). */
  assertConfigAccess(actor: Actor, userId: number, companyId: number | undefined): Promise<void>;
}

/**
 * Keyset sort keys: the search's keys with NULL replaced by the greatest value, which is where
 * PostgreSQL sorts NULL by default, so the order is the search's and a row tuple compares without NULL.
 */
const KEYS: Record<SortKey, string[]> = {
  fechaComprobante: [`coalesce(fecha_emision, 'infinity'::date)`],
  fechaRecepcion: ['recibido_en'],
  fechaDecision: [`coalesce(decidido_en, 'infinity'::timestamptz)`],
  secuencia: ['secuencia'],
  numero: ['coalesce(tipo_cfe, 32767)', `coalesce(serie, '~~')`, 'coalesce(numero, 2147483647)'],
  mntTotal: ['coalesce(mnt_total, 0)'],
  razonSocialEmisor: [`coalesce(lower(razon_social_emisor), '')`],
  vencimientoRespuesta: [`coalesce(vencimiento_respuesta, 'infinity'::date)`],
};

type ExportRow = ReceivedCfeSummary & { xml?: string; adenda?: string | null; datos?: Record<string, unknown> | null };

export async function* iterateReceivedCfes(db: DbOrTx, companyId: number, f: ReceivedSearchFilters, sort: ReceivedSort, options: { withXml?: boolean; chunkSize?: number } = {}): AsyncGenerator<ExportRow> {
  const size = options.chunkSize ?? 1000;
  const keys = [...KEYS[sort.orden], 'id'];
  const keyCols = sql.raw(keys.map((k, i) => `(${k})::text as _k${i}`).join(', '));
  const extra = sql.raw(options.withXml ? ', xml, adenda, datos' : '');
  const dir = sort.direccion === 'asc' ? 'asc' : 'desc';
  const cmp = dir === 'asc' ? '>' : '<';
  const order = sql.raw(keys.map((k) => `${k} ${dir}`).join(', '));
  const where = whereClause(companyId, f);
  // Keys travel as text (a JS Date would drop the microseconds of timestamptz and skip rows).
  let last: unknown[] | undefined;
  for (;;) {
    const after = last ? sql` and (${sql.raw(keys.join(', '))}) ${sql.raw(cmp)} (${sql.join(last.map((v) => sql`${v}`), sql`, `)})` : sql``;
    const res = await db.execute(sql`select ${SUMMARY}${extra}, ${keyCols} from received_cfes where ${where}${after} order by ${order} limit ${size}`);
    const rows = res.rows as Array<Record<string, unknown>>;
    for (const r of rows) yield { ...toSummary(r as unknown as Row), ...(options.withXml ? { xml: r.xml as string, adenda: r.adenda as string | null, datos: r.datos as Record<string, unknown> | null } : {}) };
    if (rows.length < size) return;
    const tail = rows[rows.length - 1];
    last = keys.map((_, i) => tail[`_k${i}`]);
  }
}

async function countReceived(db: DbOrTx, companyId: number, f: ReceivedSearchFilters): Promise<number> {
  const [{ n }] = (await db.execute(sql`select count(*)::int as n from received_cfes where ${whereClause(companyId, f)}`)).rows as Array<{ n: number }>;
  return n;
}

function split(actor: Actor, q: ReceivedExportRequest) {
  const { idEmpresa, orden, direccion, ...filters } = q;
  assertCompanyRole(actor, idEmpresa, 'lectura');
  const problems = filterProblems(filters);
  if (problems.length) throw errors.VALIDACION(problems.join(' '));
  return { companyId: idEmpresa, filters, sort: { orden, direccion } };
}

/** File base inside the ZIP; a duplicate or unreadable one shares its identity with another, so its id is added. */
function zipBase(r: ExportRow): string {
  const base = receivedPdfName({ id: r.id, rutEmisor: r.rutEmisor, tipoCfe: r.tipoCfe, serie: r.serie, numero: r.numero }).replace(/\.pdf$/, '');
  return r.estado === 'duplicado' || r.estado === 'rechazado_formato' ? `${base}_id${r.id}` : base;
}

export function createReceivedExports(deps: { db: Db; ports: ReceivedExportsPorts }) {
  const { db, ports } = deps;

  async function savedColumns(userId: number, companyId: number | undefined): Promise<ReceivedExportColumnKey[] | undefined> {
    const scopes = companyId !== undefined ? [companyId, 0] : [0];
    const rows = await db.select().from(receivedCfeExportConfigs).where(and(eq(receivedCfeExportConfigs.userId, userId), inArray(receivedCfeExportConfigs.companyScope, scopes)));
    const row = rows.find((r) => r.companyScope === scopes[0]) ?? rows.find((r) => r.companyScope === 0);
    // Keys no longer in the catalogue are dropped rather than failing the export.
    return row?.columnas.filter((k): k is ReceivedExportColumnKey => (RECEIVED_EXPORT_COLUMN_KEYS as string[]).includes(k));
  }

  const configView = (userId: number, companyId: number | undefined, columnas: string[] | undefined) => ({
    userId, idEmpresa: companyId ?? null, columnas: columnas ?? DEFAULT_RECEIVED_EXPORT_COLUMNS, predeterminada: !columnas, catalogo: receivedColumnCatalogue(),
  });

  return {
    /** POST exportarExcel: everything (filters, size, columns) is checked before the first byte. */
    async prepareExcel(actor: Actor, body: ReceivedExportRequest & { columnas?: string[] }) {
      const { columnas, ...q } = body;
      const { companyId, filters, sort } = split(actor, q);
      const keys = (columnas as ReceivedExportColumnKey[] | undefined) ?? (await savedColumns(actor.userId, companyId)) ?? DEFAULT_RECEIVED_EXPORT_COLUMNS;
      const rows = await countReceived(db, companyId, filters);
      if (rows > RECEIVED_XLSX_MAX_ROWS) throw E.EXPORTACION_DEMASIADO_GRANDE(`La búsqueda devuelve ${rows} CFE recibidos; el máximo por planilla es ${RECEIVED_XLSX_MAX_ROWS}. Acote los filtros.`);
      return {
        rows,
        fileName: `cfe-recibidos-${companyId}-${uyToday()}.xlsx`,
        write: (out: Writable) => streamXlsx(iterateReceivedCfes(db, companyId, filters, sort), receivedXlsxColumns(keys), out, { sheetName: 'CFE recibidos' }),
      };
    },

    /**
     * POST descargarPdfsFiltrados: `pdf/<name>.pdf` per printable CFE and `xml/<name>.xml` (the signed
     * XML as received) unless incluirXml is false; an unreadable one has its XML only. One PDF is
     * rendered ahead of the one being compressed: memory holds a chunk of rows and two PDFs.
     */
    async prepareZip(actor: Actor, body: ReceivedExportRequest & { formato: PdfFormato; incluirXml: boolean }) {
      const { formato, incluirXml, ...q } = body;
      const { companyId, filters, sort } = split(actor, q);
      const rows = await countReceived(db, companyId, filters);
      if (rows > RECEIVED_ZIP_MAX_CFE) throw E.EXPORTACION_DEMASIADO_GRANDE(`La búsqueda devuelve ${rows} CFE recibidos; el máximo por ZIP es ${RECEIVED_ZIP_MAX_CFE}. Acote los filtros (por ejemplo el rango de fechas).`);
      const build = async (r: ExportRow): Promise<ZipEntry[]> => {
        const base = zipBase(r);
        const date = new Date(r.recibidoEn);
        const list: ZipEntry[] = [];
        if (isPrintable({ datos: r.datos ?? null, tipoCfe: r.tipoCfe, estado: r.estado })) list.push({ name: `pdf/${base}.pdf`, content: await renderReceivedCfe({ xml: r.xml!, adenda: r.adenda ?? null }, formato), date });
        if (incluirXml || !list.length) list.push({ name: `xml/${base}.xml`, content: Buffer.from(r.xml!, 'utf8'), date });
        return list;
      };
      async function* entries(): AsyncGenerator<ZipEntry> {
        let pending: Promise<ZipEntry[]> | undefined;
        for await (const r of iterateReceivedCfes(db, companyId, filters, sort, { withXml: true, chunkSize: 200 })) {
          const next = build(r);
          // An unawaited rejection must not crash the process before it is awaited.
          next.catch(() => undefined);
          if (pending) yield* await pending;
          pending = next;
        }
        if (pending) yield* await pending;
      }
      return {
        rows,
        fileName: `cfe-recibidos-${companyId}-${uyToday()}.zip`,
        // PDFs are already deflated inside: a light level saves CPU for little size.
        write: (out: Writable) => streamZip(entries(), out, { level: 1 }),
      };
    },

    /** GET getConfiguracionExportacionCfe: saved for (user, company), else (user, all companies), else the defaults. */
    async getExportConfig(actor: Actor, userId: number | undefined, companyId: number | undefined) {
      const target = userId ?? actor.userId;
      await ports.assertConfigAccess(actor, target, companyId);
      return configView(target, companyId, await savedColumns(target, companyId));
    },

    /** POST configuracionExportacionCfe: replaces the columns for the scope. */
    async saveExportConfig(actor: Actor, input: { userId?: number; idEmpresa?: number; columnas: string[] }) {
      const target = input.userId ?? actor.userId;
      await ports.assertConfigAccess(actor, target, input.idEmpresa);
      await db.insert(receivedCfeExportConfigs).values({ userId: target, companyScope: input.idEmpresa ?? 0, columnas: input.columnas })
        .onConflictDoUpdate({ target: [receivedCfeExportConfigs.userId, receivedCfeExportConfigs.companyScope], set: { columnas: input.columnas, updatedAt: new Date() } });
      return configView(target, input.idEmpresa, input.columnas);
    },
  };
}

export type ReceivedExports = ReturnType<typeof createReceivedExports>;
