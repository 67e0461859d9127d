ALTER TABLE "contract_periods" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "contract_periods" ADD COLUMN "late_usage_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "contract_periods" ADD COLUMN "late_corrected_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "contract_terms" ADD COLUMN "close_alert" text;--> statement-breakpoint
ALTER TABLE "usage_settings" ADD COLUMN "late_usage_policy" text DEFAULT 'marcar' NOT NULL;--> statement-breakpoint
CREATE INDEX "contract_periods_pending_idx" ON "contract_periods" USING btree ("lease_until") WHERE "contract_periods"."status" = 'pendiente';