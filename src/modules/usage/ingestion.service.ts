/**
 * POST /api/v1/usage-events (issue 33 point 2): each event of a batch gets its own outcome —
 * aceptado, duplicado (same idTransaccion, same content: a retry), conflicto (same idTransaccion,
 * other content: refused) or rechazado (with a reason). One bad event never drops the good ones.
 * Rejected events do not reserve their idTransaccion: they can be corrected and sent again.
 */
import { usageEventsCounter } from '../../platform/metrics.js';
import type { Db } from '../../platform/db/client.js';
import type { Actor } from '../../platform/http/actor.js';
import type { CacheInvalidation } from '../../platform/db/invalidation.js';
import { createBatchDefs } from './batch-defs.js';
import * as repo from './ingestion.repository.js';
import { admissibleFrom, checkEvent, eventItem, isPlainValidItem, MAX_BATCH, type PreparedEvent, type RejectionReason } from './usage.rules.js';
import { usageErrors } from './usage.errors.js';
import { companyFor } from './usage.access.js';

export type Outcome = 'aceptado' | 'duplicado' | 'conflicto' | 'rechazado';
export interface EventResult { indice: number; idTransaccion: string | null; estado: Outcome; codigo?: RejectionReason | 'conflicto'; error?: string; periodoCerrado?: true; aviso?: string }

/** What an accepted event that falls in a closed period adds to its outcome (issue 40 point 6). */
const LATE = {
  periodoCerrado: true,
  aviso: 'El evento cae en un período del contrato ya cerrado: se contó como uso tardío de ese período, que queda marcado (GET /contracts/{id}/periods); se factura con una corrección (POST .../correct, o al próximo cierre si usoTardio es automatica).',
} as const;

/** PostgreSQL deadlock / serialization failure: the whole statement rolled back and may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);

/** Rollup slots (usage.tables.ts): batches in flight in this process each hold a different one. */
export const SLOTS = 16;

export interface IngestionDeps {
  db: Db;
  defaultGraceHours: number;
  /** Changes to contracts, metrics and settings (topic `usage`): without it nothing is kept between batches. */
  invalidation?: CacheInvalidation;
  /**
   * Called with the events a batch counted (new ids only), after they are stored: where contract
   * billing marks the closed periods late events fell in. A failure here fails the request after the
   * events were counted; a retry then answers duplicado, so nothing that must happen may rely on it
   * alone (rule evaluations go through `beforeStore`).
   */
  afterStore?: (companyId: number, events: PreparedEvent[]) => Promise<void>;
  /**
   * Called with the events a batch is about to store (every candidate: which ids are new is not known
   * yet), awaited before the store: where contract billing makes the rule evaluation they may need
   * durable before they commit (issue 45), so a process killed right after the commit leaves it
   * behind. A failure fails the batch with nothing stored. Answers what to call once the batch is
   * over, stored or not (after `afterStore`).
   */
  beforeStore?: (companyId: number, events: PreparedEvent[]) => Promise<() => void>;
}

