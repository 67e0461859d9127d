ALTER TABLE "contract_periods" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "contract_periods" ADD COLUMN "late_usage_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "contract_periods" ADD COLUMN "late_corrected_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "contract_terms" ADD COLUMN "close_alert" text;--> statement-breakpoint
ALTER TABLE "usage_contracts" ADD COLUMN "period_anchor_day" integer;--> statement-breakpoint
ALTER TABLE "usage_contracts" ADD COLUMN "billed_until" date;--> statement-breakpoint
ALTER TABLE "usage_settings" ADD COLUMN "late_usage_policy" text DEFAULT 'marcar' NOT NULL;--> statement-breakpoint
CREATE INDEX "contract_periods_pending_idx" ON "contract_periods" USING btree ("lease_until") WHERE "contract_periods"."status" = 'pendiente';--> statement-breakpoint
-- Hand-written: contracts that had terms before this migration get their anchor day, and the first day not yet closed when a period was closed (issue 40 point 6).
UPDATE "usage_contracts" c SET "period_anchor_day" = t."anchor_day",
  "billed_until" = CASE WHEN EXISTS (SELECT 1 FROM "contract_periods" p WHERE p."contract_id" = t."contract_id") THEN t."open_period_start" END
FROM "contract_terms" t WHERE t."contract_id" = c."id";
