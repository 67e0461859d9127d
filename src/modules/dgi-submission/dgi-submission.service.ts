/**
 * The API side of the DGI round trip: generarSobreDgi, marcar-aceptado, the state history of a CFE,
 * the envelopes of a company and its sending policy. No HTTP knowledge.
 */
import type { Db } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import type { Paging } from '../../platform/http/paging.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { CfeStateError, markAceptadoManual, type CfeState } from '../emission/cfe-states.js';
import { buildEnvioCfe, envelopeFileName, ENVELOPE_MAX_BYTES, ENVELOPE_MAX_CFE } from '../emission/sobre.js';
import type { StateHistoryEntry } from '../issued-cfe/issued-cfe.history.js';
import { dgiSubmissionErrors as E } from './dgi-submission.errors.js';
import type { OutcomeDeps } from './dgi-submission.outcomes.js';
import { notResendable, uyFechaHora, type EnvioIndividualMode } from './dgi-submission.policy.js';
import * as repo from './dgi-submission.repository.js';
import type { DgiEnvelopeRow } from './dgi-submission.tables.js';

export interface DgiSubmissionServiceDeps {
  db: Db;
  rutReceptor: string;
  states: OutcomeDeps['states'] & { listStateHistory(db: Db, id: number): Promise<StateHistoryEntry[]> };
  /** Issued CFEs by id, for an envelope built on request (issued-cfe.handoff.ts). */
  cfesForEnvelope(db: Db, ids: number[]): Promise<Array<{ id: number; companyId: number; tipoCfe: number; xml: string; estado: string; estadoReceptor: string | null }>>;
  certificateOf(companyId: number): Promise<string>;
}

export function envelopeView(e: DgiEnvelopeRow) {
  return {
    id: e.id, idEmpresa: e.companyId, idEmisor: e.idEmisor, estado: e.estado, cantidadCfe: e.cantCfe, bytes: e.bytes, fecha: e.fecha,
    intentosEnvio: e.sendAttempts, intentosConsulta: e.pollAttempts, estadoAckSobre: e.ackEstado, idReceptor: e.idReceptor,
    consultarDesde: e.consultarDesde?.toISOString() ?? null, proximoIntento: e.nextAttemptAt?.toISOString() ?? null,
    errorCodigo: e.errorCodigo, errorMensaje: e.errorMensaje, creadoEn: e.createdAt.toISOString(),
    enviadoEn: e.sentAt?.toISOString() ?? null, procesadoEn: e.processedAt?.toISOString() ?? null,
    nombreArchivo: envelopeFileName(rucOf(e.xmlHead ?? e.xml ?? ''), e.fecha, e.idEmisor),
  };
}

const rucOf = (xml: string) => /<(?:[\w.-]+:)?RUCEmisor>\s*(\d{12})\s*</.exec(xml)?.[1] ?? '000000000000';

