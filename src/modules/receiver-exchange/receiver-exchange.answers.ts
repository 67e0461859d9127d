/**
 * A receiver's answer to the company's own issued CFEs (BRIEF 8), uploaded (POST
 * /api/v1/cfeemitido/respuestaReceptor) or read from the company's mailbox: ACKSobre / ACKCFE per
 * ACKCFE_Partes.xsd, verified (receiver-exchange.acks.ts), matched by RUC + type + serie + number
 * and applied with cfe-states.ts; state, history rows (lado 'receptor') and outbox events
 * (Cfe.RechazadoReceptor / Cfe.ObservadoReceptor) in one transaction.
 *
 * Only the receiver's word counts (issue 42 point 1): Caratula/RUCReceptor must be the receiver of
 * every CFE the ACKCFE names (receptor tipo documento RUT and its number), and for an ACKSobre the
 * envelope's RutReceptor. The signature check already ties the signer to RUCReceptor, so another
 * company signing with its own certificate is caught here. A refused answer changes nothing and
 * raises no event, but it is stored (estado 'rechazada', with the code and words) so the issuer sees
 * it in its exchange view; the upload gets the 422/409, the mailbox poller logs the mail as
 * 'respuesta_rechazada'.
 */
import { AppError } from '../../lib/errors.js';
import type { DbOrTx } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import { applyReceptorAckCfe, CfeStateError, type ReceptorState } from '../emission/index.js';
import { readReceiverAck } from './receiver-exchange.acks.js';
import { receiverErrors as E } from './receiver-exchange.errors.js';
import * as repo from './receiver-exchange.repository.js';
import type { ReceiverExchangeDeps } from './receiver-exchange.service.js';

const RUT = 2;

type Motivo = { codigo: string; glosa: string; detalle: string | null };
export const ackLink = (id: number) => `/api/v1/cfeemitido/respuestaReceptor/${id}`;
export type AnswerChannel = 'importacion' | 'correo';
export interface AckResult {
  tipo: 'ACKSobre' | 'ACKCFE';
  idRespuesta: number;
  enlace: string;
  idSobre: number | null;
  estadoSobre: 'recibido' | 'rechazado' | null;
  motivos: Motivo[];
  cfes: Array<{ id: number; tipoCfe: number; serie: string; numero: number; estadoReceptor: ReceptorState; cambio: boolean; motivos: Motivo[] }>;
}

