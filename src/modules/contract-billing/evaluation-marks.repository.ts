/**
 * The SQL of the durable rule-evaluation marks (rule_evaluation_marks, evaluation-queue.ts): write
 * before a batch is stored, delete after an evaluation, take over a dead process's. Generations
 * travel as text (int8).
 */
import { sql } from 'drizzle-orm';
import { executePrepared, type Db, type DbOrTx } from '../../platform/db/client.js';

export interface Mark { contractId: number; owner: string; generation: string }

/**
 * Marks, for `owner`, those of the contracts that have usage rules (a new generation and `marked_at`
 * now when the mark is there already), in one statement; answers the marks written. Contracts not
 * answered have no rules (or no terms). A named prepared statement: it runs on ingestion's path.
 */
export async function writeMarks(db: Db, owner: string, contractIds: number[]): Promise<Array<{ contractId: number; generation: string }>> {
  const res = await executePrepared<{ contract_id: number; generation: string }>(db, sql`
    insert into rule_evaluation_marks as m (contract_id, owner, company_id)
    select contract_id, ${owner}::uuid, company_id from contract_terms
    where contract_id = any(${sql.param(contractIds)}::int[]) and jsonb_array_length(rules) > 0
    order by contract_id
    on conflict (contract_id, owner) do update set generation = default, marked_at = now()
    returning m.contract_id, m.generation::text as generation`);
  return res.rows.map((r) => ({ contractId: r.contract_id, generation: r.generation }));
}

/** Deletes these marks where they still have the generation given (a mark written since stays). */
export async function deleteMarks(db: DbOrTx, marks: Mark[]): Promise<void> {
  if (!marks.length) return;
  await db.execute(sql`delete from rule_evaluation_marks m
    using unnest(${sql.param(marks.map((k) => k.contractId))}::int[], ${sql.param(marks.map((k) => k.owner))}::uuid[], ${sql.param(marks.map((k) => k.generation))}::int8[]) as x(contract_id, owner, generation)
    where m.contract_id = x.contract_id and m.owner = x.owner and m.generation = x.generation`);
}

/**
 * Takes up to `limit` marks last written over `staleSeconds` ago (their process died or is stuck):
 * leases them by setting `marked_at` to now, so another sweep leaves them for `staleSeconds` (and
 * takes them again if this one dies too); rows another sweep is taking are skipped. The generation
 * is kept, so the owner's own delete still matches if it is alive after all.
 */
export async function claimStaleMarks(db: DbOrTx, staleSeconds: number, limit: number): Promise<Mark[]> {
  const res = await db.execute(sql`
    with stale as (
      select contract_id, owner from rule_evaluation_marks
      where marked_at < now() - make_interval(secs => ${staleSeconds})
      order by marked_at limit ${limit}
      for update skip locked
    )
    update rule_evaluation_marks m set marked_at = now() from stale s
    where m.contract_id = s.contract_id and m.owner = s.owner
    returning m.contract_id, m.owner::text as owner, m.generation::text as generation`);
  return (res.rows as Array<{ contract_id: number; owner: string; generation: string }>).map((r) => ({ contractId: r.contract_id, owner: r.owner, generation: r.generation }));
}
