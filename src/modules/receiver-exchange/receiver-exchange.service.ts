/**
 * Exchange with electronic receivers (BRIEF 5 and 8; issue 6 points 1, 2, 5, 7).
 *
 * Outbound: an EnvioCFE_entreEmpresas per receiver (its CFEs only, each with its Adenda), never a
 * CFC, only CFEs DGI already has and never one DGI rejected (receiver-exchange.delivery.ts, BRIEF 1
 * and 10). `generate` returns it (optionally queueing the e-mail); the dispatcher (cron, every minute)
 * picks unsent CFEs of customers flagged `emisorElectronico` with SKIP LOCKED, builds one envelope
 * per receiver, sets estado_receptor = 'receptor_pendiente' with a history row and enqueues the
 * e-mail job, all in one transaction. The job e-mails it (retried by the queue, recorded on the row).
 *
 * Inbound: the receiver's signed ACKSobre / ACKCFE, uploaded or mailed (receiver-exchange.answers.ts).
 */
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import { enqueueJob } from '../../platform/jobs/queue.js';
import type { Mailer } from '../../platform/mailer.js';
import { validateXml } from '../../platform/xml/xsd.js';
import type { EventsService } from '../events/events.service.js';
import { buildEnvioCfeEntreEmpresas, envelopeFileName, ENVELOPE_MAX_CFE, formatTmstFirma, type SigningContext } from '../emission/index.js';
import { RECEIVER_DELIVERABLE_STATES, undeliverable } from './receiver-exchange.delivery.js';
import { receiverErrors as E } from './receiver-exchange.errors.js';
import { sendEnvelopeMailJob } from './receiver-exchange.jobs.js';
import { describeMailOutcome, mailFileRecordingAttempt, type CompanyTransport } from './receiver-exchange.mail.js';
import * as repo from './receiver-exchange.repository.js';
import type { AnnulledCfe, ExchangeCfe } from '../issued-cfe/index.js';
import { createReceiverNotices } from './receiver-exchange.notices.js';
import { createReceiverAnswers } from './receiver-exchange.answers.js';
import { createExchangeHistory } from './receiver-exchange.history.js';

export interface ElectronicReceiver {
  id: number;
  companyId: number;
  tipoDocumento: number;
  documento: string;
  razonSocial: string;
  email: string | null;
}

export interface ReceiverExchangeDeps {
  db: Db;
  rutOf(companyId: number): Promise<string | undefined>;
  signingContext(companyId: number): Promise<SigningContext | undefined>;
  electronicReceivers(db: DbOrTx, companyId?: number): Promise<ElectronicReceiver[]>;
  events: Pick<EventsService, 'record'>;
  mailer: Mailer;
  settings: { maxAgeDays: number };
  /** The issued CFEs this module sends on and acknowledges, receiver-side columns (issued-cfe.handoff.ts). */
  cfes: {
    byIds(db: DbOrTx, ids: number[]): Promise<ExchangeCfe[]>;
    claimUnsent(tx: DbOrTx, customerIds: number[], dgiStates: readonly string[], maxAgeDays: number, limit: number): Promise<ExchangeCfe[]>;
    lockOne(tx: DbOrTx, companyId: number, tipoCfe: number, serie: string, numero: number): Promise<ExchangeCfe | undefined>;
    /** DGI-rejected CFEs that reached a receiver, and claiming them: the annulment notices (receiver-exchange.notices.ts). */
    rejectedSent(db: DbOrTx, companyIds: number[], maxAgeDays: number): Promise<number[]>;
    claimRejected(tx: DbOrTx, ids: number[]): Promise<AnnulledCfe[]>;
  };
  /** issued-cfe's receiver-side state writer (issued-cfe.history.ts applyReceptorStateChange). */
  /** The company's inbound mailbox address (received-cfe), Reply-To of its envelopes; set after wiring. */
  replyToOf?: (companyId: number) => Promise<string | null>;
  /** The company's customer a CFE went to (by id, else by RUT), whether or not it is an electronic issuer. */
  findCustomer(companyId: number, customerId: number | null, documento: string | null): Promise<{ id: number; razonSocial: string } | undefined>;
  /** When DGI's registry of electronic issuers was last synced, or null when never. */
  registrySynced(): Promise<Date | null>;
  /** A history entry on the CFEs without a state change: what happened to the mail (issued-cfe.history.ts recordReceptorNote). */
  noteReceptor(tx: DbOrTx, cfeIds: number[], h: { mensaje: string; referencia: string }): Promise<void>;
  /** The company's own SMTP server and sender (correoSaliente), or undefined for the service's (issue 42 point 2). */
  companyTransport(companyId: number): Promise<CompanyTransport | undefined>;
  setReceptorState(tx: DbOrTx, cfe: { id: number; companyId: number; estadoReceptor: string | null }, estado: string, h: { codigo?: string | null; motivos?: unknown; mensaje?: string; referencia: string; userId?: number }): Promise<void>;
}

const RUT = 2;

