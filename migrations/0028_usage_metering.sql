CREATE TABLE "usage_contracts" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"customer_id" integer NOT NULL,
	"external_id" text NOT NULL,
	"state" text DEFAULT 'activo' NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone,
	"metric_ids" integer[] NOT NULL,
	"state_since" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_event_keys" (
	"company_id" integer NOT NULL,
	"transaction_id" text NOT NULL,
	"content_hash" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "usage_event_keys_company_id_transaction_id_pk" PRIMARY KEY("company_id","transaction_id")
);
--> statement-breakpoint
CREATE TABLE "usage_events" (
	"company_id" integer NOT NULL,
	"contract_id" integer NOT NULL,
	"metric_id" integer NOT NULL,
	"transaction_id" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"properties" jsonb NOT NULL,
	"value" numeric
) PARTITION BY RANGE ("occurred_at");
--> statement-breakpoint
CREATE TABLE "usage_metrics" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"unit" text NOT NULL,
	"aggregation" text NOT NULL,
	"property" text,
	"group_keys" text[] DEFAULT '{}' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_rollup_values" (
	"contract_id" integer NOT NULL,
	"metric_id" integer NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"group_key" text NOT NULL,
	"value" text NOT NULL,
	"groups" jsonb NOT NULL,
	CONSTRAINT "usage_rollup_values_contract_id_metric_id_bucket_group_key_value_pk" PRIMARY KEY("contract_id","metric_id","bucket","group_key","value")
);
--> statement-breakpoint
CREATE TABLE "usage_rollups" (
	"contract_id" integer NOT NULL,
	"metric_id" integer NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"group_key" text NOT NULL,
	"slot" integer DEFAULT 0 NOT NULL,
	"company_id" integer NOT NULL,
	"groups" jsonb NOT NULL,
	"event_count" bigint NOT NULL,
	"value_sum" numeric,
	"value_max" numeric,
	"latest_at" timestamp with time zone,
	"latest_transaction_id" text,
	"latest_value" numeric,
	CONSTRAINT "usage_rollups_contract_id_metric_id_bucket_group_key_slot_pk" PRIMARY KEY("contract_id","metric_id","bucket","group_key","slot")
);
--> statement-breakpoint
CREATE TABLE "usage_settings" (
	"company_id" integer PRIMARY KEY NOT NULL,
	"grace_hours" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "usage_contracts" ADD CONSTRAINT "usage_contracts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_contracts" ADD CONSTRAINT "usage_contracts_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_metrics" ADD CONSTRAINT "usage_metrics_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_settings" ADD CONSTRAINT "usage_settings_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "usage_contracts_company_external_uq" ON "usage_contracts" USING btree ("company_id","external_id");--> statement-breakpoint
CREATE INDEX "usage_contracts_customer_idx" ON "usage_contracts" USING btree ("customer_id");--> statement-breakpoint
CREATE INDEX "usage_event_keys_received_idx" ON "usage_event_keys" USING btree ("received_at");--> statement-breakpoint
CREATE INDEX "usage_events_contract_idx" ON "usage_events" USING btree ("contract_id","occurred_at");--> statement-breakpoint
CREATE UNIQUE INDEX "usage_metrics_company_code_uq" ON "usage_metrics" USING btree ("company_id","code");--> statement-breakpoint
CREATE INDEX "usage_rollups_unfolded_idx" ON "usage_rollups" USING btree ("bucket") WHERE "usage_rollups"."slot" <> 0;--> statement-breakpoint
-- Hand-written (issue 33 point 4): usage_events is partitioned by month of occurred_at (UTC). This
-- function creates the monthly partitions covering [p_from, p_to]; the daily usage_maintenance job
-- calls it ahead of time and drops partitions older than USAGE_RAW_RETENTION_DAYS. The default
-- partition only catches rows no monthly partition covers; they move out when their month's partition is made.
CREATE FUNCTION usage_events_ensure_partitions(p_from timestamptz, p_to timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  m timestamptz := date_trunc('month', p_from AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  nxt timestamptz;
  created integer := 0;
  name text;
BEGIN
  WHILE m <= p_to LOOP
    name := 'usage_events_p' || to_char(m AT TIME ZONE 'UTC', 'YYYYMM');
    nxt := (m AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC';
    IF to_regclass(name) IS NULL THEN
      -- Rows the default partition caught for this month move into the new partition first
      -- (attaching a range the default partition still holds rows of would fail).
      EXECUTE format('CREATE TABLE %I (LIKE usage_events INCLUDING DEFAULTS)', name);
      EXECUTE format('WITH moved AS (DELETE FROM usage_events_default WHERE occurred_at >= %L AND occurred_at < %L RETURNING *) INSERT INTO %I SELECT * FROM moved', m, nxt, name);
      EXECUTE format('ALTER TABLE usage_events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name, m, nxt);
      created := created + 1;
    END IF;
    m := nxt;
  END LOOP;
  RETURN created;
END $$;--> statement-breakpoint
CREATE TABLE "usage_events_default" PARTITION OF "usage_events" DEFAULT;--> statement-breakpoint
SELECT usage_events_ensure_partitions(now() - interval '3 months', now() + interval '2 months');