export function createReceiverAnswers(deps: ReceiverExchangeDeps) {
  const { db } = deps;

  return {
    /** POST /api/v1/cfeemitido/respuestaReceptor, and the mailbox poller (canal 'correo', SYSTEM actor). */
    async applyAck(actor: Actor, input: { idEmpresa: number; xml: string }, canal: AnswerChannel = 'importacion'): Promise<AckResult> {
      assertCompanyRole(actor, input.idEmpresa, 'emisor');
      const read = readReceiverAck(input.xml);
      const car = read.ack.caratula;
      // The company's CFEs the answer names, kept for a refused answer's record (the transaction rolls back).
      const named: number[] = [];
      const stored = { companyId: input.idEmpresa, tipo: read.tipo, rutReceptor: car.RUCReceptor, idRespuesta: car.IDRespuesta, xml: input.xml, userId: actor.userId, canal };
      try {
        const rut = await deps.rutOf(input.idEmpresa);
        if (car.RUCEmisor !== rut) throw E.RESPUESTA_RECEPTOR_OTRA_EMPRESA();
        return await db.transaction((tx) => (read.tipo === 'ACKSobre' ? applySobre(tx, read.ack) : applyCfe(tx, read.ack)));
      } catch (err) {
        // Refused after it verified: kept (no state, no event) for the issuer's view of the exchange.
        if (err instanceof AppError) {
          const envelopeId = read.tipo === 'ACKSobre' && /^\d{1,18}$/.test(car.IDEmisor) ? Number(car.IDEmisor) : null;
          const env = envelopeId ? await repo.findEnvelope(db, envelopeId) : undefined;
          const id = await repo.insertAck(db, {
            ...stored, estado: 'rechazada', codigo: err.code, error: err.message,
            envelopeId: env?.companyId === input.idEmpresa ? env.id : null, cfeIds: env?.companyId === input.idEmpresa ? env.cfeIds : [...new Set(named)],
          });
          // The refusal names the stored answer too (issue 42 point 3: every answer can be obtained).
          throw new AppError(err.code, err.message, { ...err.details, idRespuesta: id, enlace: ackLink(id) });
        }
        throw err;
      }

      async function applySobre(tx: DbOrTx, ack: Extract<typeof read, { tipo: 'ACKSobre' }>['ack']): Promise<AckResult> {
        const env = /^\d{1,18}$/.test(car.IDEmisor) ? await repo.findEnvelope(tx, Number(car.IDEmisor)) : undefined;
        if (!env || env.companyId !== input.idEmpresa) throw E.RESPUESTA_RECEPTOR_SIN_SOBRE();
        if (env.rutReceptor !== car.RUCReceptor) {
          throw E.RESPUESTA_RECEPTOR_NO_ES_RECEPTOR(`El sobre ${env.id} se envió al RUT ${env.rutReceptor}; la respuesta viene del RUT ${car.RUCReceptor}, que no es su receptor: no se aplica.`, { rutReceptorSobre: env.rutReceptor, rutRespuesta: car.RUCReceptor });
        }
        const ackId = await repo.insertAck(tx, { ...stored, envelopeId: env.id, cfeIds: env.cfeIds });
        const motivos = ack.motivos.map((m) => ({ codigo: m.Motivo, glosa: m.Glosa, detalle: m.Detalle }));
        const estado = ack.Estado === 'AS' ? ('recibido' as const) : ('rechazado' as const);
        await repo.updateEnvelope(tx, env.id, { estado, ackMotivos: motivos });
        return { tipo: 'ACKSobre', idRespuesta: ackId, enlace: ackLink(ackId), idSobre: env.id, estadoSobre: estado, motivos, cfes: [] };
      }

      async function applyCfe(tx: DbOrTx, ack: Extract<typeof read, { tipo: 'ACKCFE' }>['ack']): Promise<AckResult> {
        const found = [];
        for (const d of ack.detalles) {
          const cfe = d.TipoCFE && d.Serie && d.NroCFE ? await deps.cfes.lockOne(tx, input.idEmpresa, Number(d.TipoCFE), d.Serie, Number(d.NroCFE)) : undefined;
          if (!cfe) throw E.RESPUESTA_RECEPTOR_SIN_CFE(`El comprobante ${d.TipoCFE ?? '?'}-${d.Serie ?? '?'}-${d.NroCFE ?? '?'} (Nro_ordinal ${d.Nro_ordinal}) no fue emitido por la empresa.`);
          named.push(cfe.id);
          if (cfe.receptorTipoDoc !== RUT || cfe.receptorDocumento !== car.RUCReceptor) {
            const to = cfe.receptorTipoDoc === RUT && cfe.receptorDocumento ? `al RUT ${cfe.receptorDocumento}` : 'a un receptor sin RUT';
            throw E.RESPUESTA_RECEPTOR_NO_ES_RECEPTOR(`El comprobante ${cfe.tipoCfe}-${cfe.serie}-${cfe.numero} se emitió ${to}; la respuesta viene del RUT ${car.RUCReceptor}, que no es su receptor: no se aplica.`, { idCfe: cfe.id, rutReceptorCfe: cfe.receptorDocumento, rutRespuesta: car.RUCReceptor });
          }
          found.push({ d, cfe });
        }
        const ackId = await repo.insertAck(tx, { ...stored, cfeIds: found.map((f) => f.cfe.id) });
        const cfes = [];
        for (const { d, cfe } of found) {
          // A CFE delivered outside this service (estado_receptor null) is answered: it reached the receiver.
          const current = (cfe.estadoReceptor ?? 'receptor_pendiente') as ReceptorState;
          let decision;
          try {
            decision = applyReceptorAckCfe(current, d);
          } catch (err) {
            if (err instanceof CfeStateError) throw E.RESPUESTA_RECEPTOR_TRANSICION(`${cfe.tipoCfe}-${cfe.serie}-${cfe.numero}: el receptor ya respondió ${current}; la nueva respuesta (${d.Estado}) no se aplica.`);
            throw err;
          }
          const motivos = decision.motivos.map((m) => ({ codigo: m.Motivo, glosa: m.Glosa, detalle: m.Detalle }));
          if (decision.changed || cfe.estadoReceptor === null) {
            await deps.setReceptorState(tx, cfe, decision.state, { codigo: motivos[0]?.codigo, motivos, referencia: `respuestaReceptor:${ackId}`, mensaje: canal === 'correo' ? `Respuesta ${ackId} del receptor recibida por correo` : undefined, userId: actor.userId });
          }
          if (decision.changed && decision.event) {
            await deps.events.record(tx, {
              type: decision.event, companyId: input.idEmpresa,
              resource: { id: cfe.id, idEmpresa: input.idEmpresa, tipoCfe: cfe.tipoCfe, serie: cfe.serie, numero: cfe.numero, estadoReceptor: decision.state, rutReceptor: car.RUCReceptor, idRespuesta: car.IDRespuesta, motivos },
            });
          }
          cfes.push({ id: cfe.id, tipoCfe: cfe.tipoCfe, serie: cfe.serie, numero: cfe.numero, estadoReceptor: decision.state, cambio: decision.changed, motivos });
        }
        return { tipo: 'ACKCFE', idRespuesta: ackId, enlace: ackLink(ackId), idSobre: null, estadoSobre: null, motivos: [], cfes };
      }
    },
  };
}
