/**
 * E-mail of an issued CFE's PDF and signed XML (issue 7 point 5). The request writes a send record
 * and enqueues its job in one transaction; the job renders, sends through the company's SMTP settings
 * (companies outbound-mail) or the platform mailer (SMTP_URL, else the DATA_DIR/outbox file
 * transport) and records every attempt. Transient SMTP
 * failures (4xx, connection) are retried by graphile-worker with exponential backoff; permanent
 * ones (5xx) and the last transient one are recorded as `fallido`.
 */
import { z } from 'zod';
import type { Db } from '../../platform/db/client.js';
import type { Actor } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { defineJob, enqueueJob, handleJob, type JobContext } from '../../platform/jobs/queue.js';
import type { Mailer } from '../../platform/mailer.js';
import { getCfeType } from '../emission/index.js';
import type { PdfFormato } from '../documents/pdf/index.js';
import { issuedCfeFileBase } from '../issued-cfe/issued-cfe.read.js';
import { cfeDocumentsErrors as E } from './cfe-documents.errors.js';
import type { CfeDocumentsPorts } from './cfe-documents.ports.js';
import { renderIssuedCfe } from './cfe-documents.render.js';
import * as repo from './cfe-documents.repository.js';
import type { CfeEmailSendRow } from './cfe-documents.tables.js';
import { classifyMailFailure } from './mail-failure.js';

export const sendCfeEmailJob = defineJob({
  name: 'cfe-documents.send-email',
  payload: z.object({ sendId: z.number().int() }),
  // exp(1..7) s between attempts (graphile-worker): about 30 minutes in all.
  maxAttempts: 8,
});

export function emailSendView(r: CfeEmailSendRow) {
  return {
    id: r.id,
    idCfe: r.issuedCfeId,
    idEmpresa: r.companyId,
    destinatarios: r.destinatarios,
    asunto: r.asunto,
    formato: r.formato,
    estado: r.estado as 'pendiente' | 'reintentando' | 'enviado' | 'fallido',
    intentos: r.intentos,
    ultimoError: r.ultimoError,
    codigoSmtp: r.codigoSmtp,
    messageId: r.messageId,
    transporte: r.transporte,
    idUsuario: r.userId,
    fechaSolicitud: r.createdAt.toISOString(),
    fechaEnvio: r.enviadoEn?.toISOString() ?? null,
  };
}

export interface SendRequest {
  idCfe: number;
  destinatarios?: string[];
  asunto?: string;
  mensaje?: string;
  formato: PdfFormato;
}

