/**
 * Numbering + sealing + storing of prepared CFEs as a stream (issue 5 points 4 and 11).
 *
 * Every emission of one (company, branch, type, date) needs the same CAE range row lock, so one
 * receipt per transaction serialises them on database round trips (~70 receipts/s). Instead each
 * key has a lane: a queue in arrival order and a forecast cursor (issued-cfe.forecast.ts).
 * - On arrival a receipt gets the number after the cursor and goes to the sealing worker threads
 *   at once (signed, XSD-validated, QR), so sealing never waits for the database or for a batch.
 * - One statement at a time per lane stores the sealed receipts at the head of the queue, as many
 *   as are ready once those already on the worker are done (issued-cfe.fast-batch.ts): it takes
 *   exactly their forecast numbers, or nothing when the forecast no longer holds (another process
 *   took numbers, a range changed).
 * - Without a forecast (the lane's first receipts, a range about to run out, after a failure) and
 *   when a forecast missed, a transaction reserves the real numbers and seals under the lock; the
 *   receipts queued behind it are then forecast again from what it reserved, and resealed.
 * An idle service still commits a lone request at once (no timer, no added latency).
 *
 * All-or-nothing per receipt: if anything fails inside a batch (an XSD error, a CAE running out, a
 * concurrent duplicate Idempotency-Key), the batch rolls back and its receipts are committed one
 * by one, so each gets its own result and a failure consumes no number and leaves no trace.
 */
import type { Db } from '../../platform/db/client.js';
import { emissionForecastsMissedCounter, emissionReceiptsCounter } from '../../platform/metrics.js';
import { forecastNumbers, sameNumbers } from './issued-cfe.forecast.js';
import { insertWithReservation, storedRow } from './issued-cfe.fast-batch.js';
import type { IssuedCfePorts, ReservedNumber } from './issued-cfe.ports.js';
import * as repo from './issued-cfe.repository.js';
import type { Sealer } from './issued-cfe.sealer.js';
import { emittedEvent, sealedRow, type Emitted, type PreparedCfe, type SealedRow } from './issued-cfe.sealed-row.js';

export type { Emitted, PreparedCfe } from './issued-cfe.sealed-row.js';

export interface BatcherDeps extends Pick<IssuedCfePorts, 'reserveNumbers' | 'recordEvents' | 'exactReservationCtes' | 'insertEventsFrom'> {
  db: Db;
  sealer: Sealer;
  /** Largest batch per statement or transaction (keeps the row lock and the statements bounded). */
  maxBatch?: number;
  /** How many queued receipts a sealed head waits for when they are being sealed already (default 16). */
  coalesce?: number;
}

interface Item {
  prepared: PreparedCfe;
  resolve(emitted: Emitted): void;
  reject(err: unknown): void;
  /** The number it was sealed ahead with, and that sealing: a row, null if it failed (the transaction reseals and reports). */
  forecast?: ReservedNumber;
  sealing?: Promise<SealedRow | null>;
  sealed?: SealedRow | null;
}

interface Lane {
  queue: Item[];
  /** Last number forecast to a queued receipt, or reserved by the last transaction. */
  cursor?: ReservedNumber;
  draining: boolean;
  idleSince: number;
}

/**
 * A lane keeps its cursor this long after its queue empties, so a receipt arriving in a lull is
 * still sealed ahead (a stale cursor only costs a missed forecast); idle lanes are dropped later.
 */
const CURSOR_IDLE_MS = 1000;
const LANE_IDLE_MS = 60_000;

