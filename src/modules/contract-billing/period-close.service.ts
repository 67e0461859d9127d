/**
 * The period's CFE (issue 34 point 4). `closeDue` (cron) claims every period whose end plus the
 * company's grace for late events has passed: one contract_periods row per (contract, period),
 * primary key, inserted in the same transaction that moves the contract's open period on and
 * enqueues `contract_period_issue`. `issue` rates the period against the pinned version and issues
 * one CFE through the emission service with Idempotency-Key `periodIdempotencyKey(contract,
 * periodStart)`: a retry, a crash after emission or a second worker replays the same CFE instead of
 * issuing another, and the row is marked from that answer. `correct` re-rates a closed period and
 * issues a debit note (more usage) and/or a credit note (less) referencing the period's CFE.
 *
 * Issue 40: the open period is always `periodFrom(openPeriodStart)` (a change of diaAncla closes it
 * short, never strands it); every claimed row carries a lease its issue job renews, and the
 * recovery sweep (period-recovery.ts) re-queues rows whose lease ran out, so a job locked by a killed
 * process does not hold them; `terminate` bills the open period up to today when an administrator
 * ends a contract with facturar; late usage can be corrected at the contract's next close.
 */
import { addDays, uyToday } from '../../lib/dates.js';
import { AppError } from '../../lib/errors.js';
import type { Actor } from '../../platform/http/actor.js';
import { strictSchema } from '../../platform/http/strict-body.js';
import { issueCfeBody } from '../issued-cfe/issued-cfe.schemas.js';
import type { IssuedCfeService } from '../issued-cfe/issued-cfe.service.js';
import { buildPeriodCfe, periodIdempotencyKey, type PeriodCfeBody } from '../price-books/period-cfe.js';
import { ratePeriod } from '../price-books/rating.js';
import { billingErrors as E } from './contract-billing.errors.js';
import * as repo from './contract-billing.repository.js';
import { periodView } from './contract-billing.service.js';
import { evaluateContract, versionFor, type EvaluationDeps } from './contract-evaluation.js';
import { correctionNotes } from './period-corrections.js';
import { periodUsage } from './period-usage.js';
import { localMidnight, nextPeriod, periodBetween, periodFrom, type Period } from './periods.js';

/** An open period that was due and that no close took (reported by the check). */
export interface StuckPeriod { contractId: number; periodStart: string; overdueSince: Date }

const HOUR_MS = 3_600_000;
const SYSTEM: Actor = { userId: 0, email: 'sistema', isOperator: true, companies: new Map() } as unknown as Actor;
const CLAIM_SLICE = 1000;
const ENDED: readonly string[] = ['cancelado', 'finalizado'];
/** graphile-worker task that issues one claimed period (contract-billing.jobs.ts). */
export const ISSUE_JOB = 'contract_period_issue';
/** Periods per issue job, and how many of a job's CFEs are in emission at once (emission batches concurrent requests). */
export const PERIODS_PER_JOB = 100;
export const ISSUE_CONCURRENCY = 24;
/** Seconds a claimed row stays leased to its queued or running issue job (renewed every third of it while the job runs). */
export const LEASE_SECONDS = 40;
/**
 * Lease of a row claimed by the close while its job waits in the queue: a queued job is not locked by
 * any process (a restart runs it), so this only keeps the sweep from queuing a second job for rows a
 * busy queue has not reached yet.
 */
export const QUEUED_LEASE_SECONDS = 180;
/** A catch-up (a contract started in the past, a long downtime) claims one period per contract a pass; passes per close run. */
const MAX_PASSES = 60;
/** Waits of 200 ms for terms rows held by others before a close run gives up until the next cron. */
const LOCKED_RETRIES = 10;