export function createReceiverExchangeService(deps: ReceiverExchangeDeps) {
  const { db } = deps;

  /** Builds, XSD-validates and stores one envelope for CFEs of one receiver; `email` set = queue the e-mail. */
  async function buildAndStore(tx: DbOrTx, companyId: number, cfes: ExchangeCfe[], o: { customerId: number | null; email: string | null; send: boolean }) {
    if (cfes.some((c) => c.tipoCfe >= 200)) throw E.SOBRE_RECEPTOR_CFC();
    const blocked = undeliverable(cfes);
    const list = (l: ExchangeCfe[]) => l.map((c) => `${c.id} (${c.tipoCfe}-${c.serie}-${c.numero}, ${c.estado})`).join(', ');
    if (blocked.rechazados.length) {
      throw E.SOBRE_RECEPTOR_RECHAZADO_DGI(`Comprobantes rechazados por DGI (anulados, BRIEF 10), no se envían al receptor: ${list(blocked.rechazados)}.`, { idsCfe: blocked.rechazados.map((c) => c.id) });
    }
    if (blocked.sinDgi.length) {
      throw E.SOBRE_RECEPTOR_SIN_DGI(`DGI todavía no recibió estos comprobantes; se envían al receptor cuando DGI recibe su sobre: ${list(blocked.sinDgi)}.`, { idsCfe: blocked.sinDgi.map((c) => c.id) });
    }
    if (cfes.some((c) => c.receptorTipoDoc !== RUT || !c.receptorDocumento)) throw E.SOBRE_RECEPTOR_SIN_RUC();
    const rutReceptor = cfes[0].receptorDocumento!;
    if (cfes.some((c) => c.receptorDocumento !== rutReceptor)) throw E.SOBRE_RECEPTOR_MEZCLADO();
    const rucEmisor = await deps.rutOf(companyId);
    const ctx = await deps.signingContext(companyId);
    if (!rucEmisor || !ctx) throw E.SIN_CERTIFICADO_SOBRE();
    const id = await repo.nextSerialId(tx, 'receiver_envelopes');
    const fecha = formatTmstFirma(new Date());
    const xml = buildEnvioCfeEntreEmpresas({
      rutReceptor, rucEmisor, idEmisor: id, fecha, certificateDerBase64: ctx.certificate.der.toString('base64'),
      items: cfes.map((c) => ({ cfe: c.xml, ...(c.adenda ? { adenda: c.adenda } : {}) })),
    });
    const xsd = validateXml('EnvioCFE_entreEmpresas', xml);
    if (!xsd.ok) throw E.SOBRE_RECEPTOR_INVALIDO(`El sobre no cumple EnvioCFE_entreEmpresas.xsd: ${xsd.errors.slice(0, 3).join('; ')}`, { errores: xsd.errors });
    const row = await repo.insertEnvelope(tx, {
      id, companyId, customerId: o.customerId, rutReceptor, email: o.email, cfeIds: cfes.map((c) => c.id), xml,
      fileName: envelopeFileName(rucEmisor, fecha, id), estado: o.send ? 'pendiente' : 'generado',
    });
    if (o.send) {
      for (const c of cfes) {
        if (c.estadoReceptor === null) await deps.setReceptorState(tx, c, 'receptor_pendiente', { referencia: `sobreReceptor:${id}`, mensaje: `Sobre ${id} en cola para enviarse por correo a ${o.email}` });
      }
      await enqueueJob(tx, sendEnvelopeMailJob, { id }, { jobKey: `receiver-envelope-${id}` });
    }
    return row;
  }

  /** Why the CFE's receiver gets no envelope by e-mail (issue 42 point 6): the real cause, and how to change it. */
  async function notElectronic(companyId: number, cfe: ExchangeCfe) {
    const customer = await deps.findCustomer(companyId, cfe.customerId, cfe.receptorDocumento);
    const rut = cfe.receptorDocumento ?? '?';
    if (!customer) {
      return E.SOBRE_RECEPTOR_SIN_CLIENTE(`El receptor RUT ${rut} no es un cliente de la empresa: créelo con POST /api/v1/cliente/crear (tipoDocumento 2, emisorElectronico true si es emisor electrónico, emailIntercambio) para enviarle sobres por correo.`, { rutReceptor: rut });
    }
    const registry = await deps.registrySynced();
    const inRegistry = registry
      ? `tampoco figura como emisor electrónico vigente en el registro de emisores de DGI (última sincronización ${registry.toISOString()})`
      : 'y el registro de emisores de DGI todavía no se sincronizó (no se puede saber si figura)';
    return E.SOBRE_RECEPTOR_NO_ELECTRONICO(
      `El cliente ${customer.razonSocial} (RUT ${rut}) no es emisor electrónico: no está marcado emisorElectronico ${inRegistry}. Solo se envía el sobre entre empresas a un emisor electrónico. Si lo es, márquelo con POST /api/v1/cliente/editar { idCliente: ${customer.id}, emisorElectronico: true }; si no, entréguele el comprobante por otro medio (p. ej. POST /api/v1/cfeemitido/enviarPdfPorCorreo).`,
      { idCliente: customer.id, rutReceptor: rut, registroSincronizado: !!registry },
    );
  }

  return {
    /** Annulment notices CFEs_Anulados_x_RechazoDGI (BRIEF 8): dispatchNotices, sendNoticeMail, getNotice. */
    ...createReceiverNotices(deps),
    /** Receivers' answers (ACKSobre / ACKCFE), uploaded or mailed: applyAck. */
    ...createReceiverAnswers(deps),
    /** The issuer's view of the exchange (issue 42 point 4): lists and downloads. */
    ...createExchangeHistory(deps),

    /** POST /api/v1/cfeemitido/generarSobreReceptor. */
    async generate(actor: Actor, input: { idEmpresa: number; idsCfe: number[]; enviarPorCorreo?: boolean }) {
      assertCompanyRole(actor, input.idEmpresa, input.enviarPorCorreo ? 'emisor' : 'lectura');
      const ids = [...new Set(input.idsCfe)];
      const cfes = (await deps.cfes.byIds(db, ids)).filter((c) => c.companyId === input.idEmpresa);
      if (cfes.length !== ids.length) throw E.CFE_NO_ENCONTRADO_SOBRE();
      cfes.sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
      let email: string | null = null;
      let customerId: number | null = null;
      if (input.enviarPorCorreo) {
        const receivers = await deps.electronicReceivers(db, input.idEmpresa);
        const receiver = receivers.find((r) => r.id === cfes[0].customerId) ?? receivers.find((r) => r.documento === cfes[0].receptorDocumento);
        if (!receiver) throw await notElectronic(input.idEmpresa, cfes[0]);
        if (!receiver.email) throw E.SOBRE_RECEPTOR_SIN_CORREO(`El cliente ${receiver.razonSocial} (RUT ${receiver.documento}) es emisor electrónico pero no tiene dirección de correo para el intercambio: cargue emailIntercambio con POST /api/v1/cliente/editar (o email), o espere a que el registro de emisores de DGI traiga su MAIL.`);
        email = receiver.email;
        customerId = receiver.id;
      }
      const row = await db.transaction((tx) => buildAndStore(tx, input.idEmpresa, cfes, { customerId, email, send: !!input.enviarPorCorreo }));
      return { id: row.id, xml: row.xml, fileName: row.fileName, estado: row.estado };
    },

    /** The dispatcher: one envelope per receiver with its unsent CFEs (up to 250 per envelope). Returns the envelope ids. */
    async dispatch(): Promise<number[]> {
      const receivers = (await deps.electronicReceivers(db)).filter((r) => r.email && r.tipoDocumento === RUT);
      if (receivers.length === 0) return [];
      const byId = new Map(receivers.map((r) => [r.id, r]));
      return db.transaction(async (tx) => {
        // Only what DGI already has, never a DGI-rejected (annulled) CFE: BRIEF 1 and 10.
        const cfes = await deps.cfes.claimUnsent(tx, [...byId.keys()], RECEIVER_DELIVERABLE_STATES, deps.settings.maxAgeDays, 1000);
        const groups = new Map<string, ExchangeCfe[]>();
        for (const c of cfes) {
          if (c.receptorTipoDoc !== RUT || !c.receptorDocumento) continue;
          const key = `${c.companyId}|${c.customerId}|${c.receptorDocumento}`;
          groups.set(key, [...(groups.get(key) ?? []), c]);
        }
        const ids: number[] = [];
        for (const group of groups.values()) {
          const receiver = byId.get(group[0].customerId!)!;
          for (let i = 0; i < group.length; i += ENVELOPE_MAX_CFE) {
            const row = await buildAndStore(tx, group[0].companyId, group.slice(i, i + ENVELOPE_MAX_CFE), { customerId: receiver.id, email: receiver.email, send: true });
            ids.push(row.id);
          }
        }
        return ids;
      });
    },

    /** The e-mail job: the envelope as attachment (BRIEF 8: e-mail must always be supported). */
    async sendMail(id: number, attempt: number, maxAttempts: number): Promise<void> {
      const env = await repo.findEnvelope(db, id);
      if (!env || env.estado !== 'pendiente' || !env.email) return;
      // Answers come back to the company's inbound mailbox when it has one (received-cfe polls it).
      const replyTo = (await deps.replyToOf?.(env.companyId)) ?? undefined;
      await mailFileRecordingAttempt(deps.mailer, await deps.companyTransport(env.companyId), { email: env.email, fileName: env.fileName, xml: env.xml }, {
        replyTo,
        subject: `CFE ${env.fileName}`,
        text: `Se adjunta el sobre ${env.fileName} con ${env.cfeIds.length} comprobante(s) fiscal(es) electrónico(s) (EnvioCFE_entreEmpresas). Responda con ACKSobre y ACKCFE firmados.`,
      }, { attempt, maxAttempts }, (changes) => repo.updateEnvelope(db, id, changes),
      (outcome) => deps.noteReceptor(db, env.cfeIds, { mensaje: describeMailOutcome(`Sobre ${id}`, env.email!, outcome, attempt), referencia: `sobreReceptor:${id}` }));
    },
  };
}

export type ReceiverExchangeService = ReturnType<typeof createReceiverExchangeService>;
