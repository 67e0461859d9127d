/**
 * DGI's "Prueba de Testing" in one run (issue 47 point 1; BRIEF 13): a preflight of what DGI will
 * check (certificate, CAE ranges, branch addresses, RUT, every e-Ticket sent individually), then the
 * set: receipts (101, 111) issued through emission and followed to DGI's verdict, then their notes
 * (102, 103, 112, 113) referencing receipts DGI received, followed too, then the daily report of the
 * day sent and followed to DGI's answer. Nothing is corrected on the way: a rejection is reported
 * with DGI's code and the receipt. Each run is a row of dgi_testing_runs with its progress and report.
 * Knows nothing of HTTP; the command (scripts/dgi-testing.ts) and the tests drive it.
 */
import { and, desc, eq, gt } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import { enqueueJob } from '../../platform/jobs/queue.js';
import { dgiTestingErrors as E } from './dgi-testing.errors.js';
import { runDgiTestingJob } from './dgi-testing.jobs.js';
import { rutProblem } from '../../lib/rut.js';
import { uyToday } from '../../lib/dates.js';
import type { IssueCfeBody } from '../issued-cfe/issued-cfe.schemas.js';
import { buildReport, renderReport, REQUIRED_PER_TYPE, type DailyReportOutcome, type TestingReport, type Verdict } from './dgi-testing.report.js';
import { noteBody, receiptBody, type ReferencedReceipt } from './dgi-testing.set.js';
import { dgiTestingRuns } from './dgi-testing.tables.js';

/** DGI has not answered yet (emission/cfe-states.ts): the run keeps following these. */
const PENDING = new Set(['firmado', 'en_cola_dgi', 'sobre_recibido']);

export interface DgiTestingPorts {
  company(companyId: number): Promise<{ id: number; rut: string; razonSocial: string } | undefined>;
  /** The first enabled branch with an enabled terminal, with the address printed on the CFE. */
  emissionPoint(companyId: number): Promise<{ codComercio: string; codTerminal: string; direccion: string | null; ciudad: string | null; departamento: string | null; codigoCasaDgi: number | null } | undefined>;
  /** The active certificate: validity and subject. */
  certificate(companyId: number): Promise<{ vigente: boolean; validoHasta: string; sujeto: string } | undefined>;
  /** Numbers left per type (any serie) in ranges in force. */
  caeAvailable(companyId: number): Promise<Map<number, number>>;
  envioIndividual(companyId: number): Promise<string>;
  /** DGI's RUT service (DGI_MODE=real): null when DGI does not know the RUT. */
  rutLookup?(companyId: number, rut: string): Promise<{ Denominacion: string; EstadoActividad: string } | null>;
  issue(body: IssueCfeBody): Promise<{ id: number; tipoCfe: number; serie: string; numero: number; fechaEmision: string; moneda: string; tipoCambio: string | null; receptor: Record<string, unknown> | null }>;
  verdicts(ids: number[]): Promise<Array<Verdict & { id: number }>>;
  dailyReport(companyId: number, fecha: string): Promise<DailyReportOutcome>;
}

export interface RunOptions {
  /** Receipts per type; DGI requires 50 (the default). Smaller only for tests. */
  cantidad?: number;
  /** Only the preflight: nothing is issued or sent. */
  dryRun?: boolean;
  onProgress?: (line: string) => void;
  /** How long to follow DGI's verdicts before reporting what is still pending. */
  esperaMaxMs?: number;
  pollMs?: number;
}

export interface Preflight {
  ok: boolean;
  checks: Array<{ control: string; ok: boolean; detalle: string }>;
}

