-- Number claims of API processes issuing for the same CAE range (issue 45; cae.tables.ts caeRangeClaims):
-- hints that let several processes sign ahead with disjoint numbers instead of signing under the
-- range's row lock after each other's forecasts missed. The numbers are still taken only by the
-- emission statement, under cae_ranges.next_number. Keyed by company first (the sharding route,
-- docs/DEPLOYMENT.md).
CREATE TABLE "cae_range_claims" (
	"company_id" integer NOT NULL,
	"cae_range_id" integer NOT NULL,
	"next_free" integer NOT NULL,
	CONSTRAINT "cae_range_claims_pk" PRIMARY KEY("company_id","cae_range_id")
);
--> statement-breakpoint
ALTER TABLE "cae_range_claims" ADD CONSTRAINT "cae_range_claims_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cae_range_claims" ADD CONSTRAINT "cae_range_claims_cae_range_id_cae_ranges_id_fk" FOREIGN KEY ("cae_range_id") REFERENCES "public"."cae_ranges"("id") ON DELETE cascade ON UPDATE no action;