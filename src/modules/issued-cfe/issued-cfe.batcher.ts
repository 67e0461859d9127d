/**
 * Numbering + signing + storing of prepared CFEs, batched (issue 5 points 4 and 11).
 *
 * Every emission of one (company, branch, type, date) needs the same CAE range row lock, so
 * emitting one receipt per transaction serialises them on DB round trips: ~70 receipts/s. Instead,
 * requests that arrive while a transaction of their key is running wait for it, then go together
 * in the next one: one statement reserves the whole block of numbers, each CFE is signed and
 * validated against the XSD, one multi-row INSERT stores them and one more writes their outbox
 * events. An idle service still commits a lone request at once (no timer, no added latency).
 *
 * All-or-nothing per receipt: if anything fails inside a batch (an XSD error, a CAE running out, a
 * concurrent duplicate Idempotency-Key), the batch rolls back and its receipts are committed one
 * by one, so each gets its own result and a failure consumes no number and leaves no trace.
 */
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { buildQrUrl, CfeXmlError, securityCode, signCfe, type Cfe, type CfeTypeInfo, type Emisor, type SigningContext } from '../emission/index.js';
import { issuedCfeErrors as E } from './issued-cfe.errors.js';
import type { ReservedNumber } from './issued-cfe.ports.js';
import * as repo from './issued-cfe.repository.js';
import type { issuedCfes, IssuedCfeRow } from './issued-cfe.tables.js';

/** Everything decided before numbering (issued-cfe.service `prepare`). */
export interface PreparedCfe {
  companyId: number;
  branchId: number;
  emissionPointId: number;
  info: CfeTypeInfo;
  fecha: string;
  signedAt: Date;
  emisor: Emisor;
  draft: Cfe;
  customerId?: number;
  currency: { TpoMoneda: string; TpoCambio?: string };
  adenda?: string;
  ctx: SigningContext;
  idempotencyKey?: string;
  requestHash?: string;
}

/** Number assigned to a prepared CFE: from a CAE range, or the paper number of a contingency CFC. */
export type Numbering = Pick<ReservedNumber, 'serie' | 'numero' | 'cae'> & { caeRangeId: number | null; cfcRangeId?: number };

export interface BatcherDeps {
  db: Db;
  reserveNumbers(tx: DbOrTx, input: { companyId: number; branchId: number; tipoCfe: number; fecha: string }, count: number): Promise<ReservedNumber[]>;
  recordEvents(tx: DbOrTx, inputs: Array<{ type: 'Cfe.Emitido'; companyId: number; resource: Record<string, unknown> }>): Promise<unknown>;
  /** Largest batch per transaction (keeps the row lock and the statements bounded). */
  maxBatch?: number;
}

/** Signs the CFE with its number and turns it into the row to store; throws 422 XML_INVALIDO. */
export function signedRow(p: PreparedCfe, n: Numbering): typeof issuedCfes.$inferInsert {
  const draft = p.draft;
  draft.IdDoc.Serie = n.serie;
  draft.IdDoc.Nro = n.numero;
  draft.CAEData = { CAE_ID: n.cae.NA, DNro: n.cae.DNro, HNro: n.cae.HNro, FecVenc: n.cae.FVD, CAEEspecial: n.cae.CAEEspecial as 1 | undefined, CausalCAEEsp: n.cae.CausalCAEEsp };
  let signed;
  try {
    signed = signCfe(draft, p.ctx);
  } catch (err) {
    if (err instanceof CfeXmlError) throw E.XML_INVALIDO(`El comprobante no se puede representar en el XML de DGI: ${err.message}.`);
    throw err;
  }
  const xsd = validateXml('CFE', signed.xml);
  if (!xsd.ok) throw E.XML_INVALIDO(`El comprobante no cumple el esquema XSD de DGI: ${xsd.errors.slice(0, 3).join('; ')}`, { errores: xsd.errors });
  const t = draft.Totales;
  const urlQr = buildQrUrl({ RUCEmisor: p.emisor.RUCEmisor, TipoCFE: p.info.code, Serie: n.serie, Nro: n.numero, Totales: t, TmstFirma: draft.TmstFirma, digestValue: signed.digestValue });
  return {
    companyId: p.companyId, branchId: p.branchId, emissionPointId: p.emissionPointId, caeRangeId: n.caeRangeId,
    tipoCfe: p.info.code, serie: n.serie, numero: n.numero, fechaEmision: p.fecha, tmstFirma: draft.TmstFirma, firmadoEn: p.signedAt,
    receptorTipoDoc: draft.Receptor?.TipoDocRecep, receptorDocumento: draft.Receptor?.DocRecep ?? draft.Receptor?.DocRecepExt, receptorNombre: draft.Receptor?.RznSocRecep, customerId: p.customerId,
    moneda: p.currency.TpoMoneda, tipoCambio: p.currency.TpoCambio, mntTotal: t.MntTotal, mntPagar: t.MntPagar,
    mntNetoIvaTasaMin: t.MntNetoIvaTasaMin, mntNetoIvaTasaBasica: t.MntNetoIVATasaBasica, mntIvaTasaMin: t.MntIVATasaMin, mntIvaTasaBasica: t.MntIVATasaBasica, mntNoGrv: t.MntNoGrv,
    totales: t, xml: signed.xml, digestValue: signed.digestValue, codigoSeguridad: securityCode(signed.digestValue), urlQr,
    adenda: p.adenda, idempotencyKey: p.idempotencyKey, requestHash: p.requestHash,
  };
}

