/**
 * DGI's registry of electronic issuers, kept locally (BRIEF 7 and 8): the scheduled sync asks
 * EFACCONSULTARRUCEMISORES (compressed variant by default) for the entries changed since the last
 * run and upserts them; the first run downloads the whole registry. Other modules read the local
 * copy: the exchange with receivers (is a customer an electronic issuer, its exchange address)
 * and the tax-benefit declarations (a company's start date as an issuer).
 * No HTTP here; the sync signs with the certificate of a company that has one (DGI answers
 * consultas only to signed requests from an issuer).
 */
import { uyToday } from '../../lib/dates.js';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { SESSION_LOCKS, withSessionLock } from '../../platform/db/session-lock.js';
import type { Logger } from '../../platform/logger.js';
import type { IssuerRegistryClient } from '../dgi/registry.soap-client.js';
import { enqueueJob } from '../../platform/jobs/queue.js';
import * as repo from './issuer-registry.repository.js';
import { syncJob } from './issuer-registry.jobs.js';

/** Filter of a full download: before the first CFE (2011). */
export const FULL_DOWNLOAD_SINCE = '2000-01-01T00:00:00';
/** The next run re-reads this much before the previous one started: DGI's clock and ours differ. */
const OVERLAP_MS = 10 * 60_000;

/** Uruguay local time (UTC−3, no DST since 2015), as DGI's date-time filters take it. */
export const uyLocal = (ms: number) => new Date(ms - 3 * 3600_000).toISOString().slice(0, 19);

export interface IssuerRegistryDeps {
  db: Db;
  logger: Logger;
  settings: { compressed: boolean };
  /** A registry client signed with the company's certificate; undefined when it has none. */
  clientFor(companyId: number): Promise<IssuerRegistryClient | undefined>;
  /** Companies able to sign the sync's query, in order of preference. */
  signers(): Promise<number[]>;
  now?: () => number;
}

export type RegistryEntry = repo.IssuerRow;
export type SyncOutcome = { status: 'ok'; count: number; changedSince: string; variant: 'comprimido' | 'plano' } | { status: 'sin_certificado' };

/** Whether the entry makes its RUC an electronic issuer on `day` (YYYY-MM-DD). */
export function isActiveIssuer(entry: Pick<RegistryEntry, 'fechaInicio' | 'fechaFin'> | undefined, day: string): boolean {
  return !!entry?.fechaInicio && entry.fechaInicio <= day && (!entry.fechaFin || entry.fechaFin >= day);
}

export function createIssuerRegistryService(deps: IssuerRegistryDeps) {
  const { db, logger } = deps;
  const now = deps.now ?? Date.now;

  return {
    /** One sync run (the job's body): incremental after the first. Transport failures throw, so the job retries. */
    async sync(): Promise<SyncOutcome> {
      const startedAt = now();
      let client: IssuerRegistryClient | undefined;
      for (const companyId of await deps.signers()) {
        client = await deps.clientFor(companyId);
        if (client) break;
      }
      if (!client) {
        await repo.saveSyncState(db, { lastRunAt: new Date(startedAt), lastError: 'Ninguna empresa tiene un certificado activo para firmar la consulta a DGI.' });
        return { status: 'sin_certificado' };
      }
      const changedSince = (await repo.syncState(db))?.changedSince ?? FULL_DOWNLOAD_SINCE;
      const compressed = deps.settings.compressed;
      let issuers;
      try {
        issuers = await client.issuers({ changedSince, compressed });
      } catch (err) {
        await repo.saveSyncState(db, { lastRunAt: new Date(startedAt), lastError: (err as Error).message });
        throw err;
      }
      await db.transaction(async (tx) => {
        await repo.upsertIssuers(tx, issuers, new Date(now()));
        await repo.saveSyncState(tx, {
          changedSince: uyLocal(startedAt - OVERLAP_MS), lastRunAt: new Date(startedAt), lastSuccessAt: new Date(now()), lastCount: issuers.length, lastError: null,
        });
      });
      return { status: 'ok', count: issuers.length, changedSince, variant: compressed ? 'comprimido' : 'plano' };
    },

    syncState: () => repo.syncState(db),

    /**
     * At process start (main.ts, worker.ts): a service that never synced queues the sync now rather
     * than at the next :17 (issue 42 point 7), so a fresh install knows DGI's registry within minutes.
     * `delayMs`: the job's own retry while no company can sign the query yet (issuer-registry.jobs.ts).
     */
    async queueInitialSync(delayMs = 0): Promise<boolean> {
      if ((await repo.syncState(db))?.lastSuccessAt) return false;
      await enqueueJob(db, syncJob, {}, { jobKey: syncJob.name, ...(delayMs ? { runAt: new Date(now() + delayMs) } : {}) });
      return true;
    },

    /**
     * The job's body: syncs when due, under a session lock so that two workers of the fleet running
     * the job at once (a cron tick and one queued by hand) sync once (issue 45); undefined = not due
     * or another process is syncing.
     */
    async syncIfDue(hourUy: number): Promise<SyncOutcome | undefined> {
      const pass = await withSessionLock(db.$client, SESSION_LOCKS.issuerRegistrySync, 0, async () => ((await this.syncDue(hourUy)) ? this.sync() : undefined));
      return pass.locked ? pass.value : undefined;
    },

    /** At `hourUy` (Uruguay time) every day, and whenever the last success is older than a day. */
    async syncDue(hourUy: number): Promise<boolean> {
      const last = (await repo.syncState(db))?.lastSuccessAt?.getTime();
      const t = now();
      return last === undefined || t - last > 24 * 3600_000 || (Number(uyLocal(t).slice(11, 13)) === hourUy && t - last > 3600_000);
    },

    /**
     * The registry's entry for `ruc`. Not in the local copy and `askAs` given: asked to DGI right
     * away (Filtro_eFacDocNro) with that company's certificate and stored; a DGI failure is
     * logged and answers undefined (the caller falls back), never an error.
     */
    async entry(ruc: string, askAs?: number): Promise<RegistryEntry | undefined> {
      const local = await repo.findIssuer(db, ruc);
      if (local || askAs === undefined) return local;
      try {
        const client = await deps.clientFor(askAs);
        if (!client) return undefined;
        const found = (await client.issuers({ changedSince: FULL_DOWNLOAD_SINCE, ruc, compressed: false })).filter((i) => i.RUC === ruc);
        if (!found.length) return undefined;
        await repo.upsertIssuers(db, found, new Date(now()));
        return repo.findIssuer(db, ruc);
      } catch (err) {
        logger.warn({ err, ruc }, 'registry of electronic issuers: lookup failed; falling back');
        return undefined;
      }
    },

    /** Entries of these RUCs in the local copy, by RUC. */
    async entries(tx: DbOrTx, rucs: string[]): Promise<Map<string, RegistryEntry>> {
      return new Map((await repo.findIssuers(tx, [...new Set(rucs)])).map((r) => [r.ruc, r]));
    },

    /** Subquery of the RUCs that are electronic issuers on `day`, for a caller's WHERE … IN. */
    activeRucs: (tx: DbOrTx, day = uyToday(now())) => repo.activeRucs(tx, day),
  };
}

export type IssuerRegistryService = ReturnType<typeof createIssuerRegistryService>;
