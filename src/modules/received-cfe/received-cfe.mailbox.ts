/**
 * A company's inbound mailbox (issue 30 points 1-3): settings (password sealed under MASTER_KEY,
 * never returned), the check a person runs (verificar-email-entrante), and the poller.
 *
 * Polling reads by UID after the stored cursor under the folder's UIDVALIDITY. Each mail is handled
 * in one transaction that records it in inbound_mails (primary key company + UIDVALIDITY + UID),
 * runs the intake of its envelopes and advances the cursor: a crash before the commit reads the mail
 * again, once; after it, never. The mail is flagged \Seen only after that commit (and, after a crash
 * between the two, at the next poll). Mails that are not
 * envelopes are sorted (a receiver's ACK to one of our own issued CFEs goes to receiver-exchange;
 * an issuer's CFEs_Anulados_x_RechazoDGI voids our received CFEs; the rest is recorded and ignored).
 */
import type { Attachment } from 'mailparser';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { SESSION_LOCKS, withSessionLock } from '../../platform/db/session-lock.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import { receivedErrors as E } from './received-cfe.errors.js';
import { fetchAfter, ImapFailure, markSeen, withMailbox, type MailboxSettings } from './received-cfe.imap.js';
import * as repo from './received-cfe.mailbox.repository.js';
import type { InboundMailboxRow } from './received-cfe.tables.js';
import { decodeXmlBytes } from './received-cfe.envelope.js';
import type { IntakeSource } from './received-cfe.intake.js';

export interface SecretBox {
  seal(plain: string): string;
  unseal(sealed: string): string;
}

export interface MailboxPorts {
  intakeIn(tx: DbOrTx, companyId: number, bytes: Buffer, source: IntakeSource): Promise<{ sobre: { id: number } | null }>;
  annulIn(tx: DbOrTx, companyId: number, xml: string): Promise<string>;
  /** A receiver's ACKSobre / ACKCFE for one of our issued CFEs (receiver-exchange): applied or refused, and what happened. */
  applyReceiverAnswer(companyId: number, xml: string): Promise<{ aplicada: boolean; detalle: string }>;
}

export interface MailboxInput {
  host: string | null;
  puerto?: number;
  tls?: boolean;
  usuario?: string;
  clave?: string;
  carpeta?: string;
  direccion?: string | null;
  activo?: boolean;
}

// The root element's name, past the declaration, comments and a DOCTYPE (the intake refuses the latter with S01).
const ROOT = /^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!DOCTYPE[^[>]*(?:\[[\s\S]*?\])?\s*>\s*)?<(?:[\w.-]+:)?([\w.-]+)[\s>/]/;

function view(companyId: number, row: InboundMailboxRow | undefined) {
  return {
    idEmpresa: companyId,
    configurado: !!row,
    host: row?.host ?? null,
    puerto: row?.port ?? null,
    tls: row?.tls ?? null,
    usuario: row?.usuario ?? null,
    claveConfigurada: !!row?.claveSellada,
    carpeta: row?.carpeta ?? null,
    direccion: row?.direccion ?? null,
    activo: row?.activo ?? null,
    ultimoSondeoOk: row?.ultimoSondeoOk?.toISOString() ?? null,
    ultimoError: row?.ultimoError ?? null,
    ultimoErrorEn: row?.ultimoErrorEn?.toISOString() ?? null,
    ultimoUid: row?.ultimoUid ?? null,
  };
}

