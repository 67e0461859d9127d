/**
 * Received CFEs (issue 30; BRIEF 8): every electronic issuer is also an electronic receiver. This
 * service is the front of the intake pipeline (received-cfe.intake.ts), the decisions
 * (received-cfe.decisions.ts), reads, and the e-mail of our signed answers to the issuer.
 */
import { createHash } from 'node:crypto';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import type { Mailer } from '../../platform/mailer.js';
import { enqueueJob } from '../../platform/jobs/queue.js';
import type { EventsService } from '../events/events.service.js';
import type { SigningContext } from '../emission/index.js';
import { mailFileRecordingAttempt, type CompanyTransport } from '../receiver-exchange/receiver-exchange.mail.js';
import { decide, rejectionMotive, type Decision, type DecisionPorts, type ItemResult } from './received-cfe.decisions.js';
import { applyAnnulment } from './received-cfe.annulments.js';
import { receivedErrors as E } from './received-cfe.errors.js';
import { intake, type IntakePorts, type IntakeSource } from './received-cfe.intake.js';
import { sendAnswerMailJob } from './received-cfe.jobs.js';
import * as repo from './received-cfe.repository.js';
import { answerRefView, receivedCfeView } from './received-cfe.view.js';
import { createCfeVerifier } from './received-cfe.verify.js';
import { errors } from '../../lib/errors.js';
import type { Paging } from '../../platform/http/paging.js';
import type { PdfFormato } from '../documents/pdf/index.js';
import { isPrintable, receivedPdfName, renderReceivedCfe } from './received-cfe.documents.js';
import { filterProblems, searchReceivedCfes, type ReceivedSearchFilters, type ReceivedSort } from './received-cfe.search.js';
import { markImportedToStock, type StockInput } from './received-cfe.stock.js';
import { findQrCheck } from './received-cfe.qr.js';

export interface ReceivedCfeDeps {
  db: Db;
  mailer: Mailer;
  events: Pick<EventsService, 'recordMany'>;
  rutOf(companyId: number): Promise<string | undefined>;
  settingsOf(companyId: number): Promise<Record<string, unknown> | undefined>;
  signingContext(companyId: number): Promise<SigningContext | undefined>;
  issuerTrust?: IntakePorts['issuerTrust'];
  /** Days to decide when the company sets none (plazoRespuestaCfeRecibidoDias; RECEIVED_RESPONSE_DAYS). */
  defaultResponseDays: number;
  /** Worker threads that verify received CFEs (RECEIVED_VERIFY_WORKERS); 0 = on the event loop. */
  verifyWorkers?: number;
  /** The company's own SMTP server and sender (correoSaliente), or undefined for the service's (issue 42 point 2). */
  companyTransport(companyId: number): Promise<CompanyTransport | undefined>;
}

export const MAX_DECISION_IDS = 250;

