ALTER TABLE "inbound_mails" ALTER COLUMN "clase" SET DATA TYPE varchar(24);--> statement-breakpoint
ALTER TABLE "received_answers" ADD COLUMN "message_id" text;--> statement-breakpoint
ALTER TABLE "received_answers" ADD COLUMN "transporte" varchar(10);--> statement-breakpoint
ALTER TABLE "receiver_acks" ADD COLUMN "estado" varchar(10) DEFAULT 'aplicada' NOT NULL;--> statement-breakpoint
ALTER TABLE "receiver_acks" ADD COLUMN "canal" varchar(12) DEFAULT 'importacion' NOT NULL;--> statement-breakpoint
ALTER TABLE "receiver_acks" ADD COLUMN "codigo" varchar(64);--> statement-breakpoint
ALTER TABLE "receiver_acks" ADD COLUMN "error" text;--> statement-breakpoint
ALTER TABLE "receiver_acks" ADD COLUMN "cfe_ids" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "receiver_envelopes" ADD COLUMN "transporte" varchar(10);--> statement-breakpoint
ALTER TABLE "receiver_notices" ADD COLUMN "transporte" varchar(10);--> statement-breakpoint
CREATE INDEX "inbound_mails_company_read_idx" ON "inbound_mails" USING btree ("company_id","leido_en");--> statement-breakpoint
CREATE INDEX "receiver_acks_envelope_idx" ON "receiver_acks" USING btree ("envelope_id");