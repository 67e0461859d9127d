CREATE TABLE "inbound_mailboxes" (
	"company_id" integer PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"port" integer NOT NULL,
	"tls" boolean NOT NULL,
	"usuario" text NOT NULL,
	"clave_sellada" text NOT NULL,
	"carpeta" text DEFAULT 'INBOX' NOT NULL,
	"direccion" text,
	"activo" boolean DEFAULT true NOT NULL,
	"uid_validity" bigint,
	"ultimo_uid" bigint DEFAULT 0 NOT NULL,
	"ultimo_sondeo_ok" timestamp with time zone,
	"ultimo_error" text,
	"ultimo_error_en" timestamp with time zone,
	"actualizado_en" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inbound_mails" (
	"company_id" integer NOT NULL,
	"uid_validity" bigint NOT NULL,
	"uid" bigint NOT NULL,
	"message_id" text,
	"remitente" text,
	"asunto" text,
	"clase" varchar(12) NOT NULL,
	"detalle" text,
	"envelope_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"leido_en" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "inbound_mails_company_id_uid_validity_uid_pk" PRIMARY KEY("company_id","uid_validity","uid")
);
--> statement-breakpoint
CREATE TABLE "received_answers" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"envelope_id" bigint,
	"tipo" varchar(8) NOT NULL,
	"file_name" text NOT NULL,
	"xml" text NOT NULL,
	"email" text,
	"estado" varchar(16) NOT NULL,
	"intentos" integer DEFAULT 0 NOT NULL,
	"ultimo_error" text,
	"enviado_en" timestamp with time zone,
	"creado_en" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "received_cfe_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"received_cfe_id" bigint NOT NULL,
	"estado" varchar(20) NOT NULL,
	"motivos" jsonb,
	"mensaje" text,
	"user_id" integer,
	"creado_en" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "received_cfes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"secuencia" bigint NOT NULL,
	"envelope_id" bigint,
	"nro_ordinal" integer,
	"canal" varchar(12) NOT NULL,
	"rut_emisor" varchar(12),
	"razon_social_emisor" text,
	"tipo_cfe" smallint,
	"serie" varchar(2),
	"numero" integer,
	"fecha_emision" date,
	"tmst_firma" text,
	"moneda" varchar(3),
	"tipo_cambio" numeric(10, 3),
	"mnt_total" numeric(17, 2),
	"mnt_pagar" numeric(17, 2),
	"datos" jsonb,
	"adenda" text,
	"xml" text NOT NULL,
	"verificaciones" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"estado" varchar(20) NOT NULL,
	"motivos" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"vencimiento_respuesta" date,
	"decidido_en" timestamp with time zone,
	"decidido_por" integer,
	"respuesta_id" bigint,
	"recibido_en" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "received_counters" (
	"company_id" integer PRIMARY KEY NOT NULL,
	"ultimo" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "received_envelopes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"company_id" integer NOT NULL,
	"canal" varchar(12) NOT NULL,
	"rut_emisor" varchar(12),
	"idemisor" bigint,
	"rut_receptor" varchar(12),
	"fecha" text,
	"cant_cfe" integer,
	"file_name" text,
	"bytes" "bytea" NOT NULL,
	"sha256" varchar(64) NOT NULL,
	"estado" varchar(2) NOT NULL,
	"motivos" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"verificaciones" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"email_respuesta" text,
	"mail_uid" text,
	"recibido_en" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "received_idempotency" (
	"company_id" integer NOT NULL,
	"key" text NOT NULL,
	"request_hash" varchar(64) NOT NULL,
	"response" jsonb NOT NULL,
	"creado_en" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "received_idempotency_company_id_key_pk" PRIMARY KEY("company_id","key")
);
--> statement-breakpoint
ALTER TABLE "inbound_mailboxes" ADD CONSTRAINT "inbound_mailboxes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbound_mails" ADD CONSTRAINT "inbound_mails_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "received_answers" ADD CONSTRAINT "received_answers_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "received_answers" ADD CONSTRAINT "received_answers_envelope_id_received_envelopes_id_fk" FOREIGN KEY ("envelope_id") REFERENCES "public"."received_envelopes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "received_cfe_history" ADD CONSTRAINT "received_cfe_history_received_cfe_id_received_cfes_id_fk" FOREIGN KEY ("received_cfe_id") REFERENCES "public"."received_cfes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "received_cfes" ADD CONSTRAINT "received_cfes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "received_cfes" ADD CONSTRAINT "received_cfes_envelope_id_received_envelopes_id_fk" FOREIGN KEY ("envelope_id") REFERENCES "public"."received_envelopes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "received_counters" ADD CONSTRAINT "received_counters_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "received_envelopes" ADD CONSTRAINT "received_envelopes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "received_idempotency" ADD CONSTRAINT "received_idempotency_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "received_answers_envelope_idx" ON "received_answers" USING btree ("envelope_id");--> statement-breakpoint
CREATE INDEX "received_cfe_history_cfe_idx" ON "received_cfe_history" USING btree ("received_cfe_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "received_cfes_secuencia_uq" ON "received_cfes" USING btree ("company_id","secuencia");--> statement-breakpoint
CREATE UNIQUE INDEX "received_cfes_identity_uq" ON "received_cfes" USING btree ("company_id","rut_emisor","tipo_cfe","serie","numero") WHERE estado not in ('duplicado', 'rechazado_formato');--> statement-breakpoint
CREATE INDEX "received_cfes_envelope_idx" ON "received_cfes" USING btree ("envelope_id");--> statement-breakpoint
CREATE UNIQUE INDEX "received_envelopes_bytes_uq" ON "received_envelopes" USING btree ("company_id","sha256");--> statement-breakpoint
CREATE UNIQUE INDEX "received_envelopes_idemisor_uq" ON "received_envelopes" USING btree ("company_id","rut_emisor","idemisor") WHERE estado = 'AS';--> statement-breakpoint
CREATE INDEX "received_envelopes_company_idx" ON "received_envelopes" USING btree ("company_id","id");