export function createReceivedCfeService(deps: ReceivedCfeDeps) {
  const { db } = deps;
  const ports: IntakePorts & DecisionPorts = {
    signingContext: deps.signingContext,
    issuerTrust: deps.issuerTrust,
    async responseDays(companyId) {
      const v = (await deps.settingsOf(companyId))?.plazoRespuestaCfeRecibidoDias;
      return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : deps.defaultResponseDays;
    },
    recordEvents: async (tx, events) => {
      if (events.length) await deps.events.recordMany(tx, events);
    },
    queueAnswerMail: (tx, answerId) => enqueueJob(tx, sendAnswerMailJob, { id: answerId }),
    verifier: createCfeVerifier({ workers: deps.verifyWorkers ?? 0 }),
  };

  async function companyRut(companyId: number): Promise<string> {
    const rut = await deps.rutOf(companyId);
    if (!rut) throw E.CFE_RECIBIDO_NO_ENCONTRADO('La empresa no existe.');
    return rut;
  }

  /** A received CFE of a company the actor sees (another company's is 404, like one that does not exist). */
  async function visible(actor: Actor, id: number, role: 'lectura' | 'emisor' = 'lectura') {
    const row = await repo.findCfe(db, id);
    if (!row) throw E.CFE_RECIBIDO_NO_ENCONTRADO();
    assertCompanyRole(actor, row.companyId, role, () => E.CFE_RECIBIDO_NO_ENCONTRADO());
    return row;
  }

  return {
    /** The pipeline itself, for the mailbox poller (its transaction also records the mail). */
    async intakeIn(tx: DbOrTx, companyId: number, bytes: Buffer, source: IntakeSource) {
      return intake(tx, ports, companyId, await companyRut(companyId), bytes, source);
    },

    /** An issuer's CFEs_Anulados_x_RechazoDGI notice, inside the mail's transaction. */
    async annulIn(tx: DbOrTx, companyId: number, xml: string) {
      return applyAnnulment(tx, companyId, await companyRut(companyId), xml);
    },

    /** POST /api/v1/cferecibido/importar: an envelope or a single signed CFE uploaded by a user. */
    async importar(actor: Actor, input: { idEmpresa: number; xml: string; emailRespuesta?: string | null; nombreArchivo?: string | null }) {
      assertCompanyRole(actor, input.idEmpresa, 'emisor');
      const rut = await companyRut(input.idEmpresa);
      const bytes = Buffer.from(input.xml, 'utf8');
      return db.transaction(async (tx) => {
        const r = await intake(tx, ports, input.idEmpresa, rut, bytes, { canal: 'importacion', emailRespuesta: input.emailRespuesta ?? null, fileName: input.nombreArchivo ?? null });
        // Every answer the upload produced (or produced before, for a repeat) can be obtained (issue 42 point 3).
        return { ...r, respuestas: r.sobre ? (await repo.answersOfEnvelope(tx, r.sobre.id)).map(answerRefView) : [] };
      });
    },

    async get(actor: Actor, id: number) {
      const row = await visible(actor, id);
      const env = row.envelopeId ? await repo.findEnvelope(db, row.envelopeId) : undefined;
      const history = await repo.historyOf(db, id);
      return {
        ...receivedCfeView(row, env),
        historial: history.map((h) => ({ estado: h.estado, motivos: h.motivos, mensaje: h.mensaje, idUsuario: h.userId, fecha: h.creadoEn.toISOString() })),
        consultaQr: await findQrCheck(db, id),
        respuestas: env ? (await repo.answersOfEnvelope(db, env.id)).map(answerRefView) : [],
      };
    },

    async xml(actor: Actor, id: number) {
      const row = await visible(actor, id);
      return { xml: row.xml, fileName: `CFE_${row.rutEmisor ?? 'desconocido'}_${row.tipoCfe ?? 0}_${row.serie ?? ''}${row.numero ?? row.id}.xml` };
    },

    /** GET /api/v1/cferecibido/buscar (issue 31 point 1). */
    async search(actor: Actor, q: { idEmpresa: number } & ReceivedSearchFilters & ReceivedSort, paging: Paging) {
      const { idEmpresa, orden, direccion, ...filters } = q;
      assertCompanyRole(actor, idEmpresa, 'lectura');
      const problems = filterProblems(filters);
      if (problems.length) throw errors.VALIDACION(problems.join(' '));
      return searchReceivedCfes(db, idEmpresa, filters, { orden, direccion }, paging);
    },

    /** GET /api/v1/cferecibido/representacionImpresa (issue 31 point 2): the issuer's printed copy, drawn from the received XML. */
    async printed(actor: Actor, id: number, formato: PdfFormato) {
      const row = await visible(actor, id);
      if (!isPrintable(row)) throw E.CFE_RECIBIDO_NO_IMPRIMIBLE();
      return { pdf: await renderReceivedCfe(row, formato), fileName: receivedPdfName(row) };
    },

    /** POST /api/v1/cferecibido/marcarComoImportadoStock/{id} (issue 31 point 4). */
    async markStock(actor: Actor, id: number, input: StockInput & { idEmpresa?: number }) {
      const row = await visible(actor, id, 'emisor');
      if (input.idEmpresa !== undefined && input.idEmpresa !== row.companyId) throw E.CFE_RECIBIDO_NO_ENCONTRADO();
      // The event commits with the flag, and only the first recording raises it (a repeat is a no-op).
      return db.transaction(async (tx) => {
        const result = await markImportedToStock(tx, row, actor.userId, input);
        if (!result.repetido) {
          const now = (await repo.findCfe(tx, row.id))!;
          await deps.events.recordMany(tx, [{ type: 'CfeRecibido.ImportadoStock', companyId: row.companyId, resource: receivedCfeView(now) }]);
        }
        return result;
      });
    },

    /** One of our signed answers (ACKSobre / ACKCFE), to download. */
    async answer(actor: Actor, id: number) {
      const a = await repo.findAnswer(db, id);
      if (!a) throw E.RESPUESTA_NO_ENCONTRADA();
      assertCompanyRole(actor, a.companyId, 'lectura', () => E.RESPUESTA_NO_ENCONTRADA());
      return a;
    },

    async decide(actor: Actor, input: { idEmpresa: number; ids: number[]; motivo?: { codigo: string; glosa?: string; detalle?: string } }, decision: Decision, idempotencyKey?: string) {
      assertCompanyRole(actor, input.idEmpresa, 'emisor');
      const motive = decision === 'rechazar' ? rejectionMotive(input.motivo!) : undefined;
      const rut = await companyRut(input.idEmpresa);
      const requestHash = createHash('sha256').update(JSON.stringify([decision, input])).digest('hex');
      return db.transaction(async (tx) => {
        if (idempotencyKey) {
          const prior = await repo.claimIdempotency(tx, input.idEmpresa, idempotencyKey, requestHash);
          if (prior && prior.requestHash !== requestHash) throw E.IDEMPOTENCIA_CONFLICTO_RECIBIDO();
          if (prior) return { ...(prior.response as { resultados: ItemResult[]; hechos: number; fallidos: number }), repetida: true };
        }
        const resultados = await decide(tx, ports, input.idEmpresa, rut, actor.userId, input.ids, decision, motive);
        const response = { resultados, hechos: resultados.filter((r) => r.resultado === 'hecho').length, fallidos: resultados.filter((r) => r.resultado === 'no_permitido' || r.resultado === 'no_encontrado').length };
        if (idempotencyKey) await repo.storeIdempotency(tx, input.idEmpresa, idempotencyKey, requestHash, response);
        return { ...response, repetida: false };
      });
    },

    /** Job: e-mails one stored answer to the issuer, each attempt recorded on its row. */
    async sendAnswerMail(id: number, attempt: number, maxAttempts: number) {
      const a = await repo.findAnswer(db, id);
      if (!a || a.estado === 'enviado' || !a.email) return;
      await mailFileRecordingAttempt(
        deps.mailer,
        await deps.companyTransport(a.companyId),
        { email: a.email, fileName: a.fileName, xml: a.xml },
        { subject: `${a.tipo} ${a.fileName}`, text: `Respuesta ${a.tipo} (DGI, intercambio entre empresas) adjunta: ${a.fileName}.` },
        { attempt, maxAttempts },
        (changes) => repo.updateAnswer(db, id, changes),
      );
    },
  };
}

export type ReceivedCfeService = ReturnType<typeof createReceivedCfeService>;