export function createMailboxService(deps: { db: Db; secrets: SecretBox; ports: MailboxPorts; maxAttachmentBytes: number; batch: number }) {
  const { db, secrets, ports } = deps;
  const settingsOf = (row: InboundMailboxRow): MailboxSettings => ({ host: row.host, port: row.port, tls: row.tls, usuario: row.usuario, clave: secrets.unseal(row.claveSellada), carpeta: row.carpeta });

  /** Sorts one mail's XML attachments; runs inside the mail's transaction. */
  async function handleMail(tx: DbOrTx, companyId: number, source: Buffer, uid: string) {
    // Loaded on first use (see ARCHITECTURE, memory).
    const { simpleParser } = await import('mailparser');
    const mail = await simpleParser(source);
    const from = mail.replyTo?.value[0]?.address ?? mail.from?.value[0]?.address ?? null;
    const meta = { messageId: mail.messageId ?? null, remitente: from, asunto: mail.subject?.slice(0, 500) ?? null };
    const xmls = mail.attachments.filter((a: Attachment) => /xml/i.test(a.contentType) || /\.xml$/i.test(a.filename ?? ''));
    if (!mail.attachments.length) return { ...meta, clase: 'sin_adjunto', detalle: 'El correo no trae adjuntos.', envelopeIds: [] as number[] };
    if (!xmls.length) return { ...meta, clase: 'otro', detalle: `Adjuntos no XML: ${mail.attachments.map((a) => a.filename ?? a.contentType).join(', ')}`.slice(0, 1000), envelopeIds: [] as number[] };
    const notes: string[] = [];
    const envelopeIds: number[] = [];
    let clase = 'otro';
    for (const a of xmls) {
      const name = a.filename ?? 'adjunto.xml';
      if (a.size > deps.maxAttachmentBytes) {
        notes.push(`${name}: ${a.size} bytes, más que el máximo de ${deps.maxAttachmentBytes}; no se procesa.`);
        clase = clase === 'otro' ? 'demasiado_grande' : clase;
        continue;
      }
      const root = ROOT.exec(decodeXmlBytes(a.content).slice(0, 2000))?.[1];
      if (root === 'EnvioCFE_entreEmpresas' || root === 'EnvioCFE') {
        const r = await ports.intakeIn(tx, companyId, a.content, { canal: 'correo', emailRespuesta: from, fileName: name, mailUid: uid });
        if (r.sobre) envelopeIds.push(r.sobre.id);
        clase = 'sobre';
      } else if (root === 'ACKSobre' || root === 'ACKCFE') {
        const answer = await ports.applyReceiverAnswer(companyId, decodeXmlBytes(a.content));
        notes.push(`${name}: ${answer.detalle}`);
        // One refused answer marks the mail: a forged or misaddressed answer must stand out in the log.
        if (clase !== 'sobre' && clase !== 'respuesta_rechazada') clase = answer.aplicada ? 'respuesta' : 'respuesta_rechazada';
      } else if (root === 'CFEs_Anulados_x_RechazoDGI') {
        notes.push(`${name}: ${await ports.annulIn(tx, companyId, decodeXmlBytes(a.content))}`);
        if (clase === 'otro') clase = 'anulacion';
      } else notes.push(`${name}: raíz ${root ?? 'ilegible'}, no es un documento del intercambio.`);
    }
    return { ...meta, clase, detalle: notes.join(' ').slice(0, 2000) || null, envelopeIds };
  }

  return {
    async get(actor: Actor, companyId: number) {
      assertCompanyRole(actor, companyId, 'administrador');
      return view(companyId, await repo.find(db, companyId));
    },

    async put(actor: Actor, companyId: number, input: MailboxInput) {
      assertCompanyRole(actor, companyId, 'administrador');
      if (input.host === null) {
        await repo.remove(db, companyId);
        return view(companyId, undefined);
      }
      const current = await repo.find(db, companyId);
      const clave = input.clave !== undefined ? secrets.seal(input.clave) : current?.claveSellada;
      if (!clave) throw E.CORREO_ENTRANTE_CLAVE_REQUERIDA();
      const row = await repo.upsert(db, {
        companyId, host: input.host, port: input.puerto ?? (input.tls === false ? 143 : 993), tls: input.tls ?? (input.puerto === undefined || input.puerto === 993),
        usuario: input.usuario!, claveSellada: clave, carpeta: input.carpeta ?? 'INBOX', direccion: input.direccion ?? null, activo: input.activo ?? true,
        // Another server or folder: its UIDs mean nothing here, start from its current end.
        ...(current && (current.host !== input.host || current.carpeta !== (input.carpeta ?? 'INBOX') || current.usuario !== input.usuario) ? { uidValidity: null, ultimoUid: 0 } : {}),
      });
      return view(companyId, row);
    },

    /** POST /api/v1/empresa/verificar-email-entrante: logs in, opens the folder, says what it found. */
    async verify(actor: Actor, companyId: number) {
      assertCompanyRole(actor, companyId, 'administrador');
      const row = await repo.find(db, companyId);
      if (!row) throw E.CORREO_ENTRANTE_NO_CONFIGURADO();
      try {
        const box = await withMailbox(settingsOf(row), async (_c, b) => b);
        return { ok: true, carpeta: row.carpeta, mensajes: box.exists, uidValidity: box.uidValidity, ultimoUidProcesado: row.ultimoUid, ultimoSondeoOk: row.ultimoSondeoOk?.toISOString() ?? null };
      } catch (err) {
        if (err instanceof ImapFailure) throw E.CORREO_ENTRANTE_FALLO(err.message, { tipoFallo: err.kind });
        throw err;
      }
    },

    /**
     * One pass over one company's mailbox; returns how many mails it handled. Errors are recorded on
     * the row. One process of the fleet reads a mailbox at a time (issue 45): a pass while another
     * holds the company's mailbox lock reads nothing and answers 0.
     */
    async poll(companyId: number): Promise<number> {
      const pass = await withSessionLock(db.$client, SESSION_LOCKS.inboundMailbox, companyId, () => pollLocked(companyId));
      return pass.locked ? pass.value : 0;
    },

    activeCompanies: () => repo.activeCompanies(db),

    /** GET /api/v1/empresa/correoEntrante/correos: every mail read, with its outcome (role lectura). */
    async mailLog(actor: Actor, q: { idEmpresa: number; clase?: string }, paging: { start: number; length: number }) {
      assertCompanyRole(actor, q.idEmpresa, 'lectura');
      const { rows, total } = await repo.listMails(db, q.idEmpresa, q.clase, paging);
      return {
        data: rows.map((m) => ({
          uidValidity: m.uidValidity, uid: m.uid, messageId: m.messageId, remitente: m.remitente, asunto: m.asunto,
          clase: m.clase, detalle: m.detalle, idsSobre: m.envelopeIds, fechaLectura: m.leidoEn.toISOString(),
        })),
        total, start: paging.start, length: paging.length,
      };
    },

    /** For the IDLE watcher (received-cfe.idle.ts): an active mailbox's settings, and a key that changes when they do. */
    async watchTarget(companyId: number): Promise<{ settings: MailboxSettings; key: string } | undefined> {
      const row = await repo.find(db, companyId);
      if (!row || !row.activo) return undefined;
      return { settings: settingsOf(row), key: `${row.host}|${row.port}|${row.tls}|${row.usuario}|${row.carpeta}|${row.actualizadoEn.getTime()}` };
    },
  };

  async function pollLocked(companyId: number): Promise<number> {
    const row = await repo.find(db, companyId);
    if (!row || !row.activo) return 0;
    try {
      const handled = await withMailbox(settingsOf(row), async (client, box) => {
        let after = row.uidValidity === box.uidValidity ? row.ultimoUid : 0;
        if (row.uidValidity !== box.uidValidity) await repo.setCursor(db, companyId, box.uidValidity, 0);
        // A process killed between a mail's commit and its \Seen left the cursor's mail unflagged (and
        // never fetched again): only that one can be, since each mail is flagged before the next.
        if (after > 0) await markSeen(client, after);
        let count = 0;
        for (const mail of await fetchAfter(client, after, deps.batch)) {
          const done = await db.transaction(async (tx) => {
            if (!(await repo.claimMail(tx, companyId, box.uidValidity, mail.uid))) return false;
            let outcome;
            try {
              outcome = await tx.transaction((inner) => handleMail(inner, companyId, mail.source, `${box.uidValidity}/${mail.uid}`));
            } catch (err) {
              // Recorded and skipped, never retried forever; the mail stays in the mailbox.
              outcome = { messageId: null, remitente: null, asunto: null, clase: 'error', detalle: `Falló el procesamiento: ${(err as Error).message}`.slice(0, 2000), envelopeIds: [] };
            }
            await repo.recordMail(tx, companyId, box.uidValidity, mail.uid, outcome);
            await repo.setCursor(tx, companyId, box.uidValidity, mail.uid);
            return true;
          });
          after = mail.uid;
          if (done) await markSeen(client, mail.uid);
          count += 1;
        }
        return count;
      });
      await repo.markPolled(db, companyId, null);
      return handled;
    } catch (err) {
      await repo.markPolled(db, companyId, err instanceof ImapFailure ? err.message : (err as Error).message);
      throw err;
    }
  }
}

export type MailboxService = ReturnType<typeof createMailboxService>;
