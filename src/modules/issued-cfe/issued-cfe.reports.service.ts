/**
 * Search, exports (xlsx, accounting CSV), export configuration and charts of issued CFEs
 * (issue 7 points 1, 4, 6). Company access is checked by the tenancy hook on `idEmpresa`; the
 * export configuration of another user additionally follows the users module's visibility rule.
 */
import type { Writable } from 'node:stream';
import { and, eq, sql } from 'drizzle-orm';
import { errors } from '../../lib/errors.js';
import type { Db } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { streamXlsx } from '../documents/xlsx.js';
import { getCfeType } from '../emission/index.js';
import { ACCOUNT_CATALOGUE, ACCOUNT_KEYS, CSV_BOM, CSV_HEADER, DEFAULT_ACCOUNT_CODES, csvRow, receiptCsv, type AccountCodes } from './issued-cfe.accounting.js';
import { chartSeries } from './issued-cfe.charts.js';
import { uyToday } from '../../lib/dates.js';
import { columnCatalogue, DEFAULT_EXPORT_COLUMNS, EXPORT_COLUMN_KEYS, NEEDS_TOTALES, xlsxColumns, type ExportColumnKey } from './issued-cfe.export-columns.js';
import { reportErrors as E } from './issued-cfe.reports.errors.js';
import { accountingAccounts, cfeExportConfigs } from './issued-cfe.reports.tables.js';
import { countIssuedCfes, filterProblems, iterateIssuedCfes, searchIssuedCfes, type CompanySearch, type IssuedCfeSummary, type SearchFilters } from './issued-cfe.search.js';

/** Excel's sheet limit is 1,048,576 rows (header included). */
export const XLSX_MAX_ROWS = 1_000_000;

export interface ReportsPorts {
  /** The user's visible company memberships; throws 404 when the actor may not see that user (users service rule). */
  userCompanies(actor: Actor, userId: number): Promise<number[]>;
}

function splitSearch(q: CompanySearch) {
  const { idEmpresa, orden, direccion, ...filters } = q;
  const problems = filterProblems(filters as SearchFilters);
  if (problems.length) throw errors.VALIDACION(problems.join(' '));
  return { companyId: idEmpresa, filters: filters as SearchFilters, sort: { orden, direccion } };
}

export function searchRowView(r: IssuedCfeSummary) {
  return {
    id: r.id, idEmpresa: r.companyId, idSucursal: r.branchId, idPuntoEmision: r.emissionPointId,
    tipoCfe: r.tipoCfe, nombreTipoCfe: getCfeType(r.tipoCfe).name, serie: r.serie, numero: r.numero,
    fechaEmision: r.fechaEmision, fechaFirma: r.tmstFirma, estado: r.estado, estadoReceptor: r.estadoReceptor,
    receptor: { tipoDocumento: r.receptorTipoDoc, documento: r.receptorDocumento, nombre: r.receptorNombre },
    moneda: r.moneda, tipoCambio: r.tipoCambio,
    totales: {
      mntNoGrv: r.mntNoGrv, mntNetoIvaTasaMin: r.mntNetoIvaTasaMin, mntNetoIvaTasaBasica: r.mntNetoIvaTasaBasica,
      mntIvaTasaMin: r.mntIvaTasaMin, mntIvaTasaBasica: r.mntIvaTasaBasica, mntTotal: r.mntTotal, mntPagar: r.mntPagar,
    },
    codigoSeguridad: r.codigoSeguridad,
  };
}

