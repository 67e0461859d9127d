-- Hand-edited (issue 45 point 4, docs/DEPLOYMENT.md "Route to a sharded PostgreSQL"): company_id, the
-- distribution column of a database sharded by company, on the ten company-owned child tables that were keyed by
-- their parent's id only (the known gaps of test/platform/company-key.int.test.ts), as 0039 did for the two large
-- ones. drizzle-kit wrote ADD COLUMN ... NOT NULL, which fails on a table with rows: each column is added nullable,
-- filled from its parent row, then made NOT NULL, in this migration's transaction. Eight are small (rows per branch,
-- range, plan, price-book version, notice or contract period); received_cfe_history (a row per state change of a
-- received CFE) and usage_rollup_values (a row per distinct value of a distinct-count metric per bucket) grow with the
-- traffic: where they already hold millions of rows, the UPDATE rewrites each once and keeps those tables locked until
-- the migration commits, so plan that upgrade as maintenance. Every parent row exists: none of these parents is
-- deleted but a draft usage contract, which has no rollups and no periods, and no company is deleted.
ALTER TABLE "cae_daily_usage" ADD COLUMN "company_id" integer;--> statement-breakpoint
UPDATE "cae_daily_usage" c SET "company_id" = p."company_id" FROM "cae_ranges" p WHERE p."id" = c."cae_range_id";--> statement-breakpoint
ALTER TABLE "cae_daily_usage" ALTER COLUMN "company_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "cfc_used_numbers" ADD COLUMN "company_id" integer;--> statement-breakpoint
UPDATE "cfc_used_numbers" c SET "company_id" = p."company_id" FROM "cfc_ranges" p WHERE p."id" = c."cfc_range_id";--> statement-breakpoint
ALTER TABLE "cfc_used_numbers" ALTER COLUMN "company_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "branch_dgi_codes" ADD COLUMN "company_id" integer;--> statement-breakpoint
UPDATE "branch_dgi_codes" c SET "company_id" = p."company_id" FROM "branches" p WHERE p."id" = c."branch_id";--> statement-breakpoint
ALTER TABLE "branch_dgi_codes" ALTER COLUMN "company_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "branch_logos" ADD COLUMN "company_id" integer;--> statement-breakpoint
UPDATE "branch_logos" c SET "company_id" = p."company_id" FROM "branches" p WHERE p."id" = c."branch_id";--> statement-breakpoint
ALTER TABLE "branch_logos" ALTER COLUMN "company_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "contract_period_notes" ADD COLUMN "company_id" integer;--> statement-breakpoint
UPDATE "contract_period_notes" c SET "company_id" = p."company_id" FROM "usage_contracts" p WHERE p."id" = c."contract_id";--> statement-breakpoint
ALTER TABLE "contract_period_notes" ALTER COLUMN "company_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "price_book_prices" ADD COLUMN "company_id" integer;--> statement-breakpoint
UPDATE "price_book_prices" c SET "company_id" = p."company_id" FROM "price_book_versions" p WHERE p."id" = c."version_id";--> statement-breakpoint
ALTER TABLE "price_book_prices" ALTER COLUMN "company_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "received_cfe_history" ADD COLUMN "company_id" integer;--> statement-breakpoint
UPDATE "received_cfe_history" c SET "company_id" = p."company_id" FROM "received_cfes" p WHERE p."id" = c."received_cfe_id";--> statement-breakpoint
ALTER TABLE "received_cfe_history" ALTER COLUMN "company_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "receiver_notice_cfes" ADD COLUMN "company_id" integer;--> statement-breakpoint
UPDATE "receiver_notice_cfes" c SET "company_id" = p."company_id" FROM "receiver_notices" p WHERE p."id" = c."notice_id";--> statement-breakpoint
ALTER TABLE "receiver_notice_cfes" ALTER COLUMN "company_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "recurring_plan_versions" ADD COLUMN "company_id" integer;--> statement-breakpoint
UPDATE "recurring_plan_versions" c SET "company_id" = p."company_id" FROM "recurring_plans" p WHERE p."id" = c."plan_id";--> statement-breakpoint
ALTER TABLE "recurring_plan_versions" ALTER COLUMN "company_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_rollup_values" ADD COLUMN "company_id" integer;--> statement-breakpoint
UPDATE "usage_rollup_values" c SET "company_id" = p."company_id" FROM "usage_contracts" p WHERE p."id" = c."contract_id";--> statement-breakpoint
ALTER TABLE "usage_rollup_values" ALTER COLUMN "company_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "cae_daily_usage" ADD CONSTRAINT "cae_daily_usage_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cfc_used_numbers" ADD CONSTRAINT "cfc_used_numbers_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "branch_dgi_codes" ADD CONSTRAINT "branch_dgi_codes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "branch_logos" ADD CONSTRAINT "branch_logos_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "price_book_prices" ADD CONSTRAINT "price_book_prices_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "received_cfe_history" ADD CONSTRAINT "received_cfe_history_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receiver_notice_cfes" ADD CONSTRAINT "receiver_notice_cfes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recurring_plan_versions" ADD CONSTRAINT "recurring_plan_versions_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;
