/**
 * The issuer's side of the exchange, readable through the API (issue 42 point 4; GUIDE: every
 * answer the service produces or receives can be listed and downloaded): the envelopes sent to
 * electronic receivers (when, how, to whom, how the mail went), the answers received (ACKSobre and
 * ACKCFE, uploaded or mailed, refused ones included with why), and the annulment notices; as lists
 * per company and per issued CFE. Reads only; role lectura of the company, another company's rows
 * answer 404 like missing ones.
 */
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { receiverErrors as E } from './receiver-exchange.errors.js';
import { ackLink } from './receiver-exchange.answers.js';
import * as repo from './receiver-exchange.repository.js';
import type { ReceiverExchangeDeps } from './receiver-exchange.service.js';
import type { ReceiverAckRow, ReceiverEnvelopeRow, ReceiverNoticeRow } from './receiver-exchange.tables.js';

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function ackView(a: ReceiverAckRow) {
  return {
    id: a.id, idEmpresa: a.companyId, tipo: a.tipo as 'ACKSobre' | 'ACKCFE', canal: a.canal, estado: a.estado, codigo: a.codigo, error: a.error,
    rutReceptor: a.rutReceptor, idRespuestaReceptor: a.idRespuesta, idSobre: a.envelopeId, idsCfe: a.cfeIds, idUsuario: a.userId,
    fecha: a.createdAt.toISOString(), enlace: ackLink(a.id),
  };
}

export function envelopeView(e: ReceiverEnvelopeRow, acks: ReceiverAckRow[] = []) {
  return {
    id: e.id, idEmpresa: e.companyId, idCliente: e.customerId, rutReceptor: e.rutReceptor,
    // 'generado': only handed to the API caller (generarSobreReceptor without enviarPorCorreo).
    medio: e.estado === 'generado' ? ('descarga' as const) : ('correo' as const),
    email: e.email, estado: e.estado, transporte: e.transporte, intentos: e.intentos, ultimoError: e.ultimoError, messageId: e.messageId,
    fechaCreacion: e.createdAt.toISOString(), fechaEnvio: iso(e.enviadoEn), idsCfe: e.cfeIds, archivo: e.fileName,
    motivos: (e.ackMotivos as Array<{ codigo: string; glosa: string; detalle: string | null }> | null) ?? [],
    enlace: `/api/v1/cfeemitido/sobreReceptor/${e.id}`,
    respuestas: acks.filter((a) => a.envelopeId === e.id).map(ackView),
  };
}

export function noticeView(n: ReceiverNoticeRow) {
  return {
    id: n.id, idEmpresa: n.companyId, rutReceptor: n.rutReceptor, email: n.email, estado: n.estado, transporte: n.transporte, intentos: n.intentos,
    ultimoError: n.ultimoError, fechaCreacion: n.createdAt.toISOString(), fechaEnvio: iso(n.enviadoEn), idsCfe: n.cfeIds, archivo: n.fileName,
    enlace: `/api/v1/cfeemitido/avisoAnulacionReceptor/${n.id}`,
  };
}

export function createExchangeHistory(deps: Pick<ReceiverExchangeDeps, 'db' | 'cfes'>) {
  const { db } = deps;

  return {
    /** GET /api/v1/cfeemitido/sobresReceptor. */
    async listEnvelopes(actor: Actor, q: { idEmpresa: number } & repo.EnvelopeFilters, paging: Paging) {
      assertCompanyRole(actor, q.idEmpresa, 'lectura');
      const { rows, total } = await repo.listEnvelopes(db, q.idEmpresa, q, paging);
      const acks = await repo.acksOfEnvelopes(db, rows.map((r) => r.id));
      return { data: rows.map((r) => envelopeView(r, acks)), total, start: paging.start, length: paging.length };
    },

    /** GET /api/v1/cfeemitido/respuestasReceptor. */
    async listAnswers(actor: Actor, q: { idEmpresa: number } & repo.AckFilters, paging: Paging) {
      assertCompanyRole(actor, q.idEmpresa, 'lectura');
      const { rows, total } = await repo.listAcks(db, q.idEmpresa, q, paging);
      return { data: rows.map(ackView), total, start: paging.start, length: paging.length };
    },

    /** GET /api/v1/cfeemitido/{id}/intercambio: everything exchanged with the receiver about one CFE. */
    async ofCfe(actor: Actor, idCfe: number) {
      const [cfe] = await deps.cfes.byIds(db, [idCfe]);
      if (!cfe) throw E.CFE_NO_ENCONTRADO_SOBRE();
      assertCompanyRole(actor, cfe.companyId, 'lectura', () => E.CFE_NO_ENCONTRADO_SOBRE());
      const all = { start: 0, length: 1000 };
      const envelopes = (await repo.listEnvelopes(db, cfe.companyId, { idCfe }, all)).rows;
      const answers = (await repo.listAcks(db, cfe.companyId, { idCfe }, all)).rows;
      return {
        idCfe, idEmpresa: cfe.companyId, tipoCfe: cfe.tipoCfe, serie: cfe.serie, numero: cfe.numero,
        rutReceptor: cfe.receptorTipoDoc === 2 ? cfe.receptorDocumento : null, estadoReceptor: cfe.estadoReceptor,
        sobres: envelopes.map((e) => envelopeView(e, answers)),
        respuestas: answers.map(ackView),
        avisosAnulacion: (await repo.noticesOfCfe(db, cfe.companyId, idCfe)).map(noticeView),
      };
    },

    /** GET /api/v1/cfeemitido/sobreReceptor/{id}: the stored envelope, byte for byte. */
    async envelopeXml(actor: Actor, id: number) {
      const env = await repo.findEnvelope(db, id);
      if (!env) throw E.SOBRE_RECEPTOR_NO_ENCONTRADO();
      assertCompanyRole(actor, env.companyId, 'lectura', () => E.SOBRE_RECEPTOR_NO_ENCONTRADO());
      return env;
    },

    /** GET /api/v1/cfeemitido/respuestaReceptor/{id}: a received answer as it came. */
    async answerXml(actor: Actor, id: number) {
      const ack = await repo.findAck(db, id);
      if (!ack) throw E.RESPUESTA_RECEPTOR_NO_ENCONTRADA();
      assertCompanyRole(actor, ack.companyId, 'lectura', () => E.RESPUESTA_RECEPTOR_NO_ENCONTRADA());
      return ack;
    },
  };
}
