/**
 * Daily report (BRIEF 9; issue 6 point 6): generated per company and day from the stored CFEs,
 * signed with the company certificate, sent with EFACRECEPCIONREPORTE, ACK stored.
 *
 * Generation reads the day's CFEs and resolves fiscal rates (network) first; then ONE transaction,
 * under a per-company-and-day advisory lock, numbers the report (SecEnvio), builds, signs and
 * XSD-validates it, stores it as 'pendiente', supersedes an older pending one and enqueues the
 * send job. Sending happens in the job (retried by the queue on transport failures).
 *
 * SecEnvio: 1 for the first report of a day, then the last accepted one + 1 (BRIEF 9: a correction
 * resends the complete report with the previous + 1; R05 otherwise). [I] A report DGI rejected did
 * not enter DGI's sequence (the simulator behaves so), so it does not advance the number.
 */
import { Decimal } from 'decimal.js';
import { uyToday } from '../../lib/dates.js';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { enqueueJob } from '../../platform/jobs/queue.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { DgiPermanentError, DgiTransientError } from '../dgi/dgi.errors.js';
import type { DgiReceptionClient } from '../dgi/dgi.client.js';
import type { DayCfeRow } from '../issued-cfe/index.js';
import { buildReporteDiario, formatTmstFirma, planReporteDiario, ReporteError, reporteFileName, signReporteDiario, type SigningContext } from '../emission/index.js';
import { sendDailyReportJob } from './daily-report.jobs.js';
import { dailyReportErrors as E } from './daily-report.errors.js';
import * as repo from './daily-report.repository.js';
import { buildReportInput, dayBefore, type VoidedRange } from './daily-report.source.js';
import type { DailyReportRow } from './daily-report.tables.js';

export interface DailyReportDeps {
  db: Db;
  rutOf(companyId: number): Promise<string | undefined>;
  activeCompanyIds(): Promise<number[]>;
  voidedNumbersOn(db: Db, companyId: number, fecha: string): Promise<VoidedRange[]>;
  /** The CFEs and CFCs signed on a day (issued-cfe module). */
  cfesSignedOn(db: Db, companyId: number, fecha: string): Promise<DayCfeRow[]>;
  signingContext(companyId: number): Promise<SigningContext | undefined>;
  /** BCU interbank buyer quote for the currency on a date (walks back over holidays); undefined when none. */
  bcuRate(currency: string, fecha: string): Promise<string | undefined>;
  receptionClient(companyId: number, ctx: SigningContext): Promise<DgiReceptionClient>;
  settings: {
    uiValue: string;
    /** A sender's lease on a report it sends (default 20 s): renewed every quarter of it while it lives; a dead sender's report is taken over once it runs out. */
    sendLeaseMs?: number;
  };
  log?: { warn(obj: object, msg: string): void };
}

export const DEFAULT_SEND_LEASE_MS = 20_000;

export function reportView(r: DailyReportRow, withXml = false) {
  return {
    id: r.id,
    idEmpresa: r.companyId,
    fechaResumen: r.fechaResumen,
    secEnvio: r.secEnvio,
    estado: r.estado,
    origen: r.origen,
    cantComprobantes: r.cantComprobantes,
    resumen: r.resumen as Array<Record<string, number>>,
    tmstFirmaEnv: r.tmstFirmaEnv,
    nombreArchivo: r.fileName,
    estadoDgi: r.ackEstado,
    motivos: (r.motivos as Array<{ codigo: string; glosa: string; detalle: string | null }> | null) ?? [],
    idReceptorDgi: r.idReceptor,
    intentos: r.intentos,
    ultimoError: r.ultimoError,
    creadoEn: r.createdAt.toISOString(),
    enviadoEn: r.enviadoEn?.toISOString() ?? null,
    ...(withXml ? { xml: r.xml, ackXml: r.ackXml } : {}),
  };
}

