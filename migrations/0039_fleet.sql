CREATE TABLE "service_processes" (
	"id" serial PRIMARY KEY NOT NULL,
	"lock_key" integer NOT NULL,
	"kind" text NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"job_pool_id" text,
	"jwt_fingerprint" text NOT NULL,
	"master_key_fingerprint" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "service_processes_lockKey_unique" UNIQUE("lock_key")
);
--> statement-breakpoint
-- Hand-edited (issue 45): company_id, the distribution column of a sharded database, added to the two large child
-- tables that lacked it; nullable first, backfilled from the parent row, then NOT NULL.
ALTER TABLE "dgi_envelope_items" ADD COLUMN "company_id" integer;--> statement-breakpoint
UPDATE "dgi_envelope_items" i SET "company_id" = e."company_id" FROM "dgi_envelopes" e WHERE e."id" = i."envelope_id";--> statement-breakpoint
ALTER TABLE "dgi_envelope_items" ALTER COLUMN "company_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "company_id" integer;--> statement-breakpoint
UPDATE "webhook_attempts" a SET "company_id" = d."company_id" FROM "webhook_deliveries" d WHERE d."id" = a."delivery_id";--> statement-breakpoint
ALTER TABLE "webhook_attempts" ALTER COLUMN "company_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "dgi_envelope_items" ADD CONSTRAINT "dgi_envelope_items_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;