export function createCfeMailService(deps: { db: Db; ports: CfeDocumentsPorts; mailer: Mailer }) {
  const { db, ports, mailer } = deps;

  return {
    /** POST /api/v1/cfeemitido/enviarPdfPorCorreo (role emisor): records the send and queues it. */
    async request(actor: Actor, input: SendRequest) {
      const row = await ports.issued.visible(actor, input.idCfe, 'emisor');
      let to = input.destinatarios?.length ? [...new Set(input.destinatarios.map((d) => d.trim().toLowerCase()))] : undefined;
      if (!to && row.customerId) {
        const email = await ports.customerEmail(row.companyId, row.customerId);
        if (email) to = [email];
      }
      if (!to) throw E.SIN_DESTINATARIO();
      const profile = await ports.printingProfile(row.companyId, row.branchId);
      const asunto = input.asunto?.trim() || `${getCfeType(row.tipoCfe).name} ${row.serie}-${row.numero} de ${profile?.razonSocial ?? 'su proveedor'}`;
      const send = await db.transaction(async (tx) => {
        const s = await repo.insertEmailSend(tx, {
          issuedCfeId: row.id, companyId: row.companyId, destinatarios: to, asunto, mensaje: input.mensaje, formato: input.formato, userId: actor.userId,
        });
        await enqueueJob(tx, sendCfeEmailJob, { sendId: s.id });
        return s;
      });
      return emailSendView(send);
    },

    /** GET /api/v1/cfeemitido/emailenvios?idCfe (role lectura): newest first, paged. */
    async history(actor: Actor, idCfe: number, paging: Paging) {
      await ports.issued.visible(actor, idCfe, 'lectura');
      const { rows, total } = await repo.listEmailSends(db, idCfe, paging);
      return { data: rows.map(emailSendView), total, start: paging.start, length: paging.length };
    },

    /**
     * The job: one attempt. Throws (→ retry) only on a transient failure before the last attempt.
     * The company's copy (configuracion.emailCopiaCfe) is its own message, sent after the
     * recipients' one is accepted and recorded once (`copiaEnviadaEn`): a retry resends only the
     * part not yet accepted, so neither the recipients nor the copy get the CFE twice (issue 28).
     */
    async deliver(sendId: number, ctx: Pick<JobContext, 'attempt' | 'maxAttempts' | 'logger'>) {
      const send = await repo.findEmailSend(db, sendId);
      if (!send || send.estado === 'fallido') return;
      const row = await ports.issued.byId(send.issuedCfeId);
      if (!row) return;
      const profile = await ports.printingProfile(row.companyId, row.branchId);
      const copy = profile?.emailCopiaCfe ?? undefined;
      const sent = send.estado === 'enviado';
      if (sent && (!copy || send.copiaEnviadaEn)) return;
      const pdf = await renderIssuedCfe(row, profile, send.formato as PdfFormato);
      const base = issuedCfeFileBase(row);
      const tipo = getCfeType(row.tipoCfe).name;
      const text =
        (send.mensaje ? `${send.mensaje}\n\n` : '') +
        `Adjuntamos el comprobante fiscal electrónico ${tipo} ${row.serie}-${row.numero} emitido el ${row.fechaEmision.split('-').reverse().join('/')} ` +
        `por ${profile?.razonSocial ?? 'el emisor'}: su representación impresa (PDF) y el XML firmado.\n` +
        `Código de seguridad: ${row.codigoSeguridad}. Puede verificarlo en ${profile?.urlVerificacion ?? 'www.dgi.gub.uy'}.\n` +
        // The buyer's public page (issue 47): this receipt's PDF and XML, by a link that carries its printed data.
        (profile?.enlaceConsulta
          ? `También puede obtenerlo en ${profile.enlaceConsulta}/comprobante?${new URLSearchParams({ tipo: String(row.tipoCfe), serie: row.serie, numero: String(row.numero), fecha: row.fechaEmision, codigo: row.codigoSeguridad })}\n`
          : '');
      const last = ctx.attempt >= ctx.maxAttempts;
      const fail = async (err: unknown) => {
        const failure = classifyMailFailure(err);
        const estado = failure.transient && !last ? 'reintentando' : 'fallido';
        await repo.recordAttempt(db, sendId, { estado, error: failure.mensaje, codigoSmtp: failure.codigoSmtp });
        ctx.logger.warn({ sendId, codigoSmtp: failure.codigoSmtp, transient: failure.transient, attempt: ctx.attempt }, 'CFE e-mail failed');
        if (estado === 'reintentando') throw err instanceof Error ? err : new Error(failure.mensaje);
      };
      // Issue 7 point 5: the company's SMTP server when it has one (From = its remitente), else the service's.
      let transport: Awaited<ReturnType<typeof ports.companyTransport>> | undefined;
      const message = (to: string[]) => mailer.send({
        to,
        // Replies go to the company.
        replyTo: profile?.email,
        subject: send.asunto,
        text,
        attachments: [
          { filename: `${base}.pdf`, content: pdf, contentType: 'application/pdf' },
          { filename: `${base}.xml`, content: Buffer.from(row.xml, 'utf8'), contentType: 'application/xml' },
        ],
      }, transport);

      if (!sent) {
        let info;
        try {
          transport = await ports.companyTransport(row.companyId);
          info = await message(send.destinatarios);
        } catch (err) {
          return fail(err);
        }
        const refused = new Set((info.rejected ?? []).map((r) => r.toLowerCase()));
        const refusedTo = send.destinatarios.filter((d) => refused.has(d.toLowerCase()));
        if (refusedTo.length === send.destinatarios.length) return fail(info.rejectedErrors?.[0] ?? new Error(`Destinatarios rechazados: ${refusedTo.join(', ')}`));
        await repo.recordAttempt(db, sendId, {
          estado: 'enviado',
          messageId: info.messageId,
          transporte: transport ? 'empresa' : info.outboxFile ? 'outbox' : 'servicio',
          error: refusedTo.length ? `Destinatarios rechazados: ${refusedTo.join(', ')}` : undefined,
        });
      } else {
        transport = await ports.companyTransport(row.companyId);
      }

      if (!copy) return;
      try {
        const info = await message([copy]);
        if ((info.rejected ?? []).length) throw info.rejectedErrors?.[0] ?? new Error(`Copia rechazada: ${copy}`);
        await repo.recordCopySent(db, sendId);
      } catch (err) {
        const failure = classifyMailFailure(err);
        ctx.logger.warn({ sendId, codigoSmtp: failure.codigoSmtp, transient: failure.transient, attempt: ctx.attempt }, 'CFE e-mail copy failed');
        // The recipients' message stays sent: a retry sends the copy alone.
        if (failure.transient && !last) throw err instanceof Error ? err : new Error(failure.mensaje);
        await repo.recordCopyFailure(db, sendId, `Copia a ${copy}: ${failure.mensaje}`, failure.codigoSmtp);
      }
    },
  };
}

export type CfeMailService = ReturnType<typeof createCfeMailService>;

export function cfeDocumentsJobHandlers(mail: CfeMailService) {
  return [handleJob(sendCfeEmailJob, ({ sendId }, ctx) => mail.deliver(sendId, ctx))];
}
