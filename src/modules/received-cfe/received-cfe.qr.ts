/**
 * POST /api/v1/cferecibido/consultarQr (issue 31 point 5): DGI's public QR check (BRIEF 4) of
 * received CFE, as a background job per CFE. The QR parameters are rebuilt from the signed XML as
 * received (ruc, tipo, serie, número, monto per type, signing date, the issuer's DigestValue: what
 * the issuer's printed QR carries) and sent to DGI's consultaQR page; what the page shows is compared
 * with them. The latest result per CFE is stored (received_qr_checks) and shown on GET {id} as
 * `consultaQr`: pendiente, coincide, difiere (with the differing fields), no_encontrado, error_consulta.
 */
import { eq, inArray } from 'drizzle-orm';
import { Decimal } from 'decimal.js';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import { enqueueJob } from '../../platform/jobs/queue.js';
import { readSignedCfe } from '../cfe-documents/signed-cfe-reader.js';
import { DgiTransientError } from '../dgi/dgi.errors.js';
import type { DgiQrClient } from '../dgi/dgi.qr-client.js';
import { buildQrUrl } from '../emission/index.js';
import { isPrintable } from './received-cfe.documents.js';
import { qrCheckJob } from './received-cfe.reports.jobs.js';
import { receivedReportErrors as E } from './received-cfe.reports.errors.js';
import { receivedQrChecks, type QrDifference, type ReceivedQrCheckRow } from './received-cfe.reports.tables.js';
import { receivedCfes } from './received-cfe.tables.js';

const DIGEST = /<(?:\w+:)?DigestValue>([^<]+)<\/(?:\w+:)?DigestValue>/;

/** The QR's parameters of a received CFE, in order: ruc, tipoCFE, serie, nroCFE, monto, fecha, hash (URL-encoded). */
export function qrQueryOf(xml: string): string {
  const cfe = readSignedCfe(xml);
  const digestValue = DIGEST.exec(xml)?.[1]?.trim();
  if (!digestValue) throw new Error('el CFE no tiene DigestValue');
  const url = buildQrUrl({ RUCEmisor: cfe.Emisor.RUCEmisor, TipoCFE: cfe.IdDoc.TipoCFE, Serie: cfe.IdDoc.Serie, Nro: cfe.IdDoc.Nro, Totales: cfe.Totales, TmstFirma: cfe.TmstFirma, digestValue });
  return url.slice(url.indexOf('?') + 1);
}

const normDate = (v: string) => (/^\d{8}$/.test(v) ? `${v.slice(6, 8)}/${v.slice(4, 6)}/${v.slice(0, 4)}` : v);
const sameAmount = (a: string, b: string) => {
  try {
    return new Decimal(a).equals(new Decimal(b));
  } catch {
    return a === b;
  }
};

/** Fields of our QR that DGI's page shows otherwise. */
export function qrDifferences(query: string, dgi: Record<string, string>): QrDifference[] {
  const [, , , , monto, fecha, hash] = query.split(',');
  const ours = { monto, fecha, hash: decodeURIComponent(hash ?? '') };
  const out: QrDifference[] = [];
  if (dgi.monto !== undefined && !sameAmount(ours.monto, dgi.monto)) out.push({ campo: 'monto', cfe: ours.monto, dgi: dgi.monto });
  if (dgi.fecha !== undefined && normDate(ours.fecha) !== normDate(dgi.fecha)) out.push({ campo: 'fecha', cfe: ours.fecha, dgi: dgi.fecha });
  if (dgi.hash !== undefined && ours.hash !== dgi.hash) out.push({ campo: 'hash', cfe: ours.hash, dgi: dgi.hash });
  return out;
}

export function qrCheckView(row: ReceivedQrCheckRow | undefined) {
  return row
    ? { resultado: row.resultado, diferencias: row.diferencias, dgi: row.dgi, detalle: row.detalle, intentos: row.intentos, solicitadoEn: row.solicitadoEn.toISOString(), consultadoEn: row.consultadoEn?.toISOString() ?? null }
    : null;
}

export async function findQrCheck(db: DbOrTx, receivedCfeId: number) {
  const [row] = await db.select().from(receivedQrChecks).where(eq(receivedQrChecks.receivedCfeId, receivedCfeId));
  return qrCheckView(row);
}

