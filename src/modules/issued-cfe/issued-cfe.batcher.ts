/**
 * Numbering + signing + storing of prepared CFEs, batched (issue 5 points 4 and 11).
 *
 * Every emission of one (company, branch, type, date) needs the same CAE range row lock, so
 * emitting one receipt per transaction serialises them on DB round trips: ~70 receipts/s. Instead,
 * requests that arrive while a batch of their key is in the database wait for it, then go together
 * in the next one. Each CFE is sealed (signed, XSD-validated, QR) on the worker threads, ahead of
 * the database when the numbers can be forecast (see `drain`); such a batch is then ONE statement
 * (issued-cfe.fast-batch.ts). Otherwise one transaction reserves the whole block of numbers, one
 * multi-row INSERT stores them and one more writes their outbox events.
 * An idle service still commits a lone request at once (no timer, no added latency).
 *
 * All-or-nothing per receipt: if anything fails inside a batch (an XSD error, a CAE running out, a
 * concurrent duplicate Idempotency-Key), the batch rolls back and its receipts are committed one
 * by one, so each gets its own result and a failure consumes no number and leaves no trace.
 */
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { securityCode, type Cfe, type CfeTypeInfo, type Emisor, type SigningContext } from '../emission/index.js';
import { issuedCfeErrors as E } from './issued-cfe.errors.js';
import { forecastNumbers, sameNumbers } from './issued-cfe.forecast.js';
import { insertWithReservation, storedRow } from './issued-cfe.fast-batch.js';
import type { IssuedCfePorts, ReservedNumber } from './issued-cfe.ports.js';
import * as repo from './issued-cfe.repository.js';
import type { Sealer } from './issued-cfe.sealer.js';
import { SealError } from './issued-cfe.sealing.js';
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

/** A stored receipt and its QR image (drawn while sealing; the response's `qrPng`). */
export interface Emitted {
  row: IssuedCfeRow;
  qrPng: string;
}

export interface BatcherDeps extends Pick<IssuedCfePorts, 'reserveNumbers' | 'recordEvents' | 'exactReservationCtes' | 'insertEventsFrom'> {
  db: Db;
  sealer: Sealer;
  /** Largest batch per transaction (keeps the row lock and the statements bounded). */
  maxBatch?: number;
}

/** Numbers the CFE, seals it (sign, XSD, QR) and turns it into the row to store; throws 422 XML_INVALIDO. */
export async function sealedRow(sealer: Sealer, p: PreparedCfe, n: Numbering): Promise<{ row: typeof issuedCfes.$inferInsert; qrPng: string }> {
  const draft = p.draft;
  draft.IdDoc.Serie = n.serie;
  draft.IdDoc.Nro = n.numero;
  draft.CAEData = { CAE_ID: n.cae.NA, DNro: n.cae.DNro, HNro: n.cae.HNro, FecVenc: n.cae.FVD, CAEEspecial: n.cae.CAEEspecial as 1 | undefined, CausalCAEEsp: n.cae.CausalCAEEsp };
  let sealed;
  try {
    sealed = await sealer.seal(draft, p.ctx, { RUCEmisor: p.emisor.RUCEmisor, TipoCFE: p.info.code, Serie: n.serie, Nro: n.numero });
  } catch (err) {
    if (err instanceof SealError) throw E.XML_INVALIDO(err.message, err.data);
    throw err;
  }
  const t = draft.Totales;
  const row = {
    companyId: p.companyId, branchId: p.branchId, emissionPointId: p.emissionPointId, caeRangeId: n.caeRangeId,
    tipoCfe: p.info.code, serie: n.serie, numero: n.numero, fechaEmision: p.fecha, tmstFirma: draft.TmstFirma, firmadoEn: p.signedAt,
    receptorTipoDoc: draft.Receptor?.TipoDocRecep, receptorDocumento: draft.Receptor?.DocRecep ?? draft.Receptor?.DocRecepExt, receptorNombre: draft.Receptor?.RznSocRecep, customerId: p.customerId,
    moneda: p.currency.TpoMoneda, tipoCambio: p.currency.TpoCambio, mntTotal: t.MntTotal, mntPagar: t.MntPagar,
    mntNetoIvaTasaMin: t.MntNetoIvaTasaMin, mntNetoIvaTasaBasica: t.MntNetoIVATasaBasica, mntIvaTasaMin: t.MntIVATasaMin, mntIvaTasaBasica: t.MntIVATasaBasica, mntNoGrv: t.MntNoGrv,
    totales: t, xml: sealed.xml, digestValue: sealed.digestValue, codigoSeguridad: securityCode(sealed.digestValue), urlQr: sealed.urlQr,
    adenda: p.adenda, idempotencyKey: p.idempotencyKey, requestHash: p.requestHash,
  };
  return { row, qrPng: sealed.qrPng };
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
  resolve(emitted: Emitted): void;
  reject(err: unknown): void;
}

