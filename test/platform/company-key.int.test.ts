/**
 * The route to a PostgreSQL sharded by company (issue 45 point 4, docs/DEPLOYMENT.md): a table that
 * holds a company's data must carry `company_id`, the distribution column, so that its rows, keys
 * and joins stay on the company's shard. Read from the migrated database's catalogue: a new table
 * without `company_id` fails here until it is declared global (a reference table, replicated to
 * every shard) or listed among the known gaps the document lists as work before sharding.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { cloneTemplate } from '../support/app.js';

/** Not company data: replicated whole to every shard (Citus reference tables) or kept on the coordinator. */
const GLOBAL = {
  companies: 'the distribution key itself (companies.id)',
  users: 'a user may belong to several companies',
  refresh_tokens: "a user's sessions",
  password_reset_tokens: "a user's password resets",
  cfe_export_configs: "a user's export columns (company_scope inside)",
  received_cfe_export_configs: "a user's export columns (company_scope inside)",
  dgi_electronic_issuers: "DGI's registry of electronic issuers",
  dgi_issuer_registry_sync: 'the registry sync state (one row)',
  service_processes: 'the processes of the fleet',
} as const;

/** Company-owned child tables keyed by their parent's id only: each needs company_id (backfilled from the parent) before sharding. */
export const KNOWN_GAPS = {
  branch_dgi_codes: 'branches', branch_logos: 'branches', cae_daily_usage: 'cae_ranges', cfc_used_numbers: 'cfc ranges',
  contract_period_notes: 'contracts', price_book_prices: 'price book versions',
  received_cfe_history: 'received_cfes', receiver_notice_cfes: 'receiver notices', recurring_plan_versions: 'recurring_plans',
  usage_rollup_values: 'usage rollups',
} as const;

describe('happy path', () => {
  test('every table carries company_id, or is declared global, or is a listed gap', async () => {
    const client = new pg.Client({ connectionString: await cloneTemplate() });
    await client.connect();
    try {
      const { rows } = await client.query<{ table: string; has: boolean }>(`
        select c.relname as table, exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'company_id' and not a.attisdropped) as has
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition and c.relname not like '__drizzle%'`);
      const missing = rows.filter((r) => !r.has).map((r) => r.table).sort();
      const undeclared = missing.filter((t) => !(t in GLOBAL) && !(t in KNOWN_GAPS));
      assert.deepEqual(undeclared, [], 'tables without company_id: add it (company data) or declare them in GLOBAL');
      // A gap closed (company_id added) must leave the list, so the list stays the work left.
      assert.deepEqual(Object.keys(KNOWN_GAPS).filter((t) => !missing.includes(t)), []);
      assert.deepEqual(Object.keys(GLOBAL).filter((t) => !rows.some((r) => r.table === t)), [], 'a GLOBAL table that no longer exists');
    } finally {
      await client.end();
    }
  });
});