export function createReceivedQr(deps: { db: Db; qrClient(): Promise<DgiQrClient> }) {
  const { db } = deps;
  const save = (id: number, changes: Partial<typeof receivedQrChecks.$inferInsert>) => db.update(receivedQrChecks).set(changes).where(eq(receivedQrChecks.receivedCfeId, id));

  return {
    /** POST consultarQr: each id of the company is marked pendiente and gets a job, in one transaction. */
    async request(actor: Actor, input: { idEmpresa: number; ids: number[] }) {
      assertCompanyRole(actor, input.idEmpresa, 'lectura');
      const ids = [...new Set(input.ids)];
      const rows = await db.select({ id: receivedCfes.id, companyId: receivedCfes.companyId, datos: receivedCfes.datos, tipoCfe: receivedCfes.tipoCfe, estado: receivedCfes.estado })
        .from(receivedCfes).where(inArray(receivedCfes.id, ids));
      // Another company's CFE is reported exactly like a missing one. The lists follow the request's order,
      // not the storage order the database returns (which updates move).
      const position = new Map(ids.map((id, i) => [id, i]));
      const own = rows.filter((r) => r.companyId === input.idEmpresa).sort((a, b) => position.get(a.id)! - position.get(b.id)!);
      const checkable = own.filter((r) => isPrintable(r));
      const found = new Set(own.map((r) => r.id));
      if (!own.length) throw E.CONSULTA_QR_SIN_CFE();
      await db.transaction(async (tx) => {
        for (const r of checkable) {
          const values = { receivedCfeId: r.id, companyId: r.companyId, resultado: 'pendiente' as const, diferencias: [], dgi: null, detalle: null, intentos: 0, solicitadoEn: new Date(), consultadoEn: null, url: null };
          await tx.insert(receivedQrChecks).values(values).onConflictDoUpdate({ target: receivedQrChecks.receivedCfeId, set: values });
          await enqueueJob(tx, qrCheckJob, { id: r.id }, { jobKey: `receivedCfe.qrCheck:${r.id}` });
        }
      });
      return {
        solicitados: checkable.map((r) => r.id),
        noConsultables: own.filter((r) => !isPrintable(r)).map((r) => r.id),
        noEncontrados: ids.filter((id) => !found.has(id)),
      };
    },

    /** Job: one CFE. A transport failure is retried by the queue; the last attempt stores error_consulta. */
    async check(id: number, attempt: number, maxAttempts: number) {
      const [row] = await db.select({ xml: receivedCfes.xml }).from(receivedCfes).where(eq(receivedCfes.id, id));
      if (!row) return;
      let query: string;
      try {
        query = qrQueryOf(row.xml);
      } catch (err) {
        await save(id, { resultado: 'error_consulta', detalle: `No se pudo armar el QR del CFE: ${(err as Error).message}`, intentos: attempt, consultadoEn: new Date() });
        return;
      }
      const client = await deps.qrClient();
      try {
        const page = await client.check(query);
        const now = new Date();
        if (page.resultado === 'no_encontrado') await save(id, { resultado: 'no_encontrado', url: query, diferencias: [], dgi: null, detalle: 'DGI no tiene registrado el comprobante.', intentos: attempt, consultadoEn: now });
        else if (page.resultado === 'ilegible') await save(id, { resultado: 'error_consulta', url: query, detalle: page.detalle, intentos: attempt, consultadoEn: now });
        else {
          const diferencias = qrDifferences(query, page.campos);
          await save(id, { resultado: diferencias.length ? 'difiere' : 'coincide', url: query, diferencias, dgi: page.campos, detalle: null, intentos: attempt, consultadoEn: now });
        }
      } catch (err) {
        if (!(err instanceof DgiTransientError) || attempt >= maxAttempts) {
          await save(id, { resultado: 'error_consulta', url: query, detalle: `No se pudo consultar a DGI: ${(err as Error).message}`, intentos: attempt, consultadoEn: new Date() });
          return;
        }
        await save(id, { intentos: attempt, detalle: `Reintentando: ${(err as Error).message}` });
        throw err;
      }
    },
  };
}

export type ReceivedQr = ReturnType<typeof createReceivedQr>;
