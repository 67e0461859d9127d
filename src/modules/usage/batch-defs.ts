/**
 * What ingestion checks a batch against (contracts by id and by external id, metrics by code, the
 * company's grace), kept in the process between batches. Loading them was one query per batch: ~2 µs
 * of PostgreSQL and ~1.5 µs of API CPU per event, and a round trip on every batch's path. Now only
 * what a batch names and no earlier batch loaded is read, with the same query.
 *
 * Emptied whenever usage_contracts, usage_metrics or usage_settings change (trigger topic `usage`,
 * migration 0035; platform/db/invalidation.ts): in this process before the changing commit returns,
 * in other processes within milliseconds, which is no wider than the window a batch always had
 * between reading the definitions and storing its events. Names not found are kept as such too (the
 * insert that creates them empties the cache). Nothing is kept while the bus is not live (a lost
 * LISTEN connection); a company's entries expire after TTL_MS as the last safety net, and beyond
 * MAX_NAMES names the whole cache starts again.
 */
import type { Db } from '../../platform/db/client.js';
import type { CacheInvalidation } from '../../platform/db/invalidation.js';
import { loadBatchDefs } from './ingestion.repository.js';
import type { ContractDef, MetricDef } from './usage.rules.js';

const TTL_MS = 30_000;
const MAX_NAMES = 100_000;

/** A company's definitions; `null`: looked up and not found. */
export interface CompanyDefs {
  byId: Map<number, ContractDef | null>;
  byExternal: Map<string, ContractDef | null>;
  metrics: Map<string, MetricDef | null>;
  graceHours: number | null;
}
interface Entry extends CompanyDefs { expires: number }

export function createBatchDefs(db: Db, bus: CacheInvalidation | undefined, now: () => number = Date.now) {
  const companies = new Map<number, Entry>();
  let names = 0;
  // A load that began before an invalidation must not store what it read.
  let generation = 0;
  const clear = () => {
    generation++;
    companies.clear();
    names = 0;
  };
  bus?.subscribe('usage', clear);

  return {
    /** The definitions of the contracts and metrics a batch names (and of whatever else is kept). */
    async forBatch(companyId: number, contractIds: number[], externalIds: string[], metricCodes: string[]): Promise<CompanyDefs> {
      let entry = companies.get(companyId);
      if (entry && entry.expires <= now()) {
        companies.delete(companyId);
        names -= entry.byId.size + entry.byExternal.size + entry.metrics.size;
        entry = undefined;
      }
      const ids = entry ? contractIds.filter((id) => !entry!.byId.has(id)) : contractIds;
      const externals = entry ? externalIds.filter((x) => !entry!.byExternal.has(x)) : externalIds;
      const codes = entry ? metricCodes.filter((c) => !entry!.metrics.has(c)) : metricCodes;
      if (entry && !ids.length && !externals.length && !codes.length) return entry;

      const started = generation;
      const loaded = await loadBatchDefs(db, companyId, ids, externals, codes);
      const keep = started === generation && (bus?.live ?? false);
      // Kept: added to the company's entry. Not kept: this batch's own copy (with what was known before).
      const target: Entry = keep && entry && companies.get(companyId) === entry ? entry : {
        expires: now() + TTL_MS, graceHours: loaded.graceHours,
        byId: new Map(entry?.byId), byExternal: new Map(entry?.byExternal), metrics: new Map(entry?.metrics),
      };
      target.graceHours = loaded.graceHours;
      const before = target.byId.size + target.byExternal.size + target.metrics.size;
      for (const id of ids) target.byId.set(id, null);
      for (const x of externals) target.byExternal.set(x, null);
      for (const c of codes) target.metrics.set(c, null);
      for (const c of loaded.contracts) {
        target.byId.set(c.id, c);
        target.byExternal.set(c.externalId, c);
      }
      for (const m of loaded.metrics) target.metrics.set(m.code, m);
      if (keep) {
        names += target.byId.size + target.byExternal.size + target.metrics.size - before;
        if (names > MAX_NAMES) clear();
        else companies.set(companyId, target);
      }
      return target;
    },
  };
}
export type BatchDefsCache = ReturnType<typeof createBatchDefs>;