type SealedRow = Awaited<ReturnType<typeof sealedRow>>;

/** A batch sealed ahead with forecast numbers (issued-cfe.forecast.ts). */
interface Presealed {
  numbers: ReservedNumber[];
  sealed: SealedRow[];
}

/** One key's queue and the forecast cursor: the last number given to a dispatched batch. */
interface Lane {
  queue: Waiting[];
  cursor?: ReservedNumber;
  seq: number;
}

export function createEmissionBatcher(deps: BatcherDeps) {
  const maxBatch = deps.maxBatch ?? 64;
  const lanes = new Map<string, Lane>();
  const counters = { batches: 0, receipts: 0, forecastsHeld: 0, forecastsMissed: 0, fallbacks: 0 };

  /** A presealed batch in one statement; undefined when its forecast no longer holds (nothing written). */
  async function commitForecast(items: PreparedCfe[], pre: Presealed): Promise<Emitted[] | undefined> {
    const first = items[0];
    const reservation = deps.exactReservationCtes(
      { companyId: first.companyId, branchId: first.branchId, tipoCfe: first.info.code, fecha: first.fecha },
      { caeRangeId: pre.numbers[0].caeRangeId, first: pre.numbers[0].numero, count: items.length },
    );
    const rows = pre.sealed.map((s) => {
      const { type, resource } = emittedEvent({ ...s.row, id: 0, mntPagar: s.row.mntPagar ?? null });
      return { values: s.row, event: { type, data: resource } };
    });
    const got = await insertWithReservation(deps.db, reservation, deps.insertEventsFrom, rows);
    return got?.map((g, i) => ({ row: storedRow(rows[i].values, g), qrPng: pre.sealed[i].qrPng }));
  }

  async function commit(items: PreparedCfe[], pre?: Presealed, onReserved?: () => void): Promise<{ emitted: Emitted[]; last: ReservedNumber; forecastHeld: boolean }> {
    if (pre) {
      const emitted = await commitForecast(items, pre);
      if (emitted) {
        onReserved?.();
        return { emitted, last: pre.numbers[pre.numbers.length - 1], forecastHeld: true };
      }
      // Someone else moved the cursor or the range changed: the transaction below reseals.
    }
    const first = items[0];
    // Queries issued together queue on the same connection and run back to back: the critical
    // section (the CAE row lock) costs BEGIN + 1 + 1 + COMMIT round trips, whatever the batch size.
    return deps.db.transaction(async (tx) => {
      const [numbers, ids] = await Promise.all([
        deps.reserveNumbers(tx, { companyId: first.companyId, branchId: first.branchId, tipoCfe: first.info.code, fecha: first.fecha }, items.length),
        repo.nextIds(tx, items.length),
      ]);
      onReserved?.();
      const forecastHeld = pre !== undefined && sameNumbers(pre.numbers, numbers);
      // Sealing runs on the worker threads (issued-cfe.sealer.ts); under the lock only when the forecast missed.
      const sealed = forecastHeld ? pre.sealed : await Promise.all(items.map((p, i) => sealedRow(deps.sealer, p, numbers[i])));
      const rows = sealed.map((s, i) => ({ ...s.row, id: ids[i] }));
      const [inserted] = await Promise.all([
        repo.insertIssuedCfes(tx, rows),
        deps.recordEvents(tx, rows.map((r) => emittedEvent({ ...r, mntPagar: r.mntPagar ?? null }))),
      ]);
      return { emitted: inserted.map((row, i) => ({ row, qrPng: sealed[i].qrPng })), last: numbers[numbers.length - 1], forecastHeld };
    });
  }

  async function commitBatch(lane: Lane, seq: number, batch: Waiting[], pre: Presealed | undefined, reserved: () => void): Promise<void> {
    try {
      const r = await commit(batch.map((w) => w.prepared), pre, reserved);
      counters.batches++;
      counters.receipts += batch.length;
      if (pre) counters[r.forecastHeld ? 'forecastsHeld' : 'forecastsMissed']++;
      batch.forEach((w, i) => w.resolve(r.emitted[i]));
      // A missed forecast: batches dispatched after this one will miss too; the last one re-anchors.
      if (!r.forecastHeld) lane.cursor = seq === lane.seq ? r.last : undefined;
      return;
    } catch (err) {
      lane.cursor = undefined;
      reserved();
      if (batch.length === 1) {
        batch[0].reject(err);
        return;
      }
    }
    // Someone in the batch failed: commit them one by one so only that one fails.
    counters.fallbacks++;
    for (const w of batch) {
      try {
        w.resolve((await commit([w.prepared])).emitted[0]);
      } catch (single) {
        w.reject(single);
      }
    }
  }

  /**
   * Two stages per key: batch k+1 is sealed (worker threads) with forecast numbers while batch k
   * is in the database. Batch k+1's transaction starts as soon as k holds its numbers, and waits
   * for the CAE row lock inside PostgreSQL, so the lock passes from k's COMMIT to k+1's UPDATE
   * with no client round trip in between; starting only then keeps the numbers in batch order.
   * Without a forecast (first batch, a range about to run out, after a failure) a batch is sealed
   * under the lock.
   */
  async function drain(key: string, lane: Lane): Promise<void> {
    let inDatabase: Promise<void> = Promise.resolve();
    let previousReserved: Promise<void> = Promise.resolve();
    for (;;) {
      if (lane.queue.length === 0) {
        await inDatabase;
        if (lane.queue.length === 0) break;
        continue;
      }
      const batch = lane.queue.splice(0, maxBatch);
      const seq = ++lane.seq;
      const forecast = lane.cursor ? forecastNumbers(lane.cursor, batch.length) : undefined;
      lane.cursor = forecast?.[forecast.length - 1];
      // A failed pre-seal is dropped: the transaction seals again and reports the real error.
      const presealing: Promise<Presealed | undefined> = forecast
        ? Promise.all(batch.map((w, i) => sealedRow(deps.sealer, w.prepared, forecast[i]))).then((sealed) => ({ numbers: forecast, sealed }), () => undefined)
        : Promise.resolve(undefined);
      const previous = inDatabase;
      const gate = previousReserved;
      let reserved!: () => void;
      previousReserved = new Promise<void>((resolve) => (reserved = resolve));
      inDatabase = (async () => {
        const pre = await presealing;
        await gate;
        await commitBatch(lane, seq, batch, pre, reserved);
      })();
      // The next batch forms once this one is sealed and the one before it is committed (at most
      // one batch waits behind the one in the database); without a forecast, once this one is committed.
      await (forecast ? Promise.all([presealing, previous]) : inDatabase);
    }
    lanes.delete(key);
  }

  return {
    /** Counters since start (batches committed whole, receipts in them, forecasts, one-by-one fallbacks): for benches and diagnostics. */
    stats: () => ({ ...counters }),

    /** Numbers, signs and stores the CFE (batched with concurrent ones of the same key). */
    submit(prepared: PreparedCfe): Promise<Emitted> {
      const key = `${prepared.companyId}:${prepared.branchId}:${prepared.info.code}:${prepared.fecha}`;
      return new Promise<Emitted>((resolve, reject) => {
        const waiting: Waiting = { prepared, resolve, reject };
        const lane = lanes.get(key);
        if (lane) {
          lane.queue.push(waiting);
          return;
        }
        const fresh: Lane = { queue: [waiting], seq: 0 };
        lanes.set(key, fresh);
        void drain(key, fresh);
      });
    },
  };
}

export type EmissionBatcher = ReturnType<typeof createEmissionBatcher>;