export function createDgiSubmissionService(deps: DgiSubmissionServiceDeps) {
  const { db } = deps;

  async function visibleCfe(actor: Actor, id: number, min: 'lectura' | 'administrador') {
    const [cfe] = await deps.cfesForEnvelope(db, [id]);
    const notFound = () => E.SOBRE_CFE_NO_ENCONTRADO('El comprobante emitido no existe.');
    if (!cfe) throw notFound();
    assertCompanyRole(actor, cfe.companyId, min, notFound);
    return cfe;
  }

  return {
    /**
     * The EnvioCFE for these CFEs: when they are exactly the items of one envelope the worker built,
     * its stored bytes (what DGI got); otherwise a new envelope with a fresh Idemisor (never reused),
     * refused for CFEs DGI rejected (annulled, BRIEF 10) or already has (duplicates): policy notResendable.
     */
    async generateEnvelope(actor: Actor, companyId: number, ids: number[]) {
      assertCompanyRole(actor, companyId, 'emisor');
      const unique = [...new Set(ids)];
      if (unique.length < 1 || unique.length > ENVELOPE_MAX_CFE) throw E.SOBRE_CANTIDAD_INVALIDA();
      const found = await deps.cfesForEnvelope(db, unique);
      if (found.length !== unique.length || found.some((r) => r.companyId !== companyId)) throw E.SOBRE_CFE_NO_ENCONTRADO();
      // In the order asked for, as the envelope's CFEs are: the database returns them in storage order, which a
      // state change moves, so a refusal listed the same ids in a different order from one call to the next.
      const byId = new Map(found.map((r) => [r.id, r]));
      const rows = unique.map((id) => byId.get(id)!);
      const live = await repo.liveEnvelopesOf(db, unique);
      const envelopeIds = new Set(live.map((l) => l.envelopeId));
      if (live.length === unique.length && envelopeIds.size === 1) {
        const env = (await repo.findEnvelope(db, [...envelopeIds][0]))!;
        const items = await repo.envelopeItems(db, env.id);
        if (items.length === unique.length) {
          const xml = await repo.envelopeXml(db, env, deps.cfesForEnvelope);
          return { xml, fileName: envelopeFileName(rucOf(xml), env.fecha, env.idEmisor), idSobre: env.id as number | null };
        }
      }
      const refused = notResendable(rows);
      const list = (l: typeof rows) => l.map((r) => `${r.id} (${r.estado})`).join(', ');
      if (refused.anulados.length) {
        throw E.SOBRE_CFE_ANULADO(`Comprobantes rechazados por DGI, con el número anulado (BRIEF 10): ${list(refused.anulados)}.`, { idsCfe: refused.anulados.map((r) => r.id) });
      }
      if (refused.enDgi.length) {
        throw E.SOBRE_CFE_YA_EN_DGI(`Comprobantes que DGI ya recibió o aceptó: ${list(refused.enDgi)}.`, { idsCfe: refused.enDgi.map((r) => r.id) });
      }
      let cert: string;
      try {
        cert = await deps.certificateOf(companyId);
      } catch {
        throw E.SOBRE_SIN_CERTIFICADO();
      }
      return db.transaction(async (tx) => {
        const idEmisor = await repo.nextIdEmisor(tx, companyId);
        const fecha = uyFechaHora(new Date());
        const cfes = unique.map((id) => byId.get(id)!.xml);
        const rucEmisor = rucOf(cfes[0]);
        const xml = buildEnvioCfe({ rutReceptor: deps.rutReceptor, rucEmisor, idEmisor, fecha, certificateDerBase64: cert, cfes });
        if (Buffer.byteLength(xml) > ENVELOPE_MAX_BYTES) throw E.SOBRE_TAMANO_EXCEDIDO();
        const xsd = validateXml('EnvioCFE', xml);
        if (!xsd.ok) throw E.SOBRE_XML_INVALIDO(`El sobre no cumple el esquema XSD de DGI: ${xsd.errors.slice(0, 3).join('; ')}`);
        return { xml, fileName: envelopeFileName(rucEmisor, fecha, idEmisor), idSobre: null as number | null };
      });
    },

    /** Manual acceptance (issue 6 point 1): administrador, only while DGI has not answered; audited. */
    async markAccepted(actor: Actor, id: number, motivo: string) {
      await visibleCfe(actor, id, 'administrador');
      await db.transaction(async (tx) => {
        const [cfe] = await deps.states.lockCfesForState(tx, [id]);
        let next: CfeState;
        try {
          next = markAceptadoManual(cfe.estado as CfeState).state;
        } catch (err) {
          if (err instanceof CfeStateError) throw E.MARCAR_ACEPTADO_ESTADO(`El comprobante está en estado ${cfe.estado}: solo se marca a mano mientras espera la respuesta de DGI.`, { estado: cfe.estado });
          throw err;
        }
        const written = await deps.states.applyDgiStateChanges(tx, [{
          issuedCfeId: id, companyId: cfe.companyId, from: cfe.estado as CfeState, to: next, codigo: 'MANUAL',
          mensaje: 'Marcado como aceptado manualmente', userId: actor.userId, motivo,
        }]);
        if (written.length === 0) throw E.MARCAR_ACEPTADO_ESTADO();
      });
      return this.history(actor, id);
    },

    async history(actor: Actor, id: number) {
      const cfe = await visibleCfe(actor, id, 'lectura');
      return { id, estado: cfe.estado, estadoReceptor: cfe.estadoReceptor, historial: await deps.states.listStateHistory(db, id) };
    },

    async listEnvelopes(companyId: number, paging: Paging) {
      const { rows, total } = await repo.listEnvelopes(db, companyId, paging.start, paging.length);
      return { data: rows.map(envelopeView), total, start: paging.start, length: paging.length };
    },

    async getEnvelope(actor: Actor, id: number) {
      const env = await repo.findEnvelope(db, id);
      if (!env) throw E.SOBRE_NO_ENCONTRADO();
      assertCompanyRole(actor, env.companyId, 'lectura', () => E.SOBRE_NO_ENCONTRADO());
      return { ...envelopeView(env), idsCfe: await repo.envelopeItems(db, id) };
    },

    getSettings: async (companyId: number) => ({ idEmpresa: companyId, envioIndividual: await repo.getSettings(db, companyId) }),

    async putSettings(actor: Actor, companyId: number, mode: EnvioIndividualMode) {
      assertCompanyRole(actor, companyId, 'administrador');
      await repo.putSettings(db, companyId, mode);
      return { idEmpresa: companyId, envioIndividual: mode };
    },
  };
}

export type DgiSubmissionService = ReturnType<typeof createDgiSubmissionService>;