export function createIngestionService(deps: IngestionDeps) {
  const { db } = deps;
  const batchDefs = createBatchDefs(db, deps.invalidation);
  const freeSlots = Array.from({ length: SLOTS }, (_, i) => SLOTS - i);

  async function store(companyId: number, events: PreparedEvent[]): Promise<repo.Stored> {
    // Beyond SLOTS batches at once, two may share a slot: they then wait on each other's row locks, nothing worse.
    const slot = freeSlots.pop();
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return await repo.storeNewEvents(db, companyId, slot ?? 1 + Math.floor(Math.random() * SLOTS), events);
        } catch (err) {
          if (attempt >= 3 || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
        }
      }
    } finally {
      if (slot !== undefined) freeSlots.push(slot);
    }
  }

  /** Stores a batch's candidates (once more those a rolled-back batch had taken), writes their outcomes into `results`, runs `afterStore`. */
  async function storeAndJudge(companyId: number, batch: PreparedEvent[], results: EventResult[]) {
    const first = await store(companyId, batch);
    let fresh = first.fresh;
    let stored = first.seen;
    let taken = batch.filter((e) => !fresh.has(e.transactionId));
    // Taken by a batch that committed after the statement began: not in its snapshot, read now.
    const unseen = taken.filter((e) => !stored.has(e.transactionId));
    if (unseen.length) for (const [id, hash] of await repo.storedHashes(db, companyId, unseen.map((e) => e.transactionId))) stored.set(id, hash);
    // An id taken by a batch that then rolled back is free again: store those once more.
    const vanished = taken.filter((e) => !stored.has(e.transactionId));
    if (vanished.length) {
      const again = await store(companyId, vanished);
      fresh = new Set([...fresh, ...again.fresh]);
      taken = taken.filter((e) => !again.fresh.has(e.transactionId));
      stored = new Map([...stored, ...again.seen, ...(await repo.storedHashes(db, companyId, taken.map((e) => e.transactionId)))]);
    }
    const judge = (e: PreparedEvent, storedHash: string | undefined): EventResult =>
      storedHash === e.hash
        ? { indice: e.index, idTransaccion: e.transactionId, estado: 'duplicado' }
        : { indice: e.index, idTransaccion: e.transactionId, estado: 'conflicto', codigo: 'conflicto', error: 'Ya se registró un evento con este idTransaccion y otro contenido; este no se contó.' };
    for (const e of batch) results[e.index] = fresh.has(e.transactionId) ? { indice: e.index, idTransaccion: e.transactionId, estado: 'aceptado', ...(e.late ? LATE : {}) } : judge(e, stored.get(e.transactionId));
    if (deps.afterStore && fresh.size) await deps.afterStore(companyId, batch.filter((e) => fresh.has(e.transactionId)));
    return { fresh, stored, judge };
  }

  return {
    async ingest(actor: Actor, idEmpresa: number | undefined, items: unknown[], now = new Date()) {
      const companyId = companyFor(actor, idEmpresa, 'emisor');
      if (items.length > MAX_BATCH) throw usageErrors.USO_LOTE_EXCEDIDO(undefined, { eventos: items.length, maximo: MAX_BATCH });
      const results: EventResult[] = new Array(items.length);
      const parsed = items.map((raw, i) => {
        if (isPlainValidItem(raw)) return raw;
        const r = eventItem.safeParse(raw);
        if (r.success) return r.data;
        const tx = typeof (raw as { idTransaccion?: unknown })?.idTransaccion === 'string' ? (raw as { idTransaccion: string }).idTransaccion : null;
        const why = r.error.issues.map((x) => `${x.path.join('.') || 'evento'}: ${x.message}`).join('; ');
        results[i] = { indice: i, idTransaccion: tx, estado: 'rechazado', codigo: 'formato_invalido', error: `Evento mal formado: ${why}` };
        return undefined;
      });
      const valid = parsed.filter((e) => e !== undefined);
      const defs = await batchDefs.forBatch(companyId,
        [...new Set(valid.flatMap((e) => (e.idContrato ? [e.idContrato] : [])))],
        [...new Set(valid.flatMap((e) => (e.idExternoContrato ? [e.idExternoContrato] : [])))],
        [...new Set(valid.map((e) => e.metrica))]);
      const grace = defs.graceHours ?? deps.defaultGraceHours;
      const from = admissibleFrom(now, grace);
      // Grace follows each contract's own period (its anchor day); calendar months without terms.
      const fromByAnchor = new Map<number, Date>();
      const fromOf = (anchorDay: number | null | undefined) => {
        if (!anchorDay || anchorDay === 1) return from;
        let f = fromByAnchor.get(anchorDay);
        if (!f) fromByAnchor.set(anchorDay, (f = admissibleFrom(now, grace, anchorDay)));
        return f;
      };

      // First valid occurrence of each id in the batch is the candidate; later ones are judged against it.
      const candidates = new Map<string, PreparedEvent>();
      const repeats: PreparedEvent[] = [];
      parsed.forEach((e, i) => {
        if (!e) return;
        const contract = (e.idContrato !== undefined ? defs.byId.get(e.idContrato) : defs.byExternal.get(e.idExternoContrato!)) ?? undefined;
        const checked = checkEvent(i, e, { contract, metric: defs.metrics.get(e.metrica) ?? undefined, now, admissibleFrom: fromOf(contract?.anchorDay) });
        if (!checked.ok) {
          results[i] = { indice: i, idTransaccion: e.idTransaccion, estado: 'rechazado', codigo: checked.reason, error: checked.message };
        } else if (candidates.has(e.idTransaccion)) {
          repeats.push(checked.event);
        } else {
          candidates.set(e.idTransaccion, checked.event);
        }
      });
      const batch = [...candidates.values()].sort((a, b) => (a.transactionId < b.transactionId ? -1 : a.transactionId > b.transactionId ? 1 : 0));
      const done = deps.beforeStore && batch.length ? await deps.beforeStore(companyId, batch) : undefined;
      let judged: Awaited<ReturnType<typeof storeAndJudge>>;
      try {
        judged = await storeAndJudge(companyId, batch, results);
      } finally {
        done?.();
      }
      const { fresh, stored, judge } = judged;
      for (const e of repeats) results[e.index] = judge(e, fresh.has(e.transactionId) ? candidates.get(e.transactionId)!.hash : stored.get(e.transactionId));

      const count = (s: Outcome) => results.filter((r) => r.estado === s).length;
      const answer = { resultados: results, aceptados: count('aceptado'), duplicados: count('duplicado'), conflictos: count('conflicto'), rechazados: count('rechazado') };
      usageEventsCounter.inc({ estado: 'aceptado' }, answer.aceptados);
      usageEventsCounter.inc({ estado: 'duplicado' }, answer.duplicados);
      usageEventsCounter.inc({ estado: 'conflicto' }, answer.conflictos);
      usageEventsCounter.inc({ estado: 'rechazado' }, answer.rechazados);
      return answer;
    },
  };
}
export type IngestionService = ReturnType<typeof createIngestionService>;
