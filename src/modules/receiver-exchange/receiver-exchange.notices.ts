/**
 * Annulment notices to electronic receivers (BRIEF 8, "Issuer's duty when DGI rejects a CFE already
 * sent to a receiver"): CFEs_Anulados_x_RechazoDGI, signed, e-mailed as Rech_<RUCEmisor>_<IDComunicacion>.xml.
 * Not sent to DGI.
 *
 * Which CFEs: DGI-rejected (annulled, BRIEF 10) ones that were in an envelope we e-mailed
 * (NOTICE_ENVELOPE_STATES), each exactly once. The dispatcher (same cron as the envelopes) lists
 * candidates without locks (issued-cfe port + own envelopes), then in one transaction claims them
 * with SKIP LOCKED, drops those another dispatcher noticed meanwhile, and per (company, receiver RUT)
 * stores notices of at most 250 CFEs with their join rows (primary key on the CFE, ON CONFLICT as the
 * last guard) and enqueues the e-mail job. The job records attempts on the row like the envelopes'.
 */
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import { enqueueJob } from '../../platform/jobs/queue.js';
import { validateXml } from '../../platform/xml/xsd.js';
import {
  buildCfesAnulados, CFES_ANULADOS_MAX, cfesAnuladosFileName, createSigningContext, formatTmstFirma, signCfesAnulados,
} from '../emission/index.js';
import type { AnnulledCfe } from '../issued-cfe/index.js';
import { NOTICE_ENVELOPE_STATES } from './receiver-exchange.delivery.js';
import { receiverErrors as E } from './receiver-exchange.errors.js';
import { sendNoticeMailJob } from './receiver-exchange.jobs.js';
import { describeMailOutcome, mailFileRecordingAttempt } from './receiver-exchange.mail.js';
import * as repo from './receiver-exchange.repository.js';
import type { ReceiverExchangeDeps } from './receiver-exchange.service.js';

export interface NoticeDispatch {
  /** Notices stored and queued for e-mail (their ids = IDComunicacion). */
  ids: number[];
  /** Companies skipped for now (no active certificate): retried on the next run. */
  skippedCompanies: number[];
}

