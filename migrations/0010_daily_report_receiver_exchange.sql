CREATE TABLE "receiver_acks" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"envelope_id" bigint,
	"tipo" varchar(8) NOT NULL,
	"rut_receptor" varchar(12) NOT NULL,
	"id_respuesta" text,
	"xml" text NOT NULL,
	"user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "receiver_envelopes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"customer_id" integer,
	"rut_receptor" varchar(12) NOT NULL,
	"email" text,
	"cfe_ids" jsonb NOT NULL,
	"xml" text NOT NULL,
	"file_name" text NOT NULL,
	"estado" varchar(10) NOT NULL,
	"intentos" integer DEFAULT 0 NOT NULL,
	"ultimo_error" text,
	"message_id" text,
	"enviado_en" timestamp with time zone,
	"ack_motivos" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "receiver_acks" ADD CONSTRAINT "receiver_acks_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receiver_envelopes" ADD CONSTRAINT "receiver_envelopes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "receiver_acks_company_idx" ON "receiver_acks" USING btree ("company_id","id");--> statement-breakpoint
CREATE INDEX "receiver_envelopes_company_idx" ON "receiver_envelopes" USING btree ("company_id","id");