export function createEmissionBatcher(deps: BatcherDeps) {
  const maxBatch = deps.maxBatch ?? 64;
  const coalesce = Math.min(deps.coalesce ?? 16, maxBatch);
  const lanes = new Map<string, Lane>();
  const counters = { batches: 0, receipts: 0, forecastsHeld: 0, forecastsMissed: 0, fallbacks: 0 };

  /** Gives the item the number after the cursor and starts sealing it; without a usable cursor it waits for a transaction. */
  function forecast(lane: Lane, item: Item) {
    const next = lane.cursor && forecastNumbers(lane.cursor, 1)?.[0];
    if (item.forecast && next && sameNumbers([item.forecast], [next])) {
      lane.cursor = next;
      return;
    }
    item.forecast = next;
    item.sealed = undefined;
    if (!next) {
      item.sealing = undefined;
      lane.cursor = undefined;
      return;
    }
    lane.cursor = next;
    const sealing: Promise<SealedRow | null> = sealedRow(deps.sealer, item.prepared, next).catch(() => null);
    item.sealing = sealing;
    // A reseal may overtake an older sealing of the same item: only the latest one counts.
    void sealing.then((s) => item.sealing === sealing && (item.sealed = s));
  }

  /** Sealed ahead: ONE statement; undefined when the forecast no longer holds (nothing written). */
  async function commitForecast(items: Item[]): Promise<Emitted[] | undefined> {
    const first = items[0].prepared;
    const reservation = deps.exactReservationCtes(
      { companyId: first.companyId, branchId: first.branchId, tipoCfe: first.info.code, fecha: first.fecha },
      { caeRangeId: items[0].forecast!.caeRangeId, first: items[0].forecast!.numero, count: items.length },
    );
    const rows = items.map((it) => {
      const values = it.sealed!.row;
      const { type, resource } = emittedEvent(values, it.sealed!.printed.cae);
      return { values, event: { type, data: resource } };
    });
    const got = await insertWithReservation(deps.db, reservation, deps.insertEventsFrom, rows);
    return got?.map((g, i) => ({ row: storedRow(rows[i].values, g), qrPng: items[i].sealed!.qrPng, printed: items[i].sealed!.printed }));
  }

  /** The transaction: reserve, seal under the lock unless what was sealed ahead holds, insert, events. */
  async function commitLocked(items: Item[]): Promise<{ emitted: Emitted[]; last: ReservedNumber }> {
    const first = items[0].prepared;
    // One connection runs one query at a time: these are awaited in turn (pg 9 drops the queueing
    // that let them be issued together; this path is the exception, the forecast path is one statement).
    return deps.db.transaction(async (tx) => {
      const numbers = await deps.reserveNumbers(tx, { companyId: first.companyId, branchId: first.branchId, tipoCfe: first.info.code, fecha: first.fecha }, items.length);
      const ids = await repo.nextIds(tx, items.length);
      const sealed = await Promise.all(items.map(async (it, i) =>
        it.forecast && it.sealed && sameNumbers([it.forecast], [numbers[i]]) ? it.sealed : sealedRow(deps.sealer, it.prepared, numbers[i])));
      const rows = sealed.map((s, i) => ({ ...s.row, id: ids[i] }));
      const inserted = await repo.insertIssuedCfes(tx, rows);
      await deps.recordEvents(tx, rows.map((r, i) => emittedEvent(r, sealed[i].printed.cae)));
      return { emitted: inserted.map((row, i) => ({ row, qrPng: sealed[i].qrPng, printed: sealed[i].printed })), last: numbers[numbers.length - 1] };
    });
  }

  /** Commits one batch from the head of the queue; afterwards the queue behind it is forecast again if needed. */
  async function commitBatch(lane: Lane, batch: Item[]): Promise<void> {
    const ahead = batch[0].sealed != null;
    try {
      let emitted = ahead ? await commitForecast(batch) : undefined;
      if (ahead) counters[emitted ? 'forecastsHeld' : 'forecastsMissed']++;
      if (ahead && !emitted) emissionForecastsMissedCounter.inc();
      const path = emitted ? 'forecast' : 'locked';
      if (!emitted) {
        const r = await commitLocked(batch);
        emitted = r.emitted;
        reanchor(lane, r.last);
      }
      counters.batches++;
      counters.receipts += batch.length;
      emissionReceiptsCounter.inc({ path }, batch.length);
      batch.forEach((it, i) => it.resolve(emitted[i]));
      return;
    } catch (err) {
      reanchor(lane, undefined);
      if (batch.length === 1) {
        batch[0].reject(err);
        return;
      }
    }
    // Someone in the batch failed: commit them one by one so only that one fails.
    counters.fallbacks++;
    for (const it of batch) {
      try {
        it.resolve((await commitLocked([it])).emitted[0]);
        emissionReceiptsCounter.inc({ path: 'locked' });
      } catch (single) {
        it.reject(single);
      }
    }
  }

  /** After a transaction (or a failure) the queued receipts follow the numbers really reserved. */
  function reanchor(lane: Lane, last: ReservedNumber | undefined) {
    lane.cursor = last;
    for (const it of lane.queue) forecast(lane, it);
  }

  /**
   * The next batch at the head: sealed-ahead receipts ready in a row, or receipts without a
   * forecast; a receipt whose sealing failed goes alone (the transaction reports its error).
   */
  function takeBatch(lane: Lane): Item[] {
    const head = lane.queue[0];
    let n = 1;
    if (head.forecast && head.sealed === null) {
      // alone
    } else if (head.forecast) {
      while (n < lane.queue.length && n < maxBatch && lane.queue[n].forecast && lane.queue[n].sealed) n++;
    } else {
      while (n < lane.queue.length && n < maxBatch && !lane.queue[n].forecast) n++;
    }
    return lane.queue.splice(0, n);
  }

  async function drain(lane: Lane): Promise<void> {
    while (lane.queue.length) {
      const head = lane.queue[0];
      // Wait for the head's sealing (a failed one goes through the transaction, which reports why).
      if (head.forecast && head.sealed === undefined) await head.sealing;
      if (head !== lane.queue[0] || (head.forecast && head.sealed === undefined)) continue;
      if (head.sealed) {
        // The receipts right behind it are already on the worker: waiting for them makes batches
        // of ~15 instead of ~6, which costs the database and the event loop a third less per
        // receipt when the cores are saturated (measured: 1,083 -> 1,170 receipts/s).
        const inFlight = lane.queue.slice(1, coalesce).filter((it) => it.forecast && it.sealed === undefined);
        if (inFlight.length) await Promise.all(inFlight.map((it) => it.sealing));
      }
      await commitBatch(lane, takeBatch(lane));
    }
    lane.draining = false;
    lane.idleSince = Date.now();
    if (lanes.size > 64) for (const [k, l] of lanes) if (!l.draining && lane.idleSince - l.idleSince > LANE_IDLE_MS) lanes.delete(k);
  }

  return {
    /** Counters since start (batches committed whole, receipts in them, forecasts, one-by-one fallbacks): for benches and diagnostics. */
    stats: () => ({ ...counters }),

    /** Numbers, signs and stores the CFE (batched with concurrent ones of the same key). */
    submit(prepared: PreparedCfe): Promise<Emitted> {
      const key = `${prepared.companyId}:${prepared.branchId}:${prepared.info.code}:${prepared.fecha}`;
      return new Promise<Emitted>((resolve, reject) => {
        const item: Item = { prepared, resolve, reject };
        let lane = lanes.get(key);
        if (!lane) lanes.set(key, (lane = { queue: [], draining: false, idleSince: 0 }));
        if (!lane.draining && Date.now() - lane.idleSince > CURSOR_IDLE_MS) lane.cursor = undefined;
        lane.queue.push(item);
        forecast(lane, item);
        if (!lane.draining) {
          lane.draining = true;
          void drain(lane);
        }
      });
    },
  };
}

export type EmissionBatcher = ReturnType<typeof createEmissionBatcher>;