export function createDailyReportService(deps: DailyReportDeps) {
  const { db } = deps;
  const leaseMs = deps.settings.sendLeaseMs ?? DEFAULT_SEND_LEASE_MS;
  /** One key per report: the send job is queued at most once (replaced), or again beside a running one. */
  const jobKey = (id: number) => `daily-report-${id}`;
  const uiThresholdUyu = new Decimal(5000).times(deps.settings.uiValue);

  async function fiscalRates(rows: DayCfeRow[]): Promise<Map<string, string>> {
    const rates = new Map<string, string>();
    for (const key of new Set(rows.filter((r) => r.moneda !== 'UYU').map((r) => `${r.moneda}|${r.fechaEmision}`))) {
      const [moneda, fecha] = key.split('|');
      // BRIEF 9: last fallback is the CFE's own TpoCambio, which the builder uses when no rate is given.
      const rate = await deps.bcuRate(moneda, dayBefore(fecha)).catch((err: unknown) => {
        deps.log?.warn({ err, moneda, fecha }, 'fiscal rate unavailable, using the CFE TpoCambio');
        return undefined;
      });
      if (rate) rates.set(key, rate);
    }
    return rates;
  }

  /**
   * Generates (and queues for sending) the report of `fecha`; returns the stored row. The daily task
   * ('cron') returns undefined when the day already has a report: checked again under the day's lock,
   * since two workers of a fleet running the task at once both saw none before it (issue 45).
   */
  async function generate(companyId: number, fecha: string, origen: 'cron', userId?: number, opts?: { today?: boolean }): Promise<DailyReportRow | undefined>;
  async function generate(companyId: number, fecha: string, origen: 'manual', userId?: number, opts?: { today?: boolean }): Promise<DailyReportRow>;
  async function generate(companyId: number, fecha: string, origen: 'cron' | 'manual', userId?: number, opts: { today?: boolean } = {}): Promise<DailyReportRow | undefined> {
    // Today's report only on request (DGI's testing set, issue 47: the report of the day the set was
    // signed). DGI accepts it (R06 is only for a reception before FechaResumen), but CFEs signed later
    // that day need a correction (SecEnvio + 1) sent by hand: the daily task skips a day with a report.
    if (fecha > uyToday() || (fecha === uyToday() && !opts.today)) throw E.REPORTE_FECHA_INVALIDA();
    const rucEmisor = await deps.rutOf(companyId);
    if (!rucEmisor) throw E.REPORTE_NO_ENCONTRADO('La empresa no existe.');
    const ctx = await deps.signingContext(companyId);
    if (!ctx) throw E.REPORTE_SIN_CERTIFICADO();
    const rows = await deps.cfesSignedOn(db, companyId, fecha);
    const voided = await deps.voidedNumbersOn(db, companyId, fecha);
    const rates = await fiscalRates(rows);
    return db.transaction(async (tx) => {
      await repo.lockDay(tx, companyId, fecha);
      const previous = await repo.reportsOf(tx, companyId, fecha);
      if (origen === 'cron' && previous.some((r) => r.estado !== 'reemplazado')) return undefined;
      const lastAccepted = previous.filter((r) => r.estado === 'aceptado').reduce((max, r) => Math.max(max, r.secEnvio), 0);
      const secEnvio = lastAccepted + 1;
      const tmstFirmaEnv = formatTmstFirma(new Date());
      let input, xml;
      try {
        input = buildReportInput(rows, voided, { rucEmisor, fechaResumen: fecha, secEnvio, tmstFirmaEnv, uiThresholdUyu, fiscalRates: rates });
        xml = signReporteDiario(buildReporteDiario(input), ctx).xml;
      } catch (err) {
        if (err instanceof ReporteError) throw E.REPORTE_INVALIDO(`No se pudo armar el reporte diario: ${err.message}.`);
        throw err;
      }
      const xsd = validateXml('Reporte', xml);
      if (!xsd.ok) throw E.REPORTE_INVALIDO(`El reporte diario no cumple ReporteDiarioCFE.xsd: ${xsd.errors.slice(0, 3).join('; ')}`, { errores: xsd.errors });
      const plan = planReporteDiario(input);
      await repo.supersedePending(tx, companyId, fecha);
      const row = await repo.insertReport(tx, {
        companyId, fechaResumen: fecha, secEnvio, origen, userId, tmstFirmaEnv, xml,
        cantComprobantes: plan.cantComprobantes,
        resumen: plan.blocks.map((b) => ({ tipoComp: b.tipoComp, ...(b.contingency ? { cantCfcEmi: b.cantCfcEmi } : { cantDocsUtil: b.cantDocsUtil, cantDocsAnulados: b.cantDocsAnulados, cantDocsEmi: b.cantDocsEmi }) })),
        fileName: reporteFileName(rucEmisor, fecha, secEnvio),
      });
      await enqueueJob(tx, sendDailyReportJob, { id: row.id }, { jobKey: jobKey(row.id) });
      return row;
    });
  }

  /** The send job again just after a lease expires (database time): it takes the report over if the holder died. */
  const queueAfterLease = (tx: DbOrTx, id: number, leaseUntil: Date | null) =>
    enqueueJob(tx, sendDailyReportJob, { id }, { jobKey: jobKey(id), runAt: new Date((leaseUntil?.getTime() ?? Date.now()) + 1000) });

  /** Keeps the claim's lease alive while the SOAP call lasts, so a slow but live sender is never taken over; returns the stop function. */
  function heartbeat(row: DailyReportRow) {
    let beating = Promise.resolve();
    const timer = setInterval(() => {
      beating = beating
        .then(async () => {
          if (!(await repo.renewLease(db, row.id, row.intentos, leaseMs))) deps.log?.warn({ id: row.id }, 'daily report taken over by another sender while this one was sending');
        })
        .catch((err: Error) => deps.log?.warn({ id: row.id, err: err.message }, 'daily report lease not renewed'));
    }, Math.max(250, Math.floor(leaseMs / 4)));
    return async () => {
      clearInterval(timer);
      await beating;
    };
  }

  /**
   * EFACRECEPCIONREPORTE for a pending report; stores the ACK. The row is claimed first
   * ('pendiente' → 'enviando', leased for `leaseMs` in database time and renewed by a heartbeat while
   * the call lasts) so the inline send of regenerar and the queued job never send one report twice,
   * and a sender killed mid-send is taken over once its lease runs out. Held by another sender: the
   * row is returned as it is. Transport failures put it back to 'pendiente' and are thrown for the
   * queue to retry.
   *
   * `queued`: the caller is the report's own job, which a dead worker's sweep hands back to the queue
   * (modules/fleet). Any other caller queues that job with its claim, for just after the lease, so
   * a report this process was sending when it died is sent by a worker (after a send it finds
   * nothing to do; after a transport failure it is the retry).
   */
  async function send(id: number, opts: { queued?: boolean } = {}): Promise<DailyReportRow | undefined> {
    const row = opts.queued
      ? await repo.claimForSending(db, id, leaseMs)
      : await db.transaction(async (tx) => {
          const claimed = await repo.claimForSending(tx, id, leaseMs);
          if (claimed) await queueAfterLease(tx, id, claimed.leaseUntil);
          return claimed;
        });
    if (!row) return repo.findReport(db, id);
    const done = async (changes: Parameters<typeof repo.finishSend>[3]) => (await repo.finishSend(db, id, row.intentos, changes)) ?? repo.findReport(db, id);
    const ctx = await deps.signingContext(row.companyId);
    if (!ctx) {
      return done({ estado: 'error', ultimoError: 'La empresa no tiene certificado activo para el envío (WS-Security): importe uno con POST /api/v1/empresa/importarCertificado.' });
    }
    const stop = heartbeat(row);
    let ack: Awaited<ReturnType<DgiReceptionClient['sendDailyReport']>>;
    try {
      const client = await deps.receptionClient(row.companyId, ctx);
      ack = await client.sendDailyReport(row.xml);
    } catch (err) {
      await stop();
      if (err instanceof DgiPermanentError) return done({ estado: 'error', ultimoError: err.message });
      await done({ estado: 'pendiente', ultimoError: (err as Error).message });
      if (err instanceof DgiTransientError) throw E.REPORTE_DGI_NO_DISPONIBLE(err.message);
      throw err;
    }
    await stop();
    return done({
      estado: ack.Estado === 'AR' ? 'aceptado' : 'rechazado',
      ackEstado: ack.Estado,
      ackXml: ack.xml,
      motivos: ack.motivos.map((m) => ({ codigo: m.Motivo, glosa: m.Glosa, detalle: m.Detalle })),
      idReceptor: ack.caratula.IDReceptor,
      ultimoError: null,
    });
  }

  async function visible(actor: Actor, id: number, role: 'lectura' | 'emisor' = 'lectura') {
    const row = await repo.findReport(db, id);
    if (!row) throw E.REPORTE_NO_ENCONTRADO();
    assertCompanyRole(actor, row.companyId, role, () => E.REPORTE_NO_ENCONTRADO());
    return row;
  }

  return {
    generate,
    send,

    /**
     * The `dailyReport.send` job. A report another sender holds does not end the job: it is queued
     * again for just after that sender's lease, so if the sender was killed the report is sent
     * within about a lease of its last heartbeat (a live sender's heartbeat moves the lease on, and
     * the job comes back after it again until the report leaves 'enviando').
     */
    async sendQueued(id: number): Promise<DailyReportRow | undefined> {
      const row = await send(id, { queued: true });
      if (row?.estado === 'enviando') await queueAfterLease(db, id, row.leaseUntil);
      return row;
    },

    /** The daily task: yesterday's report for every active company with a certificate, unless one exists (also with no CFE). */
    async generateYesterday(now = new Date()): Promise<{ generated: number[]; skipped: number[] }> {
      const fecha = dayBefore(uyToday(now));
      const generated: number[] = [];
      const skipped: number[] = [];
      for (const companyId of await deps.activeCompanyIds()) {
        const existing = (await repo.reportsOf(db, companyId, fecha)).filter((r) => r.estado !== 'reemplazado');
        if (existing.length > 0 || !(await deps.signingContext(companyId))) {
          skipped.push(companyId);
          continue;
        }
        try {
          const row = await generate(companyId, fecha, 'cron');
          if (row) generated.push(row.id);
          else skipped.push(companyId);
        } catch (err) {
          deps.log?.warn({ err, companyId, fecha }, 'daily report generation failed');
          skipped.push(companyId);
        }
      }
      return { generated, skipped };
    },

    async list(actor: Actor, f: repo.ReportFilters, paging: Paging) {
      assertCompanyRole(actor, f.idEmpresa, 'lectura');
      const { rows, total } = await repo.listReports(db, f, paging);
      return { data: rows.map((r) => reportView(r)), total };
    },

    get: async (actor: Actor, id: number) => reportView(await visible(actor, id), true),

    async xml(actor: Actor, id: number) {
      const row = await visible(actor, id);
      return { xml: row.xml, fileName: row.fileName };
    },

    /** POST regenerar: a new report with the next SecEnvio, sent at once (its ACK is in the answer). */
    async regenerate(actor: Actor, companyId: number, fecha: string) {
      assertCompanyRole(actor, companyId, 'emisor');
      const row = await generate(companyId, fecha, 'manual', actor.userId);
      return reportView((await trySend(row.id)) ?? row);
    },

    /** POST {id}/reenviar: the same XML again, only while no DGI answer was stored (a transport failure). */
    async resend(actor: Actor, id: number) {
      const row = await visible(actor, id, 'emisor');
      if (row.estado !== 'pendiente' && row.estado !== 'error') throw E.REPORTE_NO_REENVIABLE();
      if (row.estado === 'error') await repo.updateReport(db, id, { estado: 'pendiente' });
      return reportView((await trySend(id)) ?? row);
    },
  };

  /** Sends now; a transport failure leaves the report pending for the job its claim queued to retry. */
  async function trySend(id: number) {
    try {
      return await send(id);
    } catch {
      return repo.findReport(db, id);
    }
  }
}

export type DailyReportService = ReturnType<typeof createDailyReportService>;
