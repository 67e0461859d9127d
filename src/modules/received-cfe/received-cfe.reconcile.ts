/**
 * POST /api/v1/cferecibido/conciliar and exportarConciliacion (issue 31 point 6): the received CFE of
 * a period against DGI's EFACCONSULTARCFERECIBIDOS (BRIEF 7), asked with the company's certificate,
 * one call per window of at most 31 days. The comparison is received-cfe.reconcile-rules.ts; the
 * result is stored (received_reconciliations) and exported as xlsx.
 */
import type { Writable } from 'node:stream';
import { eq, sql } from 'drizzle-orm';
import { uyToday } from '../../lib/dates.js';
import type { Db } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import { DgiError, DgiTransientError } from '../dgi/dgi.errors.js';
import { CFE_RECIBIDOS_MAX_DAYS, type DatosCfeRecibido, type DgiRecibidosClient } from '../dgi/dgi.recibidos-client.js';
import { streamXlsx, type XlsxColumn } from '../documents/xlsx.js';
import { reconcile, splitPeriod, type LocalReceived } from './received-cfe.reconcile-rules.js';
import { receivedReportErrors as E } from './received-cfe.reports.errors.js';
import { receivedReconciliations, type ReceivedReconciliationRow, type ReconciliationItem } from './received-cfe.reports.tables.js';

/** A stored reconciliation covers at most a year (12 calls to DGI). */
export const MAX_RECONCILE_DAYS = 366;

export interface ReconcilePorts {
  /** The EFACCONSULTARCFERECIBIDOS client signed with the company's certificate. */
  recibidosClientFor(companyId: number): Promise<DgiRecibidosClient>;
}

export const RECONCILIATION_COLUMNS: XlsxColumn<ReconciliationItem>[] = [
  { header: 'Categoría', type: 'text', width: 22, value: (i) => i.categoria },
  { header: 'RUT emisor', type: 'text', width: 14, value: (i) => i.rutEmisor },
  { header: 'Tipo CFE', type: 'integer', width: 10, value: (i) => i.tipoCfe },
  { header: 'Serie', type: 'text', width: 7, value: (i) => i.serie },
  { header: 'Número', type: 'integer', width: 10, value: (i) => i.numero },
  { header: 'Fecha comprobante', type: 'date', value: (i) => i.fechaEmision },
  { header: 'Recibido por DGI', type: 'text', width: 25, value: (i) => i.fechaDgi ?? null },
  { header: 'Estado aquí', type: 'text', width: 16, value: (i) => i.estadoLocal },
  { header: 'Estado DGI', type: 'text', width: 12, value: (i) => i.estadoDgi },
  { header: 'Moneda', type: 'text', width: 8, value: (i) => i.moneda },
  { header: 'Total aquí', type: 'money', value: (i) => i.montoLocal },
  { header: 'Total DGI', type: 'money', value: (i) => i.montoDgi },
  { header: 'Diferencias', type: 'text', width: 50, value: (i) => i.diferencias.map((d) => `${d.campo}: ${d.local ?? '-'} / DGI ${d.dgi ?? '-'}`).join('; ') || null },
  { header: 'Id CFE recibido', type: 'integer', value: (i) => i.idCfeRecibido },
];

export function reconciliationView(r: ReceivedReconciliationRow) {
  return {
    id: r.id, idEmpresa: r.companyId, desde: r.desde, hasta: r.hasta, rutEmisor: r.rutEmisor, consultasDgi: r.consultas,
    cantidadDgi: r.cantidadDgi, cantidadLocal: r.cantidadLocal, conteos: r.conteos, items: r.items.map((i) => ({ ...i, fechaDgi: i.fechaDgi ?? null })),
    idUsuario: r.creadoPor, creadoEn: r.creadoEn.toISOString(),
  };
}

function checkPeriod(desde: string, hasta: string) {
  const days = (Date.parse(`${hasta}T00:00:00Z`) - Date.parse(`${desde}T00:00:00Z`)) / 86_400_000;
  if (desde < '2011-10-01' || hasta > '2050-12-31' || !(days >= 0) || days >= MAX_RECONCILE_DAYS) {
    throw E.PERIODO_CONCILIACION_INVALIDO(`Período ${desde}..${hasta}: desde ≤ hasta, entre 2011-10-01 y 2050-12-31, de hasta ${MAX_RECONCILE_DAYS} días.`);
  }
}