export function createDgiTestingService(deps: { db: Db; ports: DgiTestingPorts; destino: 'simulador' | 'dgi_testing' }) {
  const { db, ports } = deps;

  async function preflight(companyId: number, cantidad: number): Promise<Preflight> {
    const checks: Preflight['checks'] = [];
    const add = (control: string, ok: boolean, detalle: string) => checks.push({ control, ok, detalle });
    const company = await ports.company(companyId);
    if (!company) return { ok: false, checks: [{ control: 'empresa', ok: false, detalle: `No existe la empresa ${companyId}.` }] };
    const rut = rutProblem(company.rut);
    add('RUT', !rut, rut ?? `RUT ${company.rut} válido.`);
    if (ports.rutLookup && !rut) {
      const info = await ports.rutLookup(companyId, company.rut).catch((err: Error) => ({ error: err.message }));
      if (info && 'error' in info) add('RUT en DGI', false, `Consulta de RUT a DGI falló: ${info.error}`);
      else add('RUT en DGI', Boolean(info && info.EstadoActividad === 'AA'), info ? `${info.Denominacion}, estado ${info.EstadoActividad}` : 'DGI no conoce el RUT.');
    }
    const cert = await ports.certificate(companyId);
    add('certificado', Boolean(cert?.vigente), cert ? `${cert.sujeto}, vigente hasta ${cert.validoHasta}${cert.vigente ? '' : ' — NO vigente'}` : 'La empresa no tiene certificado activo.');
    const available = await ports.caeAvailable(companyId);
    for (const tipo of [101, 102, 103, 111, 112, 113]) {
      const left = available.get(tipo) ?? 0;
      add(`CAE ${tipo}`, left >= cantidad, `${left} números disponibles en rangos vigentes; la prueba usa ${cantidad}.`);
    }
    const point = await ports.emissionPoint(companyId);
    const missing = point ? (['direccion', 'ciudad', 'departamento', 'codigoCasaDgi'] as const).filter((f) => point[f] === null || point[f] === '') : [];
    add('sucursal y domicilio', Boolean(point) && missing.length === 0,
      point ? (missing.length ? `Sucursal ${point.codComercio}: falta ${missing.join(', ')} (DomFiscal, Ciudad, Departamento, CdgDGISucur del emisor).` : `Sucursal ${point.codComercio}, terminal ${point.codTerminal}: ${point.direccion}, ${point.ciudad}, ${point.departamento}, código DGI ${point.codigoCasaDgi}.`)
        : 'No hay sucursal habilitada con un punto de emisión habilitado.');
    const envio = await ports.envioIndividual(companyId);
    add('envío de e-Tickets', envio === 'todos', envio === 'todos' ? 'Todos los e-Tickets se envían a DGI uno a uno.'
      : `envioIndividual=${envio}: los e-Tickets bajo el tope de 5.000 UI no se envían y DGI no puede darlos por recibidos; ponga "todos" (PUT de la configuración de envío a DGI) antes de la prueba.`);
    return { ok: checks.every((c) => c.ok), checks };
  }

  async function progress(runId: number, line: string, onProgress?: (l: string) => void) {
    onProgress?.(line);
    await db.update(dgiTestingRuns).set({ progreso: line }).where(eq(dgiTestingRuns.id, runId));
  }

  /** Follows `ids` until DGI answered all of them or the wait ends; returns their verdicts. */
  async function follow(runId: number, ids: number[], label: string, o: Required<Pick<RunOptions, 'esperaMaxMs' | 'pollMs'>> & RunOptions) {
    const end = Date.now() + o.esperaMaxMs;
    let last = '';
    for (;;) {
      const verdicts = await ports.verdicts(ids);
      const pending = verdicts.filter((v) => PENDING.has(v.estado)).length;
      const line = `${label}: ${ids.length - pending}/${ids.length} con respuesta de DGI`;
      if (line !== last) await progress(runId, line, o.onProgress);
      last = line;
      if (pending === 0 || Date.now() > end) return verdicts;
      await new Promise((r) => setTimeout(r, o.pollMs));
    }
  }

  async function issueAll(runId: number, companyId: number, point: { codComercio: string; codTerminal: string }, bodies: Array<IssueCfeBody['cfe']>, label: string, o: RunOptions) {
    const issued = [];
    for (const [i, cfe] of bodies.entries()) {
      issued.push(await ports.issue({ idEmpresa: companyId, codComercio: point.codComercio, codTerminal: point.codTerminal, cfe }));
      if ((i + 1) % 10 === 0 || i + 1 === bodies.length) await progress(runId, `${label}: ${i + 1}/${bodies.length} emitidos`, o.onProgress);
    }
    return issued;
  }

  return {
    preflight,

    /** Runs the set for `companyId` in this process (the command); resolves with the stored run (its report in `reporte`). */
    async run(companyId: number, options: RunOptions = {}) {
      const [run] = await db.insert(dgiTestingRuns).values({ companyId, destino: deps.destino, cantidadPorTipo: options.cantidad ?? REQUIRED_PER_TYPE }).returning();
      return execute(run.id, options);
    },

    /** The operator endpoint: the run is stored and queued as a job in one transaction; its row shows the progress. */
    async start(actor: Actor, companyId: number, opts: { cantidad?: number; soloVerificar?: boolean }) {
      assertCompanyRole(actor, companyId, 'administrador');
      return db.transaction(async (tx) => {
        // One run at a time per company (an hour-old run still "en_curso" was killed: it no longer blocks).
        const running = await tx.select({ id: dgiTestingRuns.id }).from(dgiTestingRuns)
          .where(and(eq(dgiTestingRuns.companyId, companyId), eq(dgiTestingRuns.estado, 'en_curso'), gt(dgiTestingRuns.startedAt, new Date(Date.now() - 3600_000))));
        if (running.length) throw E.PRUEBA_EN_CURSO(`La prueba ${running[0].id} de esta empresa está en curso.`);
        const [run] = await tx.insert(dgiTestingRuns).values({ companyId, destino: deps.destino, cantidadPorTipo: opts.cantidad ?? REQUIRED_PER_TYPE }).returning();
        await enqueueJob(tx, runDgiTestingJob, { id: run.id, dryRun: Boolean(opts.soloVerificar) }, { jobKey: `dgi-testing-${run.id}` });
        return runView(run);
      });
    },

    execute,

    async get(actor: Actor, id: number) {
      const [row] = await db.select().from(dgiTestingRuns).where(eq(dgiTestingRuns.id, id));
      if (!row) throw E.PRUEBA_NO_ENCONTRADA();
      assertCompanyRole(actor, row.companyId, 'lectura', () => E.PRUEBA_NO_ENCONTRADA());
      return runView(row);
    },

    async list(actor: Actor, companyId: number) {
      assertCompanyRole(actor, companyId, 'lectura');
      return (await db.select().from(dgiTestingRuns).where(eq(dgiTestingRuns.companyId, companyId)).orderBy(desc(dgiTestingRuns.id)).limit(100)).map(runView);
    },
  };

  /** Runs stored run `runId` to its end. */
  async function execute(runId: number, options: RunOptions = {}) {
      const o = { esperaMaxMs: 15 * 60_000, pollMs: 500, ...options };
      const [run] = await db.select().from(dgiTestingRuns).where(eq(dgiTestingRuns.id, runId));
      const companyId = run.companyId;
      const cantidad = run.cantidadPorTipo;
      const finish = async (estado: string, values: { reporte?: unknown; error?: string }) =>
        (await db.update(dgiTestingRuns).set({ estado, ...values, finishedAt: new Date() }).where(eq(dgiTestingRuns.id, run.id)).returning())[0];
      try {
        const pre = await preflight(companyId, cantidad);
        for (const c of pre.checks) o.onProgress?.(`${c.ok ? '✔' : '✖'} ${c.control}: ${c.detalle}`);
        if (!pre.ok || o.dryRun) return finish(pre.ok ? 'completado' : 'no_listo', { reporte: { preflight: pre, dryRun: Boolean(o.dryRun) } });
        const company = (await ports.company(companyId))!;
        const point = (await ports.emissionPoint(companyId))!;
        // Every CFE of the test is signed the same day (BRIEF 13); the report is that day's.
        const fecha = uyToday();

        const tickets = await issueAll(run.id, companyId, point, Array.from({ length: cantidad }, (_, i) => receiptBody(101, i, fecha)), 'e-Ticket 101', o);
        const facturas = await issueAll(run.id, companyId, point, Array.from({ length: cantidad }, (_, i) => receiptBody(111, i, fecha)), 'e-Factura 111', o);
        const first = await follow(run.id, [...tickets, ...facturas].map((c) => c.id), 'Comprobantes 101 y 111', o);
        const received = new Set(first.filter((v) => v.estado === 'aceptado').map((v) => v.id));

        // Notes reference receipts DGI received (E12 otherwise: BRIEF 2.8), taken in turn.
        const notes = async (tipo: 102 | 103 | 112 | 113, receipts: typeof tickets) => {
          const refs = receipts.filter((r) => received.has(r.id));
          if (refs.length === 0) {
            await progress(run.id, `Tipo ${tipo}: no se emite, DGI no recibió ningún comprobante que referenciar`, o.onProgress);
            return [];
          }
          const bodies = Array.from({ length: cantidad }, (_, i) => noteBody(tipo, i, fecha, referenced(refs[i % refs.length])));
          return issueAll(run.id, companyId, point, bodies, `Nota ${tipo}`, o);
        };
        const noteIds = [...(await notes(102, tickets)), ...(await notes(103, tickets)), ...(await notes(112, facturas)), ...(await notes(113, facturas))].map((n) => n.id);
        await follow(run.id, noteIds, 'Notas 102, 103, 112 y 113', o);

        await progress(run.id, `Reporte diario del ${fecha}: generando y enviando`, o.onProgress);
        const reporteDiario = await ports.dailyReport(companyId, fecha);
        await progress(run.id, `Reporte diario del ${fecha}: ${reporteDiario.estado} (${reporteDiario.ackEstado ?? 'sin respuesta'})`, o.onProgress);

        const verdicts = await ports.verdicts([...tickets, ...facturas].map((c) => c.id).concat(noteIds));
        const report: TestingReport = buildReport({ empresa: company, destino: deps.destino, fecha, cantidadPorTipo: cantidad, reporteDiario }, verdicts.map(({ id: _id, ...v }) => v));
        o.onProgress?.(renderReport(report));
        return finish('completado', { reporte: report });
      } catch (err) {
        await finish('error', { error: (err as Error).message });
        throw err;
      }
  }
}

