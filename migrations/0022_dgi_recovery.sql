ALTER TABLE "dgi_envelopes" ADD COLUMN "recovery_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "dgi_envelopes" ADD COLUMN "recovered_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "issued_cfes_awaiting_dgi_idx" ON "issued_cfes" USING btree ("estado_actualizado_en") WHERE "issued_cfes"."estado" in ('en_cola_dgi', 'sobre_recibido');