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
 * Several processes issuing for the same range take each other's forecast numbers, and every miss
 * signed its batch again under the range's lock while the others waited for it (issue 45: 95 % of
 * the receipts with 3 API processes). A lane that missed twice within a few seconds is contended: it
 * claims disjoint numbers for its head instead (cae.repository claimBlock; a hint, never a
 * reservation), signs them, waits until the receipts before its claim are stored and stores them with
 * the same one statement. A claim whose turn does not come while the range's cursor stands still for
 * `turnTimeoutMs` (a hole: an earlier block's process died, or a receipt of it failed) goes through
 * the locked path, which fills the hole, and the claims are reset. The lane forecasts again once
 * nobody else has claimed numbers of its range for CONTENDED_MS.
 *
 * All-or-nothing per receipt: if anything fails inside a batch (an XSD error, a CAE running out, a
 * concurrent duplicate Idempotency-Key), the batch rolls back and its receipts are committed one
 * by one, so each gets its own result and a failure consumes no number and leaves no trace.
 */
import type { Db } from '../../platform/db/client.js';
import { emissionClaimsCounter, emissionForecastsMissedCounter, emissionReceiptsCounter } from '../../platform/metrics.js';
import { forecastNumbers, sameNumbers } from './issued-cfe.forecast.js';
import { insertWithReservation, storedRow } from './issued-cfe.fast-batch.js';
import type { IssuedCfePorts, ReservedNumber } from './issued-cfe.ports.js';
import * as repo from './issued-cfe.repository.js';
import type { Sealer } from './issued-cfe.sealer.js';
import type { SealedXmlCache } from './issued-cfe.xml-cache.js';
import { emittedEvent, sealedRow, type Emitted, type PreparedCfe, type SealedRow } from './issued-cfe.sealed-row.js';

export type { Emitted, PreparedCfe } from './issued-cfe.sealed-row.js';

export interface BatcherDeps extends Pick<IssuedCfePorts, 'reserveNumbers' | 'recordEvents' | 'exactReservationCtes' | 'insertEventsFrom' | 'numberClaims'> {
  db: Db;
  sealer: Sealer;
  /** Where the stored receipts' XML waits for this process's DGI submission worker (issued-cfe.xml-cache.ts). */
  xmlCache?: SealedXmlCache;
  /** Largest batch per statement or transaction (keeps the row lock and the statements bounded). */
  maxBatch?: number;
  /** How many queued receipts a sealed head waits for when they are being sealed already (default 16). */
  coalesce?: number;
  /** How long a contended lane's claimed batch waits for the receipts before it while none of them is stored (default 1 s). */
  turnTimeoutMs?: number;
  /** Forecasts missed within MISS_WINDOW_MS that make a lane contended (default 2: one is a range change). */
  missesToContend?: number;
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
  /** Recent forecasts missed (ms timestamps); two within MISS_WINDOW_MS make the lane contended. */
  misses: number[];
  /** Until when the lane claims its numbers instead of forecasting them. */
  contendedUntil: number;
}

/**
 * A lane keeps its cursor this long after its queue empties, so a receipt arriving in a lull is
 * still sealed ahead (a stale cursor only costs a missed forecast); idle lanes are dropped later.
 */
const CURSOR_IDLE_MS = 1000;
const LANE_IDLE_MS = 60_000;
const MISS_WINDOW_MS = 5_000;
const CONTENDED_MS = 30_000;

export function createEmissionBatcher(deps: BatcherDeps) {
  const maxBatch = deps.maxBatch ?? 64;
  const coalesce = Math.min(deps.coalesce ?? 16, maxBatch);
  const turnTimeoutMs = deps.turnTimeoutMs ?? 1000;
  const missesToContend = deps.missesToContend ?? 2;
  const lanes = new Map<string, Lane>();
  const counters = { batches: 0, receipts: 0, forecastsHeld: 0, forecastsMissed: 0, fallbacks: 0, lockedReceipts: 0, claims: 0, turnsTimedOut: 0 };
  const contended = (lane: Lane) => deps.numberClaims !== undefined && Date.now() < lane.contendedUntil;

  /** Gives the item the number after the cursor and starts sealing it; without a usable cursor it waits for a transaction. */
  function forecast(lane: Lane, item: Item) {
    if (contended(lane)) {
      // Numbered when the lane claims them (drainClaimed); a sealing under way is no longer wanted.
      item.forecast = item.sealing = item.sealed = undefined;
      return;
    }
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

  /**
   * Commits one batch from the head of the queue (sealed ahead: one statement first, unless `ahead`
   * is false); afterwards the queue behind it is forecast again if needed. Returns how many were stored.
   */
  async function commitBatch(lane: Lane, batch: Item[], ahead = batch[0].sealed != null): Promise<number> {
    try {
      let emitted = ahead ? await commitForecast(batch) : undefined;
      if (ahead && emitted) counters.forecastsHeld++;
      else if (ahead) missed(lane);
      const path = emitted ? 'forecast' : 'locked';
      if (!emitted) {
        const r = await commitLocked(batch);
        emitted = r.emitted;
        reanchor(lane, r.last);
      }
      counters.batches++;
      counters.receipts += batch.length;
      countStored(path, batch.length);
      deps.xmlCache?.remember(emitted.map((e) => e.row));
      batch.forEach((it, i) => it.resolve(emitted[i]));
      return batch.length;
    } catch (err) {
      reanchor(lane, undefined);
      if (batch.length === 1) {
        batch[0].reject(err);
        return 0;
      }
    }
    // Someone in the batch failed: commit them one by one so only that one fails.
    counters.fallbacks++;
    let stored = 0;
    for (const it of batch) {
      try {
        const [emitted] = (await commitLocked([it])).emitted;
        deps.xmlCache?.remember([emitted.row]);
        it.resolve(emitted);
        countStored('locked', 1);
        stored++;
      } catch (single) {
        it.reject(single);
      }
    }
    return stored;
  }

  /** Receipts stored, by how their numbers were taken: this batcher's stats and the process's /metrics. */
  function countStored(path: 'forecast' | 'locked', n: number) {
    emissionReceiptsCounter.inc({ path }, n);
    if (path === 'locked') counters.lockedReceipts += n;
  }

  /** A forecast missed: another process took the numbers, or the range changed. Twice in a while: contended. */
  function missed(lane: Lane) {
    counters.forecastsMissed++;
    emissionForecastsMissedCounter.inc();
    const now = Date.now();
    lane.misses = [...lane.misses.filter((t) => now - t < MISS_WINDOW_MS), now];
    if (lane.misses.length >= missesToContend) lane.contendedUntil = now + CONTENDED_MS;
  }

  /**
   * A contended lane's head: claim its numbers, seal it, wait until every number before the claim is
   * stored, store it with one statement. Without a claim (no cursor yet, the range running out, an
   * error) it goes through the transaction, which chooses the range; so does a claim whose numbers
   * were taken meanwhile or whose turn did not come while the range's cursor stood still for
   * turnTimeoutMs. A claim that will not be stored whole is a hole every later claim waits for: then
   * the claims are reset.
   */
  async function drainClaimed(lane: Lane): Promise<void> {
    const claims = deps.numberClaims!;
    const cursor = lane.cursor;
    const batch = lane.queue.slice(0, maxBatch);
    const first = cursor && (await claims.claim(cursor.caeRangeId, batch.length).catch(() => undefined));
    const numbers = first ? forecastNumbers({ caeRangeId: cursor.caeRangeId, serie: cursor.serie, numero: first - 1, cae: cursor.cae }, batch.length) : undefined;
    if (!numbers) {
      if (first) await claims.reset(cursor!.caeRangeId).catch(() => undefined); // claimed, never to be stored
      await commitBatch(lane, lane.queue.splice(0, batch.length), false);
      return;
    }
    counters.claims++;
    // Someone else claimed or stored numbers since this lane's last: still contended.
    if (first !== cursor!.numero + 1) lane.contendedUntil = Date.now() + CONTENDED_MS;
    const sealed = await Promise.all(batch.map((it, i) => (it.forecast = numbers[i], sealedRow(deps.sealer, it.prepared, numbers[i]).catch(() => null))));
    batch.forEach((it, i) => (it.sealed = sealed[i]));
    lane.queue.splice(0, batch.length);
    const turn = sealed.every((x) => x !== null) ? await turnOf(numbers[0].caeRangeId, numbers[0].numero) : 'failed';
    if (turn === 'timeout') counters.turnsTimedOut++;
    emissionClaimsCounter.inc({ turn });
    lane.cursor = numbers[numbers.length - 1];
    // The transaction reuses every sealing whose numbers it reserves.
    const stored = await commitBatch(lane, batch, turn === 'now');
    if (turn === 'timeout' || stored < batch.length) await claims.reset(numbers[0].caeRangeId).catch(() => undefined);
  }

  /**
   * Polls the range's cursor until it reaches `first` (now), passes it (taken by another process) or stands still for
   * turnTimeoutMs (a hole: a block before this one will not be stored). While the cursor moves, the blocks before this
   * one are being stored, however slowly: a fixed deadline sent live processes' blocks on saturated cores through the
   * locked path, which slowed everyone further (bench/RESULTS.md, fleet runs of 2026-11-29).
   */
  async function turnOf(caeRangeId: number, first: number): Promise<'now' | 'passed' | 'timeout'> {
    let seen: number | undefined;
    let deadline = 0;
    for (let wait = 1; ; wait = Math.min(wait * 2, 8)) {
      const next = await deps.numberClaims!.nextNumber(caeRangeId).catch(() => undefined);
      if (next === undefined || next > first) return 'passed';
      if (next === first) return 'now';
      if (next !== seen) {
        seen = next;
        deadline = Date.now() + turnTimeoutMs;
      } else if (Date.now() >= deadline) return 'timeout';
      await new Promise((resolve) => setTimeout(resolve, wait));
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
      if (contended(lane)) {
        await drainClaimed(lane);
        continue;
      }
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
        if (!lane) lanes.set(key, (lane = { queue: [], draining: false, idleSince: 0, misses: [], contendedUntil: 0 }));
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