export function createIssuedCfeReports(deps: { db: Db; ports: ReportsPorts }) {
  const { db, ports } = deps;

  /** Self always; another user: operator, or an administrador of a company they share (and of idEmpresa when scoped). */
  async function assertConfigAccess(actor: Actor, userId: number, companyId: number | undefined) {
    if (userId === actor.userId) return;
    const companies = await ports.userCompanies(actor, userId).catch(() => { throw E.CONFIGURACION_NO_VISIBLE(); });
    if (actor.isOperator) return;
    if (companyId !== undefined) {
      assertCompanyRole(actor, companyId, 'administrador');
      if (!companies.includes(companyId)) throw E.CONFIGURACION_NO_VISIBLE();
    }
  }

  async function savedColumns(userId: number, companyId: number | undefined): Promise<{ columnas: ExportColumnKey[]; scope: number } | undefined> {
    const scopes = companyId !== undefined ? [companyId, 0] : [0];
    const rows = await db.select().from(cfeExportConfigs).where(and(eq(cfeExportConfigs.userId, userId), sql`${cfeExportConfigs.companyScope} in (${sql.join(scopes.map((s) => sql`${s}`), sql`, `)})`));
    const row = rows.find((r) => r.companyScope === scopes[0]) ?? rows.find((r) => r.companyScope === 0);
    // Keys no longer in the catalogue are dropped rather than failing the export.
    return row && { columnas: row.columnas.filter((k): k is ExportColumnKey => (EXPORT_COLUMN_KEYS as string[]).includes(k)), scope: row.companyScope };
  }

  async function accountCodes(companyId: number): Promise<AccountCodes> {
    const [row] = await db.select().from(accountingAccounts).where(eq(accountingAccounts.companyId, companyId));
    return { ...DEFAULT_ACCOUNT_CODES, ...(row?.cuentas ?? {}) } as AccountCodes;
  }

  return {
    /** The access rule of export configurations, shared with the received CFEs' export configuration. */
    assertExportConfigAccess: assertConfigAccess,

    /** GET /api/v1/cfeemitido/buscar */
    async search(q: CompanySearch, paging: Paging) {
      const { companyId, filters, sort } = splitSearch(q);
      const { data, total } = await searchIssuedCfes(db, companyId, filters, sort, paging);
      return { data: data.map(searchRowView), total };
    },

    /**
     * POST /api/v1/cfeemitido/exportarExcel. Checks everything (filters, size, columns) before the
     * first byte, then returns the writer the route pipes into the response.
     */
    async prepareExcel(actor: Actor, body: CompanySearch & { columnas?: string[] }) {
      const { companyId, filters, sort } = splitSearch(body);
      const keys = (body.columnas as ExportColumnKey[] | undefined) ?? (await savedColumns(actor.userId, companyId))?.columnas ?? DEFAULT_EXPORT_COLUMNS;
      const rows = await countIssuedCfes(db, companyId, filters);
      if (rows > XLSX_MAX_ROWS) throw E.EXPORTACION_DEMASIADO_GRANDE(`La búsqueda devuelve ${rows} comprobantes; el máximo por planilla es ${XLSX_MAX_ROWS}. Acote los filtros.`);
      const withTotales = keys.some((k) => NEEDS_TOTALES.has(k));
      return {
        rows,
        fileName: `cfe-emitidos-${companyId}-${uyToday()}.xlsx`,
        write: (out: Writable) => streamXlsx(iterateIssuedCfes(db, companyId, filters, sort, { withTotales }), xlsxColumns(keys), out, { sheetName: 'CFE emitidos' }),
      };
    },

    /** POST /api/v1/ExportacionContable/exportarExt: CSV lines, one chunk per receipt. */
    async prepareAccounting(body: CompanySearch) {
      const { companyId, filters, sort } = splitSearch(body);
      // Voided receipts (DGI rejected) have no accounting effect unless the caller asks for states explicitly.
      const effective: SearchFilters = filters.estado ? filters : { ...filters, estado: ['firmado', 'en_cola_dgi', 'sobre_recibido', 'sobre_rechazado', 'aceptado', 'observado', 'aceptado_manual'] };
      const codes = await accountCodes(companyId);
      // The first page is read before the response starts: a query that fails (a filter the database
      // refuses) is then a JSON error, not a 200 whose CSV stops after its header.
      const rows = iterateIssuedCfes(db, companyId, effective, sort, { withTotales: true })[Symbol.asyncIterator]();
      const first = await rows.next();
      return {
        fileName: `asientos-cfe-${companyId}-${uyToday()}.csv`,
        async *lines(): AsyncGenerator<string> {
          yield CSV_BOM + csvRow(CSV_HEADER);
          for (let r = first; !r.done; r = await rows.next()) {
            const text = receiptCsv(r.value as IssuedCfeSummary & { totales: Record<string, unknown> }, codes);
            if (text) yield text;
          }
        },
      };
    },

    async getExportConfig(actor: Actor, userId: number | undefined, companyId: number | undefined) {
      const target = userId ?? actor.userId;
      await assertConfigAccess(actor, target, companyId);
      const saved = await savedColumns(target, companyId);
      return { userId: target, idEmpresa: companyId ?? null, columnas: saved?.columnas ?? DEFAULT_EXPORT_COLUMNS, predeterminada: !saved, catalogo: columnCatalogue() };
    },

    async saveExportConfig(actor: Actor, input: { userId?: number; idEmpresa?: number; columnas: string[] }) {
      const target = input.userId ?? actor.userId;
      await assertConfigAccess(actor, target, input.idEmpresa);
      const scope = input.idEmpresa ?? 0;
      await db.insert(cfeExportConfigs).values({ userId: target, companyScope: scope, columnas: input.columnas })
        .onConflictDoUpdate({ target: [cfeExportConfigs.userId, cfeExportConfigs.companyScope], set: { columnas: input.columnas, updatedAt: new Date() } });
      return { userId: target, idEmpresa: input.idEmpresa ?? null, columnas: input.columnas, predeterminada: false, catalogo: columnCatalogue() };
    },

    async getAccounts(companyId: number) {
      const codes = await accountCodes(companyId);
      return { idEmpresa: companyId, cuentas: ACCOUNT_KEYS.map((k) => ({ clave: k, codigo: codes[k], nombre: ACCOUNT_CATALOGUE[k].nombre, codigoPredeterminado: DEFAULT_ACCOUNT_CODES[k] })) };
    },

    /** Replaces the company's overrides; keys left out fall back to the defaults. */
    async saveAccounts(companyId: number, cuentas: Record<string, string | undefined>) {
      const clean = Object.fromEntries(Object.entries(cuentas).filter(([, v]) => v !== undefined)) as Record<string, string>;
      await db.insert(accountingAccounts).values({ companyId, cuentas: clean })
        .onConflictDoUpdate({ target: accountingAccounts.companyId, set: { cuentas: clean, updatedAt: new Date() } });
      return this.getAccounts(companyId);
    },

    /** GET graficaDiaria: default the last 30 Uruguay days (today included); at most 366 days. */
    async dailyChart(companyId: number, desde?: string, hasta?: string) {
      const to = hasta ?? uyToday();
      const from = desde ?? new Date(Date.parse(`${to}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10);
      const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;
      if (Number.isNaN(days) || days < 0 || days > 365) throw E.RANGO_FECHAS_INVALIDO('desde debe ser anterior o igual a hasta, con un máximo de 366 días.');
      return chartSeries(db, companyId, 'dia', from, to);
    },

    /** GET graficaFacturacionMensual: default the last 12 months (current included); at most 120 months. */
    async monthlyChart(companyId: number, desde?: string, hasta?: string) {
      const to = hasta ?? uyToday().slice(0, 7);
      const [ty, tm] = to.split('-').map(Number);
      const fromDefault = new Date(Date.UTC(ty, tm - 12, 1)).toISOString().slice(0, 7);
      const from = desde ?? fromDefault;
      const [fy, fm] = from.split('-').map(Number);
      const months = (ty - fy) * 12 + (tm - fm);
      if (months < 0 || months > 119) throw E.RANGO_FECHAS_INVALIDO('desde debe ser anterior o igual a hasta, con un máximo de 120 meses.');
      return chartSeries(db, companyId, 'mes', from, to);
    },
  };
}

export type IssuedCfeReports = ReturnType<typeof createIssuedCfeReports>;
