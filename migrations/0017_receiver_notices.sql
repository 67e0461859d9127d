CREATE TABLE "receiver_notice_cfes" (
	"issued_cfe_id" bigint PRIMARY KEY NOT NULL,
	"notice_id" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "receiver_notices" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"rut_receptor" varchar(12) NOT NULL,
	"email" text NOT NULL,
	"cfe_ids" jsonb NOT NULL,
	"xml" text NOT NULL,
	"file_name" text NOT NULL,
	"estado" varchar(10) NOT NULL,
	"intentos" integer DEFAULT 0 NOT NULL,
	"ultimo_error" text,
	"message_id" text,
	"enviado_en" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "receiver_notice_cfes" ADD CONSTRAINT "receiver_notice_cfes_notice_id_receiver_notices_id_fk" FOREIGN KEY ("notice_id") REFERENCES "public"."receiver_notices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receiver_notices" ADD CONSTRAINT "receiver_notices_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "receiver_notice_cfes_notice_idx" ON "receiver_notice_cfes" USING btree ("notice_id");--> statement-breakpoint
CREATE INDEX "receiver_notices_company_idx" ON "receiver_notices" USING btree ("company_id","id");