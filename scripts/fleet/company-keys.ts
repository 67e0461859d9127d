/**
 * One more fleet invariant (issue 45 point 4): a row's parent belongs to the row's own company. Every
 * company-owned table carries `company_id` (test/platform/company-key.int.test.ts); here, after the load,
 * each single-column foreign key between two such tables is followed and the rows whose parent names
 * another company are counted. That is also what a database sharded by company needs: a child and its
 * parent on the same shard.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/platform/db/client.js';

export type CompanyLink = { child: string; column: string; parent: string; parentColumn: string };

/** Child columns that point at a parent without a foreign key (contract-billing keys its rows by the usage contract's id). */
const WITHOUT_FOREIGN_KEY: CompanyLink[] = [
  { child: 'contract_period_notes', column: 'contract_id', parent: 'usage_contracts', parentColumn: 'id' },
  { child: 'usage_rollup_values', column: 'contract_id', parent: 'usage_contracts', parentColumn: 'id' },
];

/** Every column of a company-owned table that points at a row of another company-owned table (foreign keys and the list above). */
export async function companyLinks(db: Database['db']): Promise<CompanyLink[]> {
  const { rows } = await db.execute<CompanyLink>(sql`
    select c.relname as child, a.attname as column, p.relname as parent, pa.attname as "parentColumn"
    from pg_constraint k
    join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
    join pg_attribute a on a.attrelid = k.conrelid and a.attnum = k.conkey[1]
    join pg_attribute pa on pa.attrelid = k.confrelid and pa.attnum = k.confkey[1]
    where k.contype = 'f' and array_length(k.conkey, 1) = 1 and a.attname <> 'company_id'
      and c.relnamespace = 'public'::regnamespace
      and exists (select 1 from pg_attribute x where x.attrelid = k.conrelid and x.attname = 'company_id' and not x.attisdropped)
      and exists (select 1 from pg_attribute x where x.attrelid = k.confrelid and x.attname = 'company_id' and not x.attisdropped)
    order by 1, 2`);
  return [...rows, ...WITHOUT_FOREIGN_KEY];
}

export async function auditCompanyKeys(db: Database['db']): Promise<{ name: string; ok: boolean; detail: string }> {
  const all = await companyLinks(db);
  const wrong: string[] = [];
  let checked = 0;
  for (const l of all) {
    const { rows } = await db.execute<{ rows: number; other: number }>(sql.raw(`
      select count(*)::int as rows, count(*) filter (where c.company_id <> p.company_id)::int as other
      from "${l.child}" c join "${l.parent}" p on p."${l.parentColumn}" = c."${l.column}"`));
    checked += rows[0]!.rows;
    if (rows[0]!.other > 0) wrong.push(`${l.child}.${l.column} → ${l.parent}: ${rows[0]!.other}`);
  }
  return {
    name: "every row's parent belongs to the row's company (each foreign key between company-owned tables)",
    ok: wrong.length === 0,
    detail: wrong.length ? `other company's parent: ${wrong.join('; ')}` : `${all.length} links, ${checked} rows, none points at another company's row`,
  };
}