/** The `Cfe.Emitido` event of a stored row (docs/EVENTS.md). */
export function emittedEvent(row: Pick<IssuedCfeRow, 'id' | 'companyId' | 'tipoCfe' | 'serie' | 'numero' | 'fechaEmision' | 'mntPagar' | 'moneda'>) {
  return {
    type: 'Cfe.Emitido' as const,
    companyId: row.companyId,
    resource: { id: row.id, idEmpresa: row.companyId, tipoCfe: row.tipoCfe, serie: row.serie, numero: row.numero, fechaEmision: row.fechaEmision, mntPagar: row.mntPagar ?? null, moneda: row.moneda },
  };
}

interface Waiting {
  prepared: PreparedCfe;
  resolve(row: IssuedCfeRow): void;
  reject(err: unknown): void;
}

export function createEmissionBatcher(deps: BatcherDeps) {
  const maxBatch = deps.maxBatch ?? 64;
  const queues = new Map<string, Waiting[]>();

  async function commit(items: PreparedCfe[]): Promise<IssuedCfeRow[]> {
    const first = items[0];
    // Queries issued together queue on the same connection and run back to back: the critical
    // section (the CAE row lock) costs BEGIN + 1 + 1 + COMMIT round trips, whatever the batch size.
    return deps.db.transaction(async (tx) => {
      const [numbers, ids] = await Promise.all([
        deps.reserveNumbers(tx, { companyId: first.companyId, branchId: first.branchId, tipoCfe: first.info.code, fecha: first.fecha }, items.length),
        repo.nextIds(tx, items.length),
      ]);
      const rows = items.map((p, i) => ({ ...signedRow(p, numbers[i]), id: ids[i] }));
      const [inserted] = await Promise.all([
        repo.insertIssuedCfes(tx, rows),
        deps.recordEvents(tx, rows.map((r) => emittedEvent({ ...r, mntPagar: r.mntPagar ?? null }))),
      ]);
      return inserted;
    });
  }

  async function drain(key: string, queue: Waiting[]): Promise<void> {
    while (queue.length) {
      const batch = queue.splice(0, maxBatch);
      try {
        const rows = await commit(batch.map((w) => w.prepared));
        batch.forEach((w, i) => w.resolve(rows[i]));
      } catch (err) {
        if (batch.length === 1) {
          batch[0].reject(err);
          continue;
        }
        // Someone in the batch failed: commit them one by one so only that one fails.
        for (const w of batch) {
          try {
            w.resolve((await commit([w.prepared]))[0]);
          } catch (single) {
            w.reject(single);
          }
        }
      }
    }
    queues.delete(key);
  }

  return {
    /** Numbers, signs and stores the CFE (batched with concurrent ones of the same key). */
    submit(prepared: PreparedCfe): Promise<IssuedCfeRow> {
      const key = `${prepared.companyId}:${prepared.branchId}:${prepared.info.code}:${prepared.fecha}`;
      return new Promise<IssuedCfeRow>((resolve, reject) => {
        const waiting: Waiting = { prepared, resolve, reject };
        const queue = queues.get(key);
        if (queue) {
          queue.push(waiting);
          return;
        }
        const fresh = [waiting];
        queues.set(key, fresh);
        void drain(key, fresh);
      });
    },
  };
}

export type EmissionBatcher = ReturnType<typeof createEmissionBatcher>;