function runView(r: typeof dgiTestingRuns.$inferSelect) {
  return {
    id: r.id, idEmpresa: r.companyId, destino: r.destino, cantidadPorTipo: r.cantidadPorTipo, estado: r.estado, progreso: r.progreso,
    reporte: r.reporte, error: r.error, inicio: r.startedAt.toISOString(), fin: r.finishedAt?.toISOString() ?? null,
  };
}

/** What a note copies of the receipt it references (its printed receiver is DGI-named, issued-cfe view). */
function referenced(r: { serie: string; numero: number; fechaEmision: string; moneda: string; tipoCambio: string | null; receptor: Record<string, unknown> | null; tipoCfe?: number }): ReferencedReceipt {
  const rec = r.receptor as Record<string, string | number | undefined> | null;
  return {
    tipoCfe: r.tipoCfe ?? 0,
    serie: r.serie,
    numero: r.numero,
    fechaEmision: r.fechaEmision,
    moneda: r.moneda,
    tipoCambio: r.tipoCambio,
    receptor: rec?.DocRecep
      ? { tipoDocumento: Number(rec.TipoDocRecep), documento: String(rec.DocRecep), codPais: rec.CodPaisRecep as string, razonSocial: rec.RznSocRecep as string, direccion: rec.DirRecep as string, ciudad: rec.CiudadRecep as string, departamento: rec.DeptoRecep as string }
      : null,
  };
}

export type DgiTestingService = ReturnType<typeof createDgiTestingService>;