export function createReceiverNotices(deps: ReceiverExchangeDeps) {
  const { db } = deps;

  /** Signs with the company's certificate, carried in KeyInfo too: the notice has no Caratula certificate for the receiver to verify with. */
  async function signer(companyId: number) {
    const ctx = await deps.signingContext(companyId);
    if (!ctx) return undefined;
    return createSigningContext({ privateKey: ctx.privateKey, certificate: ctx.certificate.der, hash: ctx.hash, includeCertificate: true });
  }

  return {
    /** One notice per (company, receiver RUT) and up to 250 CFEs, for every e-mailed CFE DGI rejected since. */
    async dispatchNotices(): Promise<NoticeDispatch> {
      const states = NOTICE_ENVELOPE_STATES;
      const companies = await repo.companiesWithMailedEnvelopes(db, states, deps.settings.maxAgeDays);
      const rejected = await deps.cfes.rejectedSent(db, companies, deps.settings.maxAgeDays);
      const mailed = await repo.mailedNotNoticed(db, companies, rejected, states);
      if (mailed.length === 0) return { ids: [], skippedCompanies: [] };
      return db.transaction(async (tx) => {
        const claimed = await deps.cfes.claimRejected(tx, mailed.map((m) => m.cfeId));
        // Read after the locks: a notice another dispatcher committed meanwhile is visible now.
        const noticed = await repo.noticedAmong(tx, claimed.map((c) => c.id));
        const to = new Map(mailed.map((m) => [m.cfeId, m]));
        const groups = new Map<string, { companyId: number; rutReceptor: string; email: string; cfes: AnnulledCfe[] }>();
        for (const c of claimed) {
          const m = to.get(c.id);
          if (!m || noticed.has(c.id) || m.companyId !== c.companyId) continue;
          const key = `${c.companyId}|${m.rutReceptor}`;
          const g = groups.get(key) ?? { companyId: c.companyId, rutReceptor: m.rutReceptor, email: m.email, cfes: [] };
          g.cfes.push(c);
          groups.set(key, g);
        }
        const ids: number[] = [];
        const skippedCompanies = new Set<number>();
        for (const g of groups.values()) {
          const rucEmisor = await deps.rutOf(g.companyId);
          const ctx = await signer(g.companyId);
          if (!rucEmisor || !ctx) {
            skippedCompanies.add(g.companyId);
            continue;
          }
          for (let i = 0; i < g.cfes.length; i += CFES_ANULADOS_MAX) {
            const cfes = g.cfes.slice(i, i + CFES_ANULADOS_MAX);
            const id = await repo.nextSerialId(tx, 'receiver_notices');
            const unsigned = buildCfesAnulados({
              rucEmisor, rucReceptor: g.rutReceptor, idComunicacion: id, tmst: formatTmstFirma(new Date()),
              cfes: cfes.map((c) => ({ tipoCfe: c.tipoCfe, serie: c.serie, nro: c.numero, fechaCfe: c.fechaEmision })),
            });
            const { xml } = signCfesAnulados(unsigned, ctx);
            const xsd = validateXml('CFEs_Anulados', xml);
            if (!xsd.ok) throw E.AVISO_ANULACION_INVALIDO(`El aviso no cumple CFEs_Anulados_x_RechazoDGI.xsd: ${xsd.errors.slice(0, 3).join('; ')}`, { errores: xsd.errors });
            const cfeIds = cfes.map((c) => c.id);
            const inserted = await repo.insertNotice(tx, {
              id, companyId: g.companyId, rutReceptor: g.rutReceptor, email: g.email, cfeIds, xml,
              fileName: cfesAnuladosFileName(rucEmisor, id), estado: 'pendiente',
            });
            // Cannot happen while the rows are locked and re-read above; if it does, roll everything back.
            if (inserted !== cfeIds.length) throw new Error(`receiver notice ${id}: some CFEs were already noticed`);
            await enqueueJob(tx, sendNoticeMailJob, { id }, { jobKey: `receiver-notice-${id}` });
            ids.push(id);
          }
        }
        return { ids, skippedCompanies: [...skippedCompanies] };
      });
    },

    /** The e-mail job: the notice as attachment to the address the CFEs went to. */
    async sendNoticeMail(id: number, attempt: number, maxAttempts: number): Promise<void> {
      const notice = await repo.findNotice(db, id);
      if (!notice || notice.estado !== 'pendiente') return;
      await mailFileRecordingAttempt(deps.mailer, await deps.companyTransport(notice.companyId), notice, {
        subject: `CFE anulados por rechazo de DGI ${notice.fileName}`,
        text: `Se adjunta el aviso ${notice.fileName} (CFEs_Anulados_x_RechazoDGI): ${notice.cfeIds.length} comprobante(s) que le enviamos fueron rechazados por DGI y quedan anulados (motivo RD).`,
      }, { attempt, maxAttempts }, (changes) => repo.updateNotice(db, id, changes),
      (outcome) => deps.noteReceptor(db, notice.cfeIds, { mensaje: describeMailOutcome(`Aviso de anulación ${id}`, notice.email, outcome, attempt), referencia: `avisoAnulacion:${id}` }));
    },

    /** GET /api/v1/cfeemitido/avisoAnulacionReceptor/{id}: the stored notice (role lectura of its company). */
    async getNotice(actor: Actor, id: number) {
      const notice = await repo.findNotice(db, id);
      if (!notice) throw E.AVISO_ANULACION_NO_ENCONTRADO();
      assertCompanyRole(actor, notice.companyId, 'lectura', () => E.AVISO_ANULACION_NO_ENCONTRADO());
      return notice;
    },
  };
}