export function createReceivedReconcile(deps: { db: Db; ports: ReconcilePorts }) {
  const { db, ports } = deps;

  async function localRows(companyId: number, desde: string, hasta: string, rutEmisor: string | undefined): Promise<LocalReceived[]> {
    const res = await db.execute(sql`select id, rut_emisor, tipo_cfe, serie, numero, estado, fecha_emision::text as fecha_emision, moneda, mnt_total::text as mnt_total, datos->'totales' as totales
      from received_cfes where company_id = ${companyId} and fecha_emision between ${desde} and ${hasta}
      and estado not in ('duplicado', 'rechazado_formato') and rut_emisor is not null and tipo_cfe is not null
      ${rutEmisor ? sql`and rut_emisor = ${rutEmisor}` : sql``}`);
    return (res.rows as Array<Record<string, unknown>>).map((r) => ({
      id: Number(r.id), rutEmisor: String(r.rut_emisor), tipoCfe: Number(r.tipo_cfe), serie: String(r.serie ?? ''), numero: Number(r.numero),
      estado: String(r.estado), fechaEmision: r.fecha_emision as string | null, moneda: r.moneda as string | null, mntTotal: r.mnt_total as string | null,
      totales: r.totales as Record<string, unknown> | null,
    }));
  }

  async function askDgi(companyId: number, desde: string, hasta: string, rutEmisor: string | undefined) {
    const windows = splitPeriod(desde, hasta, CFE_RECIBIDOS_MAX_DAYS);
    const client = await ports.recibidosClientFor(companyId);
    const all: DatosCfeRecibido[] = [];
    for (const w of windows) {
      try {
        all.push(...(await client.cfeRecibidos({ RUCEmisor: rutEmisor, FechaDesde: w.desde, FechaHasta: w.hasta })));
      } catch (err) {
        if (err instanceof DgiTransientError) throw E.CONCILIACION_DGI_NO_DISPONIBLE(`DGI no respondió la consulta ${w.desde}..${w.hasta}: ${err.message}`);
        if (err instanceof DgiError) throw E.CONCILIACION_DGI_RECHAZADA(`DGI rechazó la consulta ${w.desde}..${w.hasta}: ${err.message}`);
        throw err;
      }
    }
    return { calls: windows.length, rows: all };
  }

  async function stored(actor: Actor, id: number, companyId: number | undefined) {
    const [row] = await db.select().from(receivedReconciliations).where(eq(receivedReconciliations.id, id));
    if (!row || (companyId !== undefined && row.companyId !== companyId)) throw E.CONCILIACION_NO_ENCONTRADA();
    assertCompanyRole(actor, row.companyId, 'lectura', () => E.CONCILIACION_NO_ENCONTRADA());
    return row;
  }

  return {
    /** POST conciliar: asks DGI (synchronously: a month is one call), compares, stores, answers the result. */
    async reconcile(actor: Actor, input: { idEmpresa: number; desde: string; hasta: string; rutEmisor?: string }) {
      assertCompanyRole(actor, input.idEmpresa, 'emisor');
      checkPeriod(input.desde, input.hasta);
      const dgi = await askDgi(input.idEmpresa, input.desde, input.hasta, input.rutEmisor);
      const local = await localRows(input.idEmpresa, input.desde, input.hasta, input.rutEmisor);
      const { items, conteos } = reconcile(local, dgi.rows);
      const [row] = await db.insert(receivedReconciliations).values({
        companyId: input.idEmpresa, desde: input.desde, hasta: input.hasta, rutEmisor: input.rutEmisor ?? null, consultas: dgi.calls,
        cantidadDgi: dgi.rows.length, cantidadLocal: local.length, conteos, items, creadoPor: actor.userId,
      }).returning();
      return reconciliationView(row);
    },

    async get(actor: Actor, id: number) {
      return reconciliationView(await stored(actor, id, undefined));
    },

    /** POST exportarConciliacion: the stored items as xlsx, one row per item. */
    async prepareExport(actor: Actor, input: { idConciliacion: number; idEmpresa?: number }) {
      const row = await stored(actor, input.idConciliacion, input.idEmpresa);
      return {
        rows: row.items.length,
        fileName: `conciliacion-dgi-${row.companyId}-${row.desde}-${row.hasta}-${uyToday()}.xlsx`,
        write: (out: Writable) => streamXlsx(row.items, RECONCILIATION_COLUMNS, out, { sheetName: `Conciliación ${row.desde}` }),
      };
    },
  };
}

export type ReceivedReconcile = ReturnType<typeof createReceivedReconcile>;