export function createPeriodCloseService(deps: EvaluationDeps & {
  issuedCfe: Pick<IssuedCfeService, 'emit' | 'get'>; loadContract: (actor: Actor, id: number, role: 'lectura' | 'emisor') => Promise<unknown>;
  /** The CFE a company issued under an Idempotency-Key (issued-cfe's handoff). */
  cfeIdByKey: (companyId: number, key: string) => Promise<number | undefined>;
}) {
  const { db } = deps;
  const clock = () => deps.now?.() ?? new Date();
  const emitSchema = strictSchema(issueCfeBody);
  const parse = (body: PeriodCfeBody) => emitSchema.parse(body);

  type Contract = NonNullable<Awaited<ReturnType<EvaluationDeps['usage']['contract']>>>;

  async function bodyOf(terms: repo.TermsRow, period: Period, now: Date, known?: Contract) {
    const contract = known ?? (await deps.usage.contract(terms.contractId))!;
    const version = await versionFor(deps, terms, period.desde);
    if (!version) return { error: `Ninguna versión de la lista de precios ${terms.priceBookCode} está vigente el ${period.desde}.` } as const;
    const { usage } = await periodUsage(deps.usage, contract, period.start, period.end, version.precios);
    const rating = ratePeriod(version, usage);
    const body = buildPeriodCfe(rating, version, {
      idEmpresa: terms.companyId, codComercio: terms.codComercio, codTerminal: terms.codTerminal, tipoCfe: terms.cfeType,
      receptor: { idCliente: contract.customerId }, fechaEmision: uyToday(now), periodo: { desde: period.desde, hasta: period.hasta },
      formaPago: terms.paymentTerm as 1 | 2, contrato: `Contrato ${contract.id} (${contract.externalId})`,
    });
    return { rating, version, body, period } as const;
  }

  /**
   * Emits a period's CFE under its key. A conflict means a CFE exists under the key with another body:
   * a worker issued it and died before marking the row, and the retry runs on a later day (the CFE is
   * dated the issuing day). The body is built again on that CFE's date: the same rating replays that
   * CFE; a rating that changed meanwhile stays a conflict, for a person (the period goes to `error`).
   */
  async function emitPeriod(terms: repo.TermsRow, row: repo.PeriodRow, body: PeriodCfeBody, contract?: Contract) {
    const key = periodIdempotencyKey(row.contractId, row.periodStart);
    try {
      return (await deps.issuedCfe.emit(parse(body) as never, key)).view;
    } catch (err) {
      const id = err instanceof AppError && err.code === 'IDEMPOTENCIA_CONFLICTO' ? await deps.cfeIdByKey(terms.companyId, key) : undefined;
      if (!id) throw err;
      const { fechaEmision } = (await deps.issuedCfe.get(SYSTEM, id)) as { fechaEmision: string };
      const again = await bodyOf(terms, periodBetween(row.periodStart, row.periodEnd), new Date(`${fechaEmision}T15:00:00Z`), contract);
      if ('error' in again || !again.body) throw err;
      return (await deps.issuedCfe.emit(parse(again.body) as never, key)).view;
    }
  }

  /** Rates and issues one claimed period and marks its row from emission's answer. */
  async function issueOne(row: repo.PeriodRow, terms: repo.TermsRow, now: Date, contract?: Contract): Promise<void> {
    const { contractId, periodStart } = row;
    const built = await bodyOf(terms, periodBetween(periodStart, row.periodEnd), now, contract);
    if ('error' in built) {
      await repo.updatePeriod(db, contractId, periodStart, { status: 'error', error: built.error });
      return;
    }
    const base = { rating: built.rating, total: built.rating.total, versionId: built.version.id ?? null, closedAt: now, error: null };
    if (!built.body) {
      await repo.updatePeriod(db, contractId, periodStart, { ...base, status: 'sin_consumo' });
    } else {
      try {
        const view = await emitPeriod(terms, row, built.body, contract);
        await repo.updatePeriod(db, contractId, periodStart, { ...base, status: 'emitido', issuedCfeId: view.id });
      } catch (err) {
        // A refusal of emission (4xx: customer data, CAE, emission point) needs a person; anything else is retried by the job.
        if (!(err instanceof AppError) || err.status >= 500 || err.retryable) throw err;
        await repo.updatePeriod(db, contractId, periodStart, { status: 'error', error: `${err.code}: ${err.message}` });
      }
    }
    // The new period lifts the rules that reset with it.
    if (terms.rules.length) await evaluateContract(deps, contractId, { kind: 'rules' }, now);
    // Late usage of earlier periods, when the company asked for automatic corrections (issue 40 point 6).
    if (await deps.usage.lateUsagePolicy(terms.companyId) === 'automatica') {
      for (const late of await repo.periodsWithLateUsage(db, contractId)) {
        if (late.periodStart < periodStart) await correctPeriod(contractId, late.periodStart, now);
      }
    }
  }

  /** Re-rates a closed period and issues the notes the difference needs (see `correct`). */
  async function correctPeriod(contractId: number, periodStart: string, now: Date) {
    const row = await repo.findPeriod(db, contractId, periodStart);
    if (!row) throw E.PERIODO_NO_ENCONTRADO();
    if (row.status !== 'emitido' || !row.issuedCfeId || !row.rating) throw E.PERIODO_NO_EMITIDO();
    const terms = (await repo.findTerms(db, contractId))!;
    const checkedAt = new Date();
    const built = await bodyOf({ ...terms, priceBookVersionId: row.versionId ?? terms.priceBookVersionId }, periodBetween(periodStart, row.periodEnd), now);
    if ('error' in built || !built.body) throw E.PERIODO_NO_EMITIDO('La versión de precios del período ya no se puede leer.');
    const original = await deps.issuedCfe.get(SYSTEM, row.issuedCfeId);
    const seq = row.correctionSeq + 1;
    const plan = correctionNotes(row.rating, built.rating, built.body, { tipoCfe: original.tipoCfe, serie: original.serie, numero: original.numero, fecha: original.fechaEmision });
    for (const note of plan) {
      const { view } = await deps.issuedCfe.emit(parse(note.body) as never, `${periodIdempotencyKey(contractId, periodStart)}-correccion-${seq}-${note.kind}`);
      await repo.insertNote(db, { contractId, companyId: terms.companyId, periodStart, seq, kind: note.kind, issuedCfeId: view.id, amount: note.amount });
    }
    // The late usage read before the rating above is now billed: lateCorrectedAt is when that read began.
    await repo.updatePeriod(db, contractId, periodStart, { lateCorrectedAt: checkedAt, ...(plan.length ? { rating: built.rating, total: built.rating.total, correctionSeq: seq } : {}) });
    return periodView((await repo.findPeriod(db, contractId, periodStart))!, await repo.notesOf(db, contractId, periodStart));
  }

  return {
    /**
     * Claims and queues every period due at `now` (the scheduling clock); answers how many were
     * claimed. Repeats its pass while periods are claimed, so a contract several periods behind (started
     * in the past, or the service was down) is caught up at once; `stuck`: contracts whose open period
     * was due but no pass claimed (reported by the check, period-recovery.ts).
     */
    async closeDue(now = clock(), stuck: StuckPeriod[] = []): Promise<number> {
      let claimed = 0;
      for (let pass = 0, waits = 0; pass < MAX_PASSES; pass++) {
        const { claimed: n, missed } = await this.closePass(now, pass < MAX_PASSES - 1 ? [] : stuck);
        claimed += n;
        if (n) continue;
        // Nothing claimed although periods were due: their terms rows were held (a rule evaluation,
        // another process's close; the claim skips locked rows). A catch-up of a contract started in
        // the past would otherwise stop there until the next minute's cron: wait briefly, then retry.
        if (!missed || waits++ >= LOCKED_RETRIES) {
          if (missed) await this.closePass(now, stuck);
          break;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      return claimed;
    },
    async closePass(now: Date, stuck: StuckPeriod[]): Promise<{ claimed: number; missed: number }> {
      const graces = new Map<number, number>();
      let claimed = 0;
      let missed = 0;
      for (let after: { start: string; id: number } | null = null; ;) {
        const terms = await repo.termsWithOpenPeriodBefore(db, uyToday(now), after, CLAIM_SLICE);
        if (!terms.length) break;
        after = { start: terms.at(-1)!.openPeriodStart, id: terms.at(-1)!.contractId };
        const contracts = new Map((await deps.usage.contracts(terms.map((t) => t.contractId))).map((c) => [c.id, c]));
        const due: Parameters<typeof repo.claimDuePeriods>[1] = [];
        const skipped: Parameters<typeof repo.skipPeriods>[1] = [];
        const ending: Array<{ contractId: number; fin: Date }> = [];
        for (const t of terms) {
          const c = contracts.get(t.contractId);
          // A draft bills nothing yet (its events are refused); it is looked at again once activated.
          if (!c || c.state === 'borrador') continue;
          if (!graces.has(t.companyId)) graces.set(t.companyId, await deps.usage.graceHours(t.companyId));
          const p = periodFrom(t.openPeriodStart, t.anchorDay);
          if (p.end.getTime() + graces.get(t.companyId)! * HOUR_MS > now.getTime()) continue;
          const item = { contractId: t.contractId, periodStart: p.desde, periodEnd: p.hasta, nextStart: nextPeriod(p.desde, t.anchorDay).desde, companyId: t.companyId };
          // Cancelled or finished before the period began: no usage can fall in it, so no period row and no CFE.
          const endedBefore = (ENDED.includes(c.state) && c.stateSince.getTime() <= p.start.getTime()) || (c.endsAt !== null && c.endsAt.getTime() <= p.start.getTime());
          if (endedBefore) {
            skipped.push(item);
            continue;
          }
          due.push(item);
          if (c.endsAt && c.endsAt.getTime() <= p.end.getTime() && !ENDED.includes(c.state)) ending.push({ contractId: c.id, fin: c.endsAt });
        }
        const rows = await db.transaction(async (tx) => {
          const rows = await repo.claimDuePeriods(tx, due, QUEUED_LEASE_SECONDS);
          await repo.enqueueIssueJobs(tx, ISSUE_JOB, rows, PERIODS_PER_JOB);
          await repo.skipPeriods(tx, skipped);
          const next = new Map(due.map((d) => [d.contractId, d.nextStart]));
          await deps.usage.setBilledUntil(tx, rows.map((r) => ({ id: r.contractId, billedUntil: next.get(r.contractId)! })));
          return rows;
        });
        claimed += rows.length;
        missed += due.length - rows.length;
        // Due for over an hour past its grace and still not taken: the check reports it (period-recovery.ts).
        const taken = new Set(rows.map((r) => r.contractId));
        for (const d of due) {
          const overdueSince = new Date(localMidnight(d.nextStart).getTime() + graces.get(d.companyId)! * HOUR_MS);
          if (!taken.has(d.contractId) && now.getTime() - overdueSince.getTime() > HOUR_MS) stuck.push({ contractId: d.contractId, periodStart: d.periodStart, overdueSince });
        }
        // Its last period is claimed: the contract is finalizado (history row and event 8, cause fin).
        for (const e of ending) {
          // Dated at its end date (fin), not at the close: the contract was over from then on.
          await evaluateContract(deps, e.contractId, { kind: 'set', rulesState: 'finalizado', manualSuspension: false, cause: { tipo: 'fin', fin: e.fin.toISOString() } }, e.fin);
        }
        if (terms.length < CLAIM_SLICE) break;
      }
      return { claimed, missed };
    },

    /**
     * Ends billing now (cancelar/finalizar with facturar, issue 40 point 5; Lago's "terminate and
     * invoice"): claims every period from the open one up to today, the last one short (ending today),
     * and with `issue` issues the contract's pending periods at once. Idempotent: once claimed, the
     * open period starts tomorrow and a repeat claims nothing; the CFE of each period is made once
     * (its Idempotency-Key). A failed issue stays `pendiente` for the sweep.
     */
    async terminate(contractId: number, now = clock(), issue = true): Promise<number> {
      const today = uyToday(now);
      const claimed = await db.transaction(async (tx) => {
        const terms = await repo.findTerms(tx, contractId, true);
        if (!terms) return 0;
        let n = 0;
        let open = terms.openPeriodStart;
        while (open <= today) {
          const p = periodFrom(open, terms.anchorDay);
          const hasta = p.hasta < today ? p.hasta : today;
          const next = addDays(hasta, 1);
          n += (await repo.claimDuePeriods(tx, [{ contractId, periodStart: open, periodEnd: hasta, nextStart: next, companyId: terms.companyId }], LEASE_SECONDS)).length;
          open = next;
        }
        if (n) await deps.usage.setBilledUntil(tx, [{ id: contractId, billedUntil: open }]);
        return n;
      });
      // A failure leaves its row `pendiente` (shown in /periods) for the sweep to retry; the end itself stands.
      if (issue) await this.issueLeased(await repo.pendingPeriodsOf(db, contractId), now).catch(() => undefined);
      return claimed;
    },
    /** Issues the pending periods now (the sandbox clock); answers how many got a CFE. Failures stay for the jobs and the sweep. */
    async issuePending(now = clock(), limit = 5000): Promise<number> {
      const rows = await repo.pendingPeriods(db, limit);
      await this.issueLeased(rows, now).catch(() => undefined);
      return (await repo.findPeriods(db, rows)).filter((r) => r.status === 'emitido').length;
    },
    /** Issues the CFE of one claimed period (idempotent: see the module comment). */
    async issue(contractId: number, periodStart: string, now = clock()): Promise<repo.PeriodRow | undefined> {
      const row = await repo.findPeriod(db, contractId, periodStart);
      if (!row || row.status === 'emitido' || row.status === 'sin_consumo') return row;
      await issueOne(row, (await repo.findTerms(db, contractId))!, now);
      return repo.findPeriod(db, contractId, periodStart);
    },

    /**
     * Issues a job's periods, ISSUE_CONCURRENCY at a time. A failure that is not emission's refusal
     * (stored on its row by `issue`) fails the job after the others ran; the retry skips the issued ones.
     */
    async issueMany(periods: Array<{ contractId: number; periodStart: string }>, now = clock()): Promise<void> {
      // The job holds its rows while it runs: a lease renewed every third of its length (LEASE_SECONDS).
      await repo.leasePeriods(db, periods, LEASE_SECONDS);
      const renew = setInterval(() => void repo.leasePeriods(db, periods, LEASE_SECONDS).catch(() => undefined), (LEASE_SECONDS * 1000) / 3);
      try {
        await this.issueLeased(periods, now);
      } finally {
        clearInterval(renew);
      }
    },
    async issueLeased(periods: Array<{ contractId: number; periodStart: string }>, now: Date): Promise<void> {
      // One read each for the rows, the terms and the contracts of the whole job.
      const rows = (await repo.findPeriods(db, periods)).filter((r) => r.status === 'pendiente' || r.status === 'error');
      const ids = [...new Set(rows.map((r) => r.contractId))];
      const terms = new Map((await repo.findTermsMany(db, ids)).map((t) => [t.contractId, t]));
      const contracts = new Map((await deps.usage.contracts(ids)).map((c) => [c.id, c]));
      let next = 0;
      const failures: unknown[] = [];
      const lane = async () => {
        while (next < rows.length) {
          const row = rows[next++]!;
          await issueOne(row, terms.get(row.contractId)!, now, contracts.get(row.contractId)).catch((err: unknown) => failures.push(err));
        }
      };
      await Promise.all(Array.from({ length: Math.min(ISSUE_CONCURRENCY, rows.length) }, lane));
      if (failures.length) throw failures[0];
    },

    /** POST /contracts/{id}/periods/{desde}/correct: re-rates a closed period and issues the notes the difference needs. */
    async correct(actor: Actor | undefined, contractId: number, periodStart: string, now = clock()) {
      if (actor) await deps.loadContract(actor, contractId, 'emisor');
      return correctPeriod(contractId, periodStart, now);
    },
  };
}
export type PeriodCloseService = ReturnType<typeof createPeriodCloseService>;
