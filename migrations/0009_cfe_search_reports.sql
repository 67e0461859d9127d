CREATE TABLE "daily_reports" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"fecha_resumen" date NOT NULL,
	"sec_envio" smallint NOT NULL,
	"estado" varchar(12) DEFAULT 'pendiente' NOT NULL,
	"origen" varchar(10) NOT NULL,
	"cant_comprobantes" integer NOT NULL,
	"resumen" jsonb NOT NULL,
	"tmst_firma_env" text NOT NULL,
	"xml" text NOT NULL,
	"file_name" text NOT NULL,
	"ack_estado" varchar(2),
	"motivos" jsonb,
	"ack_xml" text,
	"id_receptor" text,
	"intentos" integer DEFAULT 0 NOT NULL,
	"ultimo_error" text,
	"user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"enviado_en" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "dgi_envelope_items" (
	"envelope_id" bigint NOT NULL,
	"issued_cfe_id" bigint NOT NULL,
	"ordinal" smallint NOT NULL,
	"live" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dgi_envelopes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"id_emisor" bigint NOT NULL,
	"estado" varchar(20) DEFAULT 'creado' NOT NULL,
	"xml" text NOT NULL,
	"cant_cfe" smallint NOT NULL,
	"bytes" integer NOT NULL,
	"fecha" text NOT NULL,
	"send_attempts" integer DEFAULT 0 NOT NULL,
	"poll_attempts" integer DEFAULT 0 NOT NULL,
	"lease_until" timestamp with time zone,
	"next_attempt_at" timestamp with time zone,
	"ack_sobre_xml" text,
	"ack_estado" varchar(2),
	"id_receptor" text,
	"token" text,
	"consultar_desde" timestamp with time zone,
	"ack_cfe_xml" text,
	"error_codigo" varchar(20),
	"error_mensaje" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"processed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "dgi_idemisor_counters" (
	"company_id" integer PRIMARY KEY NOT NULL,
	"last_id_emisor" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dgi_submission_settings" (
	"company_id" integer PRIMARY KEY NOT NULL,
	"envio_individual" varchar(20) DEFAULT 'todos' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "accounting_accounts" (
	"company_id" integer PRIMARY KEY NOT NULL,
	"cuentas" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cfe_export_configs" (
	"user_id" integer NOT NULL,
	"company_scope" integer DEFAULT 0 NOT NULL,
	"columnas" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cfe_export_configs_user_id_company_scope_pk" PRIMARY KEY("user_id","company_scope")
);
--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "emisor_electronico" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "email_intercambio" text;--> statement-breakpoint
ALTER TABLE "daily_reports" ADD CONSTRAINT "daily_reports_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dgi_envelope_items" ADD CONSTRAINT "dgi_envelope_items_envelope_id_dgi_envelopes_id_fk" FOREIGN KEY ("envelope_id") REFERENCES "public"."dgi_envelopes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dgi_envelope_items" ADD CONSTRAINT "dgi_envelope_items_issued_cfe_id_issued_cfes_id_fk" FOREIGN KEY ("issued_cfe_id") REFERENCES "public"."issued_cfes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dgi_envelopes" ADD CONSTRAINT "dgi_envelopes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dgi_idemisor_counters" ADD CONSTRAINT "dgi_idemisor_counters_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dgi_submission_settings" ADD CONSTRAINT "dgi_submission_settings_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "accounting_accounts" ADD CONSTRAINT "accounting_accounts_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cfe_export_configs" ADD CONSTRAINT "cfe_export_configs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "daily_reports_company_date_idx" ON "daily_reports" USING btree ("company_id","fecha_resumen","sec_envio");--> statement-breakpoint
CREATE UNIQUE INDEX "daily_reports_accepted_uq" ON "daily_reports" USING btree ("company_id","fecha_resumen","sec_envio") WHERE "daily_reports"."estado" = 'aceptado';--> statement-breakpoint
CREATE UNIQUE INDEX "dgi_envelope_items_pk" ON "dgi_envelope_items" USING btree ("envelope_id","ordinal");--> statement-breakpoint
CREATE UNIQUE INDEX "dgi_envelope_items_live_cfe_uq" ON "dgi_envelope_items" USING btree ("issued_cfe_id") WHERE "dgi_envelope_items"."live";--> statement-breakpoint
CREATE UNIQUE INDEX "dgi_envelopes_idemisor_uq" ON "dgi_envelopes" USING btree ("company_id","id_emisor");--> statement-breakpoint
CREATE INDEX "dgi_envelopes_company_idx" ON "dgi_envelopes" USING btree ("company_id","id");--> statement-breakpoint
CREATE INDEX "dgi_envelopes_open_idx" ON "dgi_envelopes" USING btree ("estado") WHERE "dgi_envelopes"."estado" in ('creado', 'recibido');--> statement-breakpoint
CREATE INDEX "issued_cfes_pending_dgi_idx" ON "issued_cfes" USING btree ("company_id","id") WHERE "issued_cfes"."estado" = 'firmado';