/**
 * What contract billing (issue 34, module contract-billing) reads and changes in usage metering,
 * without HTTP or actors: a contract's row, its metrics and their period usage (from the rollups,
 * as the usage query reads them), its grace, and the state the usage rules give it.
 */
import { Decimal } from 'decimal.js';
import { eq, inArray, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { queryUsage } from './usage-query.repository.js';
import * as repo from './usage.repository.js';
import { USAGE_TIME_ZONE } from './usage.rules.js';
import { usageContracts, type Aggregation, type ContractState } from './usage.tables.js';

export interface PeriodMetric { id: number; code: string; aggregation: Aggregation; groupKeys: string[] }
export interface MetricUsageRow { grupo: Record<string, string | null>; cantidad: string }

export function createUsageBillingPort(deps: { db: Db; defaultGraceHours: number }) {
  const { db } = deps;
  return {
    contract: (id: number) => repo.findContract(db, id),
    async contracts(ids: number[]) {
      if (!ids.length) return [];
      return db.select().from(usageContracts).where(inArray(usageContracts.id, ids));
    },
    graceHours: async (companyId: number) => (await repo.graceHoursOf(db, companyId)) ?? deps.defaultGraceHours,
    /** What the company chose for usage that arrives after its period closed (usage_settings.lateUsagePolicy). */
    lateUsagePolicy: async (companyId: number) => (await repo.settingsOf(db, companyId))?.lateUsagePolicy ?? 'marcar',
    /** The contract's metrics, by code. */
    async metrics(contract: { metricIds: number[] }): Promise<PeriodMetric[]> {
      return (await repo.metricsByIds(db, contract.metricIds)).map((m) => ({ id: m.id, code: m.code, aggregation: m.aggregation, groupKeys: m.groupKeys }));
    },
    /**
     * One metric's usage of [start, end) with the metric's own aggregation, exactly as
     * GET /contracts/{id}/usage answers it: one row per value combination of `groupBy` (one row,
     * or none without usage, when empty), optionally over the events of the groups in `only` alone.
     */
    async metricUsage(contractId: number, metric: PeriodMetric, start: Date, end: Date, groupBy: string[], only?: { keys: string[]; groups: Array<Record<string, string | null>> }): Promise<MetricUsageRow[]> {
      const rows = await queryUsage(db, {
        contractId, metric: { id: metric.id, aggregation: metric.aggregation }, start, end, groupBy, window: null, zone: USAGE_TIME_ZONE,
        ...(only ? { only } : {}),
      });
      return rows.map((r) => ({ grupo: r.grupo, cantidad: new Decimal(r.cantidad).toFixed() }));
    },
    /** The contract's anchor day (grace follows its period), in the caller's transaction. */
    async setAnchorDay(tx: DbOrTx, id: number, anchorDay: number) {
      await tx.update(usageContracts).set({ periodAnchorDay: anchorDay }).where(eq(usageContracts.id, id));
    },
    /** The first day not yet closed of each contract (events before it are late usage), in the caller's transaction. */
    async setBilledUntil(tx: DbOrTx, items: Array<{ id: number; billedUntil: string }>) {
      if (!items.length) return;
      await tx.execute(sql`update usage_contracts c set billed_until = x."billedUntil"
        from jsonb_to_recordset(${JSON.stringify(items)}::jsonb) as x(id int, "billedUntil" date)
        where c.id = x.id and (c.billed_until is null or c.billed_until < x."billedUntil")`);
    },
    /** The state usage rules or a billing action gave the contract, in the caller's transaction. */
    async setState(tx: DbOrTx, id: number, state: ContractState, at: Date) {
      await tx.update(usageContracts).set({ state, stateSince: at, updatedAt: at }).where(eq(usageContracts.id, id));
    },
  };
}
export type UsageBillingPort = ReturnType<typeof createUsageBillingPort